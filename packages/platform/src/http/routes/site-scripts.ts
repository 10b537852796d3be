/**
 * Site scripts (calls/published-scripts.ts): `GET /v1/sites/{site}/scripts` lists the scripts a
 * site's installations publish (an admin of its organization, or the operator);
 * `GET /v1/installations/{id}/published-script` answers one, to anyone, as JavaScript with an ETag.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { publishedScript, siteScripts } from '../../calls/published-scripts.js';
import { anyone, bearer, errorAnswer, errorResponses, jsonAnswer, type RouteDeps, TAGS } from '../route.js';

const SiteScript = z
  .object({
    installationId: z.string().openapi({ description: 'The site installation that publishes the script' }),
    integration: z.string(),
    url: z.string().openapi({ description: 'Where the script is served: load it in the site’s pages' }),
    contentSecurityPolicy: z
      .union([z.string(), z.record(z.string(), z.string())])
      .optional()
      .openapi({
        description:
          "The integration's gitbook-manifest.yaml `contentSecurityPolicy` (a policy, or directive → sources): what the site's pages allow so the script works",
      }),
  })
  .openapi('SiteScript');

export function siteScriptRoutes({ ctx, dispatcher, principal }: RouteDeps): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/sites/{site}/scripts',
      operationId: 'listSiteScripts',
      summary:
        "The scripts the site's active installations publish (scope `site:script:inject`), for the documentation product to inject into its pages",
      tags: TAGS.installations,
      security: bearer,
      request: { params: z.object({ site: z.string() }) },
      responses: { 200: jsonAnswer(z.array(SiteScript)), ...errorResponses },
    }),
    async (c) => c.json(await siteScripts(ctx, await principal(c), c.req.valid('param').site), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/published-script',
      operationId: 'getPublishedScript',
      summary:
        "A site installation's published script (its integration's answer to `fetch_published_script`), kept until the installation's configuration or the integration's version changes",
      tags: TAGS.installations,
      security: anyone,
      request: {
        params: z.object({ id: z.string() }),
        headers: z.object({ 'if-none-match': z.string().optional() }),
      },
      responses: {
        200: {
          description: 'The script, with its ETag',
          content: { 'application/javascript': { schema: z.string() } },
        },
        304: { description: 'Not modified: the ETag in If-None-Match is the current one' },
        ...errorResponses,
        502: errorAnswer('The integration failed or answered something other than a script'),
        503: errorAnswer('The installation is paused or pending'),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const answer = await publishedScript(ctx, dispatcher, id, c.req.header('if-none-match'));
      const headers = { etag: answer.etag, 'cache-control': 'public, no-cache' };
      if (answer.status === 304) return c.body(null, 304, headers) as never;
      return c.body(answer.script as Uint8Array<ArrayBuffer>, 200, {
        ...headers,
        'content-type': 'application/javascript; charset=utf-8',
        'x-content-type-options': 'nosniff',
      }) as never;
    },
  );

  return app;
}
