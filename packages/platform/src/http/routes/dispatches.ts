/** `GET /v1/installations/{id}/dispatches`: the installation's dispatch log, a page at a time. */
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
      operationId: 'listDispatches',
      summary:
        'The dispatches to this installation, newest first by the time each one was recorded: event, host, status, duration, error and logs; the next page’s cursor is in X-Next-Cursor',
      tags: TAGS.installations,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        query: z.object({
          limit: z.coerce
            .number()
            .int()
            .min(1)
            .max(200)
            .optional()
            .openapi({ description: 'Dispatches per page (1 to 200; 100 when not given)' }),
          cursor: z
            .string()
            .optional()
            .openapi({ description: 'The X-Next-Cursor of the page before: this page continues after its last row' }),
          system: z.enum(['true', 'false']).optional().openapi({
            description:
              'false: leave out the system events (the dashboard’s renders `ui_render` and the setup events); true (the default): every dispatch',
          }),
        }),
      },
      responses: { 200: jsonAnswer(z.array(DispatchRecord)), ...errorResponses },
    }),
    async (c) => {
      const { system, ...query } = c.req.valid('query');
      const page = await listDispatches(ctx, await principal(c), c.req.valid('param').id, {
        ...query,
        system: system !== 'false',
      });
      if (page.nextCursor) c.header('x-next-cursor', page.nextCursor);
      return c.json(page.dispatches, 200);
    },
  );

  return app;
}
