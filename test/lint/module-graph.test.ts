/**
 * The module graph's rules (.dependency-cruiser.js, run by `pnpm lint`) refuse what they are for: a
 * cycle between modules and a deep import into another module. Each is shown on a small tree of
 * modules written for the test, cruised with the house's own rules; the real tree is cruised too.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import { cruise, type ICruiseResult } from 'dependency-cruiser'
import { afterAll, describe, expect, it } from 'vitest'

import rules from '../../.dependency-cruiser.js'

const repo = new URL('../..', import.meta.url).pathname
const scratch: string[] = []
afterAll(() => Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true }))))

/** The rules' names broken by a tree of `files` (path under server/src/modules → source). */
async function violations(files: Record<string, string>): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), 'module-graph-'))
  scratch.push(root)
  for (const [path, source] of Object.entries(files)) {
    const file = join(root, 'server/src/modules', path)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, source)
  }
  const previous = process.cwd()
  process.chdir(root)
  try {
    return namesOf((await cruise(['server/src'], { validate: true, ruleSet: { forbidden: rules.forbidden } })).output as ICruiseResult)
  } finally {
    process.chdir(previous)
  }
}

const namesOf = (result: ICruiseResult) => [...new Set(result.summary.violations.map((violation) => violation.rule.name))].sort()

describe('the module graph', () => {
  it('when two modules import each other, even through a third, then the cycle is refused', async () => {
    expect(
      await violations({
        'a/index.js': "export { one } from './one.js'",
        'a/one.js': "import { two } from '../b/index.js'\nexport const one = () => two()",
        'b/index.js': "export { two } from './two.js'",
        'b/two.js': "import { three } from '../c/index.js'\nexport const two = () => three()",
        'c/index.js': "export { three } from './three.js'",
        'c/three.js': "import { one } from '../a/index.js'\nexport const three = () => one",
      }),
    ).toEqual(['no-module-cycle'])
  })

  it("when a file reaches past another module's front door, then it is refused; through index.js it passes", async () => {
    const b = { 'b/index.js': "export { two } from './two.js'", 'b/two.js': 'export const two = 2' }
    expect(await violations({ ...b, 'a/one.js': "import { two } from '../b/two.js'\nexport const one = two" })).toEqual(['front-door'])
    expect(await violations({ ...b, 'a/one.js': "import { two } from '../b/index.js'\nexport const one = two" })).toEqual([])
  })

  it('when the app outside the modules reaches past a front door, then it is refused too', async () => {
    expect(
      await violations({
        'b/index.js': "export { two } from './two.js'",
        'b/two.js': 'export const two = 2',
        '../app.js': "import { two } from './modules/b/two.js'\nexport const app = two",
      }),
    ).toEqual(['front-door'])
  })

  it('the service itself keeps both rules', async () => {
    const previous = process.cwd()
    process.chdir(repo)
    try {
      const { output } = await cruise(['server/src'], {
        validate: true,
        ruleSet: { forbidden: rules.forbidden },
        ...rules.options,
      })
      expect(
        (output as ICruiseResult).summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`),
      ).toEqual([])
    } finally {
      process.chdir(previous)
    }
  })
})
