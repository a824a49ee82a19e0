import { oc, type OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { ErrorRef, withCodes, type EdgePolicy } from './base.js'

const tags = ['Operations']

/** Never kept by a cache: a probe asks about now. */
const NO_STORE: Record<string, OpenAPI.HeaderObject> = {
  'Cache-Control': { description: '`no-store`', schema: { type: 'string', enum: ['no-store'] } },
}

/**
 * For the load balancer and the orchestrator (server/src/modules/operations): no credential, never
 * rate limited, never cached, nothing about anyone. No input, so none of the API's 400s.
 */
export const operations = {
  live: oc
    .$meta<EdgePolicy>({})
    .route({
      method: 'GET',
      path: '/healthz',
      operationId: 'live',
      summary: 'Whether the process answers',
      description:
        'Liveness: 200 `{ "status": "ok" }` whenever the process answers, database or not. Restart the instance when it does not.',
      tags,
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        responses: { '200': { ...(operation.responses?.['200'] as OpenAPI.ResponseObject), headers: NO_STORE } },
      }),
    })
    .output(z.object({ status: z.literal('ok') }).meta({ examples: [{ status: 'ok' }] })),
  ready: oc
    .$meta<EdgePolicy>({})
    .route({
      method: 'GET',
      path: '/readyz',
      operationId: 'ready',
      summary: 'Whether this instance should be sent requests',
      description:
        'Readiness: 200 `{ "status": "ready" }` when the database answers within 2 seconds, every migration is applied and the instance is not shutting down; otherwise 503 with the reason. Take the instance out of the load balancer while it is 503. Photo storage is not part of it, nor Redis: while the bucket is away, registrations, the kiosk context, galleries and staff still work, and only the routes that need storage answer 503 `storage_unavailable`; its state is `photobooth_dependency_up{dependency="storage"}` (checked at most every 5 seconds when this route is asked, two checks in a row changing it).',
      tags,
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        responses: {
          '200': { ...(operation.responses?.['200'] as OpenAPI.ResponseObject), headers: NO_STORE },
          '503': {
            description:
              '`{ "error": "draining" }` after a SIGTERM (during `SHUTDOWN_DELAY_MS` and the drain), `{ "error": "database unreachable" }` when the database does not answer within 2 seconds, `{ "error": "migrations pending" }` while `MIGRATE_ON_START=false` and `pnpm migrate` has not run.',
            headers: NO_STORE,
            content: { 'application/json': { schema: ErrorRef } },
          },
        },
      }),
    })
    .errors({ SERVICE_UNAVAILABLE: withCodes({ status: 503, message: 'Not ready' }, 'not_ready') })
    .output(z.object({ status: z.literal('ready') }).meta({ examples: [{ status: 'ready' }] })),
}
