export * from './common.js'
export * from './event.js'
export * from './photo.js'
export * from './session.js'
