/** What the document says precisely enough for a third party: examples, bounds, formats, servers, lint. */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { promisify } from 'node:util'

import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document, read as plain JSON
type Schema = Record<string, any>
const root = resolve(import.meta.dirname, '../..')
const document = JSON.parse(await readFile(resolve(root, 'openapi/openapi.json'), 'utf8')) as Schema
const schemas = document.components.schemas as Record<string, Schema>

const resolveRef = (schema: Schema): Schema =>
  typeof schema.$ref === 'string' ? resolveRef(schemas[schema.$ref.replace('#/components/schemas/', '')]!) : schema

const operations = Object.entries(document.paths as Record<string, Record<string, Schema>>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => ({ path, method, operation })),
)

describe('the document, for a third party', () => {
  it('when each operation is read, then its path parameters, request body and JSON success answer carry examples', () => {
    const missing: string[] = []
    for (const { method, path, operation } of operations) {
      const id = `${method.toUpperCase()} ${path}`
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path' && !resolveRef(parameter.schema).examples?.length) missing.push(`${id} parameter ${parameter.name}`)
      }
      for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as Record<string, Schema>)) {
        if (!resolveRef(media.schema).examples?.length) missing.push(`${id} request ${type}`)
      }
      for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
        const json = response.content?.['application/json']
        if (status.startsWith('2') && json && !resolveRef(json.schema).examples?.length) missing.push(`${id} ${status}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('when every example is checked against its own schema, then each is valid', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/)
    ajv.addFormat('uri', (value: string) => URL.canParse(value))
    ajv.addFormat('binary', () => true)
    const failures: unknown[] = []
    let checked = 0
    const visit = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((item, index) => visit(item, `${where}/${index}`))
      if (node === null || typeof node !== 'object') return
      const schema = node as Schema
      if (
        Array.isArray(schema.examples) &&
        (schema.type !== undefined || schema.properties || schema.anyOf || schema.oneOf || schema.$ref)
      ) {
        const validate = ajv.compile({ ...schema, components: document.components })
        for (const example of schema.examples) {
          checked++
          if (!validate(example)) failures.push({ where, example, errors: validate.errors })
        }
      }
      for (const [key, value] of Object.entries(schema)) if (key !== 'examples') visit(value, `${where}/${key}`)
    }
    visit(document.paths, '#/paths')
    visit(document.components, '#/components')
    expect(failures).toEqual([])
    expect(checked).toBeGreaterThan(60)
  })

  it('when linted by Redocly with its recommended rules, then it has no error and no warning', async () => {
    const { stdout, stderr } = await promisify(execFile)('pnpm', ['exec', 'redocly', 'lint', 'openapi/openapi.json', '--format', 'json'], {
      cwd: root,
    })
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number; ignored: number }; problems: unknown[] }
    expect(report.problems, stderr).toEqual([])
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
    // No rule is off: the known problems are ignored where they occur (redocly.yaml says why): the
    // ambiguous zip path, and the health probes' lack of a 4xx (their GET and HEAD).
    expect(await readFile(resolve(root, 'redocly.yaml'), 'utf8')).not.toMatch(/:\s*off\b/)
    expect(report.totals.ignored).toBe(5)
  })

  it('when read, then the committed servers are a templated base URL, and the description does not claim one error shape', () => {
    expect(document.servers).toEqual([
      expect.objectContaining({ url: '{baseUrl}', variables: { baseUrl: expect.objectContaining({ default: 'http://localhost:3000' }) } }),
    ])
    const description = document.info.description as string
    expect(description).not.toMatch(/every error answers/i)
    expect(description).toMatch(/plain text `Unauthorized`/)
    expect(description).toMatch(/plain text `Not Found`/)
    expect(description).toMatch(/`HEAD`/)
  })

  it('when read, then validation issues, guests and the contact form are described exactly', () => {
    const message = schemas.ValidationError!.properties.error.properties.message
    expect(message).toMatchObject({ type: 'string', contentMediaType: 'application/json' })
    expect(message.contentSchema).toMatchObject({ type: 'array', items: { type: 'object', required: ['code', 'path', 'message'] } })
    expect(JSON.parse(schemas.ValidationError!.examples[0].error.message)[0]).toMatchObject({ code: 'too_small', path: ['guests'] })

    // An email address, or blank (not given); no other text.
    const email = schemas.Guest!.properties.email
    expect(email.anyOf).toEqual([expect.objectContaining({ format: 'email' }), expect.objectContaining({ pattern: '^\\s*$' })])
    expect(email.maxLength).toBe(254)

    const fields = schemas.ContactSubmission!.properties.fields
    expect(fields).toMatchObject({ minProperties: 1, maxProperties: 24, additionalProperties: { maxLength: 2000 } })
  })

  it('when read, then the upload cap, completion refusals and the byte routes’ faults are stated', () => {
    const uploads = document.paths['/booth/sessions/{sessionId}/uploads'].post
    expect(uploads.description).toMatch(/25 MB/)
    const complete = document.paths['/booth/sessions/{sessionId}/complete'].post
    expect(complete.description).toMatch(/Photo keys outside this session/)
    expect(complete.description).toMatch(/Photo keys given more than once/)
    for (const path of ['/gallery/{sessionId}/photos/{photoId}/download', '/gallery/{sessionId}/zip']) {
      expect(Object.keys(document.paths[path].get.responses)).toEqual(expect.arrayContaining(['200', '404', '500', '503']))
    }
  })
})
