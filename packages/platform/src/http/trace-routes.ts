/**
 * Following one event or one delivery to its end (what `portico emit --wait` and `portico
 * redeliver --wait` poll): `GET /v1/events/{eventId}` (operator) and `GET /v1/deliveries/{id}`.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { getDelivery, traceEvent } from '../events/trace.js';
import { bearer, errorResponses, jsonAnswer, type RouteDeps } from './route.js';
import { Delivery, DispatchRecord } from './schemas.js';

const WithInstallation = z.object({ installationId: z.string() });

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

export function traceRoutes(app: OpenAPIHono, { ctx, principal }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/events/{eventId}',
      summary:
        'What became of an event (operator): the installations it is owed to and how each dispatch ended, its dispatches and the deliveries it caused',
      tags: ['Events'],
      security: bearer,
      request: { params: z.object({ eventId: z.string() }) },
      responses: { 200: jsonAnswer(EventTrace), ...errorResponses },
    }),
    async (c) => c.json(await traceEvent(ctx, await principal(c), c.req.valid('param').eventId), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/deliveries/{id}',
      summary: 'One delivery with its attempts and its installation',
      tags: ['Webhook deliveries'],
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(Delivery.extend(WithInstallation.shape)), ...errorResponses },
    }),
    async (c) => c.json(await getDelivery(ctx, await principal(c), c.req.valid('param').id), 200),
  );
}
