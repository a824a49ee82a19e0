import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files that take longest, started first: run last, one of them alone is the run's tail (the
 * admin commands' processes take 40-80 s, a drill 15-35 s, most files 1-5 s). A clean clone has no
 * cache of durations, so vitest would order them by size, and these are small files.
 */
const SLOW_FIRST = [
  /^test\/admin\//,
  /^test\/sdk\/sdk-pack/,
  /^test\/drills\//,
  /^test\/http\/shutdown/,
  /^test\/photos\//,
  /^test\/delivery\/delivery/,
  /^test\/build\//,
  /^test\/idempotency\//,
  // Prism's process, and tsc over a generated client: 20-45 s each on a loaded machine.
  /^test\/openapi\/(prism-proxy|generated-client)/,
]

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification) => {
      const path = file.moduleId.slice(file.project.config.root.length + 1)
      const index = SLOW_FIRST.findIndex((pattern) => pattern.test(path))
      return index < 0 ? SLOW_FIRST.length : index
    }
    return sorted
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ file }) => file)
  }
}
