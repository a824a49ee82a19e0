import { buildApps } from '../../apps/build.js'

/** The browser suite's first step: the web apps the service serves (apps/*), built when their sources changed. */
export function setup(): void {
  buildApps({ staleOnly: true })
}
