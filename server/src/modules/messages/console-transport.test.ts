import { describe, expect, it } from 'vitest'

import { createLogger } from '../../logger.js'
import { createConsoleTransport } from './console-transport.js'

describe('the console transport (development)', () => {
  it('when it sends, then its one line names the outbox message by id beside its own text, with the address masked', async () => {
    const lines: string[] = []
    const transport = createConsoleTransport(createLogger({ write: (line) => void lines.push(line) }))
    await transport.send({
      id: 'msg-1-email',
      channel: 'email',
      recipient: 'ada@example.org',
      link: 'http://localhost:3000/g/x',
      eventName: 'Gala',
      guestName: 'Ada',
      senderName: 'Gala',
      privacyNoticeUrl: null,
    })
    expect(lines).toHaveLength(1)
    // One `message` key: the text. A second, the id, would have been lost in the JSON.
    expect(lines[0]!.match(/"message":/g)).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ message: 'email to a…@example.org', messageId: 'msg-1-email', to: 'a…@example.org' })
  })
})
