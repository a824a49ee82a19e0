/** This package's version, sent as `x-photobooth-sdk` (kept equal to package.json's by test/sdk). */
export const SDK_VERSION = '0.1.0'
