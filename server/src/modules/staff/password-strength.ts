import { ZxcvbnFactory } from '@zxcvbn-ts/core'
import * as common from '@zxcvbn-ts/language-common'
import * as en from '@zxcvbn-ts/language-en'

/** zxcvbn's score (0 to 4) a staff password needs: 3 is "safely unguessable: moderate protection from an offline attack". */
const MIN_SCORE = 3

let zxcvbn: ZxcvbnFactory | undefined

/**
 * Why a staff password is too easy to guess (zxcvbn-ts, offline: common and leaked passwords, words,
 * keyboard runs, repeats, dates, and the member's own email and name), or undefined when it is not.
 * The dictionaries load on first use (about a second), not at start; a check then takes tens of
 * milliseconds. Without zxcvbn's Levenshtein matching, which took seconds a password here.
 */
export function weakPasswordReason(password: string, userInputs: string[] = []): string | undefined {
  zxcvbn ??= new ZxcvbnFactory({
    translations: en.translations,
    graphs: common.adjacencyGraphs,
    dictionary: { ...common.dictionary, ...en.dictionary },
    useLevenshteinDistance: false,
  })
  const inputs = userInputs
    .flatMap((input) => [input, ...input.split(/[@.\s]+/)])
    .map((input) => input.toLowerCase())
    .filter((input) => input.length >= 3)
  const { score, feedback } = zxcvbn.check(password, inputs)
  if (score >= MIN_SCORE) return undefined
  const why = [feedback.warning, ...feedback.suggestions].filter(Boolean).join(' ')
  return `This password is too easy to guess${why ? `: ${why}` : ''}`
}
