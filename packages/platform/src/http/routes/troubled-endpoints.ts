/** Endpoints in trouble across organizations (`GET /v1/endpoints`, operator): what the operator console watches. */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { listTroubledEndpoints, TROUBLED_LIMIT } from '../../organizations/operator-views.js';
import { bearer, errorResponses, jsonAnswer, type RouteDeps, TAGS } from '../route.js';
import { TroubledEndpoint } from '../schemas/deliveries.js';

export function troubledEndpointRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/endpoints',
      operationId: 'listTroubledEndpoints',
      summary: `The endpoints of every organization that are disabled or failing (every attempt failed since failingSince), disabled first, then the longest failing, with their installation and place; at most ${TROUBLED_LIMIT} (operator). Enable one with POST /v1/installations/{id}/endpoints/{endpointId}/enable`,
      tags: TAGS.deliveries,
      security: bearer,
      request: {
        query: z.object({
          state: z
            .enum(['failing', 'disabled'])
            .optional()
            .openapi({ description: 'Only the failing or only the disabled ones (default: both)' }),
        }),
      },
      responses: { 200: jsonAnswer(z.array(TroubledEndpoint)), ...errorResponses },
    }),
    async (c) => c.json(await listTroubledEndpoints(ctx, await principal(c), c.req.valid('query').state), 200),
  );

  return app;
}
