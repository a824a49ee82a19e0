import type { IConfiguration } from 'dependency-cruiser'

/** The module graph's rules (.dependency-cruiser.js), typed for the test that shows them failing. */
declare const config: Required<Pick<IConfiguration, 'forbidden' | 'options'>>
export { config as default }
