/**
 * Following one event or one delivery to its end (what `portico emit --wait` and `portico
 * redeliver --wait` poll): `GET /v1/events/{eventId}` (operator) and `GET /v1/deliveries/{id}`.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { getDelivery } from '../services/event-trace.js';
import { bearer, errorResponses, jsonAnswer, type RouteDeps } from './route.js';
import { Delivery } from './schemas.js';

const WithInstallation = z.object({ installationId: z.string() });

export function traceRoutes(app: OpenAPIHono, { ctx, principal }: RouteDeps) {
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
