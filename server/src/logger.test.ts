import { describe, expect, it } from 'vitest'

import { describeError } from './logger.js'

describe('describeError', () => {
  it('when a storage error names a photo (a path or a key), then the session id in it is left out', () => {
    const error = Object.assign(new Error("ENOENT: no such file or directory, open '/srv/bucket/sessions/Zt5oP1vC9sDk3MwE7aRgQh/copies/f2LhN6cV0bXq8JyT4kWmSe.jpg'"), {
      cause: new Error('stored photo sessions/Zt5oP1vC9sDk3MwE7aRgQh/a.jpg is not the one completion recorded'),
    })
    const logged = JSON.stringify(describeError(error))
    expect(logged).not.toContain('Zt5oP1vC9sDk3MwE7aRgQh')
    expect(logged).toContain("open '/srv/bucket/sessions/…/copies/f2LhN6cV0bXq8JyT4kWmSe.jpg'")
    expect(logged).toContain('stored photo sessions/…/a.jpg')
  })
})
