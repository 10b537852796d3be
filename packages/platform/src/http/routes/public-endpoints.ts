/**
 * `ANY /v1/installations/{id}/public[/…]`: the installation's public endpoint, any method and any
 * body handed unchanged to the integration's `fetch` (its body limit is middleware/body-limit.ts's).
 * Routed by hand, since no schema validates it; documented for every method it is asked with.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { callPublicEndpoint } from '../../calls/integration-calls.js';
import { anyone, errorAnswer, errorResponses, type RouteDeps, TAGS } from '../route.js';

export function publicEndpointRoutes({ ctx, dispatcher }: Pick<RouteDeps, 'ctx' | 'dispatcher'>): OpenAPIHono {
  const app = new OpenAPIHono();
  const publicEndpoint = async (c: Context) => callPublicEndpoint(ctx, dispatcher, c.req.param('id') ?? '', c.req.raw);
  app.all('/v1/installations/:id/public', publicEndpoint);
  app.all('/v1/installations/:id/public/*', publicEndpoint);
  for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
    app.openAPIRegistry.registerPath({
      method,
      path: '/v1/installations/{id}/public/{path}',
      // One operation per method: e.g. postInstallationPublicEndpoint.
      operationId: `${method}InstallationPublicEndpoint`,
      summary: "The installation's public endpoint: any method, any body, handed unchanged to the integration's fetch",
      tags: TAGS.installations,
      security: anyone,
      request: { params: z.object({ id: z.string(), path: z.string() }) },
      responses: {
        200: { description: "Whatever the integration's fetch handler answers" },
        404: errorResponses[404],
        413: errorResponses[413],
        503: errorAnswer('The installation is paused'),
      },
    });
  }
  return app;
}
