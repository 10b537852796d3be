/**
 * `ANY /v1/integrations/{name}/public[/…]` and `/public-content[/…]`: a GitBook-dialect
 * integration's integration-wide public endpoints (calls/integration-public-endpoints.ts), any
 * method and any body handed unchanged to its `fetch`. Routed by hand, since no schema validates
 * them; documented for every method they are asked with.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { callIntegrationPublicEndpoint } from '../../calls/integration-public-endpoints.js';
import { anyone, errorAnswer, errorResponses, type RouteDeps, TAGS } from '../route.js';

export function integrationPublicEndpointRoutes({
  ctx,
  dispatcher,
}: Pick<RouteDeps, 'ctx' | 'dispatcher'>): OpenAPIHono {
  const app = new OpenAPIHono();
  for (const kind of ['public', 'public-content'] as const) {
    const handler = async (c: Context) =>
      callIntegrationPublicEndpoint(ctx, dispatcher, c.req.param('name') ?? '', kind, c.req.raw);
    app.all(`/v1/integrations/:name/${kind}`, handler);
    app.all(`/v1/integrations/:name/${kind}/*`, handler);
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      app.openAPIRegistry.registerPath({
        method,
        path: `/v1/integrations/{name}/${kind}/{path}`,
        // One operation per method: e.g. postIntegrationPublicEndpoint, getIntegrationPublicContent.
        operationId: `${method}Integration${kind === 'public' ? 'PublicEndpoint' : 'PublicContent'}`,
        summary:
          kind === 'public'
            ? "A GitBook-dialect integration's integration-wide public endpoint (`integration.urls.publicEndpoint`): handed to its latest version's fetch, as the installation whose OAuth flow the request's cookie carries, else with the integration's environment"
            : "A GitBook-dialect integration's `integration.urls.publicContentEndpoint`: handed to its latest version's fetch with the integration's environment",
        tags: TAGS.integrations,
        security: anyone,
        request: { params: z.object({ name: z.string(), path: z.string() }) },
        responses: {
          200: { description: "Whatever the integration's fetch handler answers" },
          403: errorResponses[403],
          404: errorResponses[404],
          413: errorResponses[413],
          503: errorAnswer('The installation of the OAuth flow is paused'),
        },
      });
    }
  }
  return app;
}
