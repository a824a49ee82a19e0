import { readFile } from 'node:fs/promises'

import { Fault } from '../../errors.js'
import type { Logger } from '../../logger.js'

/** Where the published contact page is: the content system's URL, or a local file in development. */
export type ContactFormSource =
  | { kind: 'url'; url: string; labelsPath: string; ttlMs: number }
  | { kind: 'file'; path: string; labelsPath: string; ttlMs: number }
  | { kind: 'none' }

/** What the published page says: its labels, and those of the fields it types as an email address. */
export type ContactForm = { labels: readonly string[]; emailLabels: readonly string[] }

export type ContactLabels = {
  /** The published form, or undefined when there has never been a copy. */
  get(): Promise<ContactForm | undefined>
}

const FETCH_TIMEOUT_MS = 5_000

/**
 * Reads the values at `path` in a document: dot-separated keys, `[]` after a key walks its array
 * (`fields[].label`, `data.attributes.form[].name`).
 */
function valuesAt(document: unknown, path: string): unknown[] {
  let values: unknown[] = [document]
  for (const segment of path.split('.')) {
    const many = segment.endsWith('[]')
    const key = many ? segment.slice(0, -2) : segment
    values = values.flatMap((value) => {
      const child = key === '' ? value : value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined
      return many ? (Array.isArray(child) ? (child as unknown[]) : []) : [child]
    })
  }
  return values
}

const isLabel = (value: unknown): value is string => typeof value === 'string' && value.length > 0

/**
 * The labels at `path`, and among them those whose field (the object holding the label) has
 * `type: "email"` beside it, as form builders declare an email input.
 */
export function formAt(document: unknown, path: string): ContactForm {
  const labels = valuesAt(document, path).filter(isLabel)
  const cut = path.lastIndexOf('.')
  const fields = cut < 0 ? [] : valuesAt(document, path.slice(0, cut))
  const labelKey = path.slice(cut + 1)
  const emailLabels = fields.flatMap((field) => {
    const { [labelKey]: label, type } = (field !== null && typeof field === 'object' ? field : {}) as Record<string, unknown>
    return type === 'email' && isLabel(label) ? [label] : []
  })
  return { labels, emailLabels }
}

/**
 * The labels with a time to live. Past it, the next request fetches again; while the content
 * system is down, the last good copy keeps serving. Concurrent requests share one fetch.
 */
export function createContactLabels(source: ContactFormSource, logger: Logger, now: () => Date = () => new Date()): ContactLabels {
  if (source.kind === 'none') return { get: async () => undefined }
  let copy: { form: ContactForm; fetchedAt: number } | undefined
  let inFlight: Promise<void> | undefined

  const load = async () => {
    const text =
      source.kind === 'file'
        ? await readFile(source.path, 'utf8')
        : await fetch(source.url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } }).then(
            async (response) => {
              if (!response.ok) throw new Fault(`the contact page answered ${response.status}`)
              return response.text()
            },
          )
    const form = formAt(JSON.parse(text), source.labelsPath)
    if (form.labels.length === 0) throw new Fault(`no labels at ${source.labelsPath}`)
    copy = { form, fetchedAt: now().getTime() }
  }

  return {
    async get() {
      if (copy && now().getTime() - copy.fetchedAt < source.ttlMs) return copy.form
      inFlight ??= load()
        .catch((error: unknown) => logger.error('contact page labels could not be read; serving the last good copy', error))
        .finally(() => {
          inFlight = undefined
        })
      await inFlight
      return copy?.form
    },
  }
}
