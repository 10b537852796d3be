/** `GET /v1/installations/{id}/dispatches`: the installation's dispatch log. */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { listDispatches } from '../../dispatch/dispatch-log.js';
import { bearer, errorResponses, jsonAnswer, type RouteDeps, TAGS } from '../route.js';
import { DispatchRecord } from '../schemas/dispatches.js';

export function dispatchRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/dispatches',
      summary: 'The latest dispatches to this installation: event, host, status, duration, error and logs',
      tags: TAGS.installations,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(z.array(DispatchRecord)), ...errorResponses },
    }),
    async (c) => c.json(await listDispatches(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  return app;
}
