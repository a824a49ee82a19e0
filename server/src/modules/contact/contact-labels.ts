import { readFile } from 'node:fs/promises'

import type { Logger } from '../../logger.js'

/** Where the published contact page is: the content system's URL, or a local file in development. */
export type ContactFormSource =
  | { kind: 'url'; url: string; labelsPath: string; ttlMs: number }
  | { kind: 'file'; path: string; labelsPath: string; ttlMs: number }
  | { kind: 'none' }

export type ContactLabels = {
  /** The allowed labels, or undefined when there has never been a copy. */
  get(): Promise<readonly string[] | undefined>
}

const FETCH_TIMEOUT_MS = 5_000

/**
 * Reads the labels at `path` in a document: dot-separated keys, `[]` after a key walks its array
 * (`fields[].label`, `data.attributes.form[].name`).
 */
export function labelsAt(document: unknown, path: string): string[] {
  let values: unknown[] = [document]
  for (const segment of path.split('.')) {
    const many = segment.endsWith('[]')
    const key = many ? segment.slice(0, -2) : segment
    values = values.flatMap((value) => {
      const child = key === '' ? value : value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined
      return many ? (Array.isArray(child) ? child : []) : [child]
    })
  }
  return values.filter((value): value is string => typeof value === 'string' && value.length > 0)
}

/**
 * The labels with a time to live. Past it, the next request fetches again; while the content
 * system is down, the last good copy keeps serving. Concurrent requests share one fetch.
 */
export function createContactLabels(source: ContactFormSource, logger: Logger): ContactLabels {
  if (source.kind === 'none') return { get: async () => undefined }
  let copy: { labels: string[]; fetchedAt: number } | undefined
  let inFlight: Promise<void> | undefined

  const load = async () => {
    const text =
      source.kind === 'file'
        ? await readFile(source.path, 'utf8')
        : await fetch(source.url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } }).then(
            async (response) => {
              if (!response.ok) throw new Error(`the contact page answered ${response.status}`)
              return response.text()
            },
          )
    const labels = labelsAt(JSON.parse(text), source.labelsPath)
    if (labels.length === 0) throw new Error(`no labels at ${source.labelsPath}`)
    copy = { labels, fetchedAt: Date.now() }
  }

  return {
    async get() {
      if (copy && Date.now() - copy.fetchedAt < source.ttlMs) return copy.labels
      inFlight ??= load()
        .catch((error: unknown) => logger.error('contact page labels could not be read; serving the last good copy', error))
        .finally(() => {
          inFlight = undefined
        })
      await inFlight
      return copy?.labels
    },
  }
}
