import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import type { FakeProvider, Recorded } from './fake-providers.js'
import { serviceEnv } from './processes.js'

export type DrillService = {
  child: ChildProcess
  /** `http://127.0.0.1:<port>`. */
  url: string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** What it wrote on standard error (its faults). */
  stderr: () => string
  /** SIGKILL unless it has already exited; resolves once it has. */
  close: () => Promise<void>
}

const SCRIPT = fileURLToPath(new URL('./drill-service.ts', import.meta.url))

/**
 * The service in a child process of its own (test/support/drill-service.ts), in development mode
 * on an ephemeral port of 127.0.0.1, configured by `env`; resolves once it listens.
 */
export async function forkDrillService(env: NodeJS.ProcessEnv): Promise<DrillService> {
  const child = fork(SCRIPT, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: serviceEnv(env) })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.on('message', (message: { ready?: boolean; url?: string }) => message.ready && resolve(message.url!))
      void exited.then(({ code, signal }) => reject(new Error(`the service exited (${signal ?? code}) before it listened:\n${stderr}`)))
    })
    return { child, url, exited, stderr: () => stderr, close }
  } catch (error) {
    await close()
    throw error
  }
}

/** One message as a provider received it: its channel, recipient and text. */
export type ProviderMessage = { channel: 'email' | 'sms'; recipient: string; text: string; path: string }

/**
 * The messages in a fake provider's requests: a Postmark email (`/email`), each email of a
 * Postmark batch (`/email/batch`, an array), or a Twilio SMS (form-encoded). Whatever the
 * dispatcher's internals, what reached the provider is counted here.
 */
export function messagesOf(provider: FakeProvider, channel: 'email' | 'sms', requests: Recorded[] = provider.requests): ProviderMessage[] {
  return requests.flatMap((request): ProviderMessage[] => {
    if (channel === 'sms') {
      const form = new URLSearchParams(request.body)
      return [{ channel, recipient: form.get('To') ?? '', text: form.get('Body') ?? '', path: request.path }]
    }
    const parsed = JSON.parse(request.body) as { To?: string; TextBody?: string } | { To?: string; TextBody?: string }[]
    return (Array.isArray(parsed) ? parsed : [parsed]).map((email) => ({
      channel,
      recipient: email.To ?? '',
      text: email.TextBody ?? '',
      path: request.path,
    }))
  })
}

/** How many times each `channel recipient` was sent a message. */
export function tally(messages: ProviderMessage[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const message of messages)
    counts.set(`${message.channel} ${message.recipient}`, (counts.get(`${message.channel} ${message.recipient}`) ?? 0) + 1)
  return counts
}
