/** The dispatch log: one line per dispatch to an installation. */
import { z } from '@hono/zod-openapi';

export const DispatchRecord = z
  .object({
    id: z.number().openapi({ description: 'Increases with each dispatch recorded' }),
    eventId: z.string().nullable(),
    type: z.string(),
    host: z.string(),
    status: z.number(),
    durationMs: z.number(),
    error: z.string().nullable(),
    logs: z.array(z.string()).openapi({
      description:
        'What the integration wrote to `console` during the dispatch, captured in-band: its first 200 lines and 64 KiB, then one line saying how many more were dropped',
    }),
    logLines: z
      .array(z.object({ level: z.enum(['log', 'info', 'warn', 'error']), message: z.string() }))
      .openapi({ description: 'The same lines with their levels (the `console` method each was written with)' }),
    at: z.string(),
    skipped: z.string().nullable().openapi({
      description:
        'Why the event was not sent to the integration: `paused` (the installation, or its organization installation, was paused; the event is not kept). The platform wrote this line (host `platform`, status 0). Null when it was sent',
    }),
    delivery: z
      .object({
        id: z.string(),
        url: z.string(),
        status: z.enum(['pending', 'delivered', 'failed']),
        attempts: z.number(),
      })
      .nullable()
      .openapi({
        description:
          'An event fanned out to a webhook subscription when it was accepted: its delivery (GET /v1/deliveries/{id}), the record of it; no integration was called (`id` 0, `host` `delivery`, `status` the last attempt’s answer). Null for a dispatch',
      }),
  })
  .openapi('Dispatch');
