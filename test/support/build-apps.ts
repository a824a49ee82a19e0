import { buildApps } from '../../apps/build.js'

/**
 * The browser suite's first step: the web apps the service serves (apps/*), built when their sources
 * changed. An app whose build fails is left out (and its own tests fail): it stops no other app's.
 */
export function setup(): void {
  buildApps({ staleOnly: true, keepGoing: true })
}
