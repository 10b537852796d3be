/**
 * Events (`/v1/events…`, operator): ingesting one or a batch (persisted, acknowledged, then routed
 * to the installations they concern), and following one to its end (what `portico emit --wait`
 * polls): who it is owed to, how each dispatch ended, its dispatches and the deliveries it caused.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { requireAdmin } from '../../access/auth.js';
import { DomainError } from '../../errors/domain-error.js';
import { type IncomingEvent, ingestEvent, ingestEvents } from '../../events/ingest.js';
import { traceEvent } from '../../events/trace.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import { Delivery, WithInstallation } from '../schemas/deliveries.js';
import { DispatchRecord } from '../schemas/dispatches.js';
import { EventAccepted, EventBatchInput, EventBatchResult, EventInput, MAX_BATCH_EVENTS } from '../schemas/events.js';
import { describeValidationError } from '../validation-error.js';

const tags = TAGS.events;

export const EventTrace = z
  .object({
    eventId: z.string(),
    type: z.string(),
    receivedAt: z.string(),
    routedAt: z
      .string()
      .nullable()
      .openapi({ description: 'When the router decided which installations it is owed to; null until then' }),
    installations: z.array(
      z.object({
        installationId: z.string(),
        outcome: z.string().nullable().openapi({
          description:
            'How its dispatch ended: `delivered`, `not_handled`, `skipped: …` or `failed…`; `retrying: …`, `waiting: …` or null while it is not over',
        }),
        dispatchedAt: z.string().nullable(),
      }),
    ),
    dispatches: z.array(DispatchRecord.extend(WithInstallation.shape)),
    deliveries: z.array(Delivery.extend(WithInstallation.shape)),
  })
  .openapi('EventTrace');

export function eventRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/events',
      operationId: 'ingestEvent',
      summary:
        'Ingest a platform event (operator): persisted, acknowledged, then routed to the installations it concerns',
      tags,
      security: bearer,
      request: {
        body: jsonBody(EventInput, {
          type: 'space_content_updated',
          eventId: 'evt_2025_0001',
          spaceId: 'handbook',
          revisionId: 'rev_42',
        }),
      },
      responses: { 202: jsonAnswer(EventAccepted), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      return c.json(await ingestEvent(ctx, c.req.valid('json')), 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/events/batch',
      operationId: 'ingestEventBatch',
      summary: `Ingest up to ${MAX_BATCH_EVENTS} events at once (operator): each is checked, persisted and answered as the single route would; an invalid one gets its own error`,
      tags,
      security: bearer,
      request: {
        body: jsonBody(EventBatchInput, {
          events: [
            { type: 'space_content_updated', eventId: 'evt_2025_0001', spaceId: 'handbook', revisionId: 'rev_42' },
          ],
        }),
      },
      responses: { 202: jsonAnswer(EventBatchResult), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      const { events } = c.req.valid('json');
      const results = await ingestEvents(
        ctx,
        events.map((event, index) => {
          const parsed = EventInput.safeParse(event);
          if (parsed.success) return parsed.data as IncomingEvent;
          const reason = describeValidationError(`events.${index}`, parsed.error).replace(/^invalid request: /, '');
          return new DomainError('invalid', 'invalid_event', reason);
        }),
      );
      return c.json(
        {
          results: results.map((r) => ('error' in r ? { error: { code: r.error.code, message: r.error.message } } : r)),
        },
        202,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/events/{eventId}',
      operationId: 'getEvent',
      summary:
        'What became of an event (operator): the installations it is owed to and how each dispatch ended, its dispatches and the deliveries it caused',
      tags,
      security: bearer,
      request: { params: z.object({ eventId: z.string() }) },
      responses: { 200: jsonAnswer(EventTrace), ...errorResponses },
    }),
    async (c) => c.json(await traceEvent(ctx, await principal(c), c.req.valid('param').eventId), 200),
  );

  return app;
}
