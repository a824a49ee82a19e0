import { ZxcvbnFactory } from '@zxcvbn-ts/core'
import * as common from '@zxcvbn-ts/language-common'
import * as en from '@zxcvbn-ts/language-en'

import { COMMON_PASSPHRASES } from './common-passphrases.js'

/** zxcvbn's score (0 to 4) a staff password needs: 3 is "safely unguessable: moderate protection from an offline attack". */
const MIN_SCORE = 3

let zxcvbn: ZxcvbnFactory | undefined

/**
 * Why a staff password is too easy to guess (zxcvbn-ts, offline: common and leaked passwords, words,
 * keyboard runs, repeats, dates, and the member's own email and name; and the common passphrases of
 * common-passphrases.ts), or undefined when it is not.
 * The dictionaries load on first use (about a second), not at start; a check then takes tens of
 * milliseconds. Without zxcvbn's Levenshtein matching, which took seconds a password here.
 */
export function weakPasswordReason(password: string, userInputs: string[] = []): string | undefined {
  if (isCommonPassphrase(password)) return `${TOO_EASY}: it is a well-known passphrase, among the first a guesser tries.`
  zxcvbn ??= new ZxcvbnFactory({
    translations: en.translations,
    graphs: common.adjacencyGraphs,
    dictionary: { ...common.dictionary, ...en.dictionary, passphrases: [...COMMON_PASSPHRASES] },
    useLevenshteinDistance: false,
  })
  const inputs = userInputs
    .flatMap((input) => [input, ...input.split(/[@.\s]+/)])
    .map((input) => input.toLowerCase())
    .filter((input) => input.length >= 3)
  const { score, feedback } = zxcvbn.check(password, inputs)
  if (score >= MIN_SCORE) return undefined
  const why = [feedback.warning, ...feedback.suggestions].filter(Boolean).join(' ')
  return `${TOO_EASY}${why ? `: ${why}` : ''}`
}

const TOO_EASY = 'This password is too easy to guess'

/** Letters of its own a password needs beside a common passphrase it holds: fewer is the passphrase with a decoration. */
const OWN_LETTERS = 6

/**
 * Whether the password is mostly one of the common passphrases, whatever its case, separators and
 * decorations (`xCorrectHorseBatteryStaple99!`): zxcvbn scores a famous phrase with a letter and two
 * digits around it as strong, because it counts the capitals of a camel-cased phrase as guesses.
 */
function isCommonPassphrase(password: string): boolean {
  const letters = password.toLowerCase().replace(/[^a-z]+/g, '')
  return COMMON_PASSPHRASES.some((phrase) => letters.includes(phrase) && letters.length - phrase.length < OWN_LETTERS)
}
