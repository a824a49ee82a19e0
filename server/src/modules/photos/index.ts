/**
 * The photos module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { type CopiesWorker, type CopiesWorkerSettings, startCopiesWorker } from './copies-worker.js'
export { makeLegacyCopies } from './make-legacy-copies.js'
export { COPIES_CHANNEL, displayCopyKey, ensureFullSize, fullSizeKey, notifyCopiesWorkers, previewKey } from './photo-copies.service.js'
export { PREVIEW } from './photo-copies.js'
