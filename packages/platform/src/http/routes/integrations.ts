/**
 * Integrations (`/v1/integrations…`): publishing one, the directory of what the caller may install,
 * an integration's page, and the files (icon, preview images) each published for its page.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { integrationComponents, publishWarnings } from '../../calls/integration-calls.js';
import { invalid, notFound } from '../../errors/domain-error.js';
import { namedAssets, readAsset } from '../../integrations/assets.js';
import { listIntegrations } from '../../integrations/list.js';
import { publish } from '../../integrations/publish.js';
import { getIntegration, visibleIntegration } from '../../integrations/read.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import { DirectoryEntry, IntegrationPage, Published, PublishInput } from '../schemas/integrations.js';

const tags = TAGS.integrations;

/** Served files run nothing and are never read as another type (an SVG is an image, not a page). */
const ASSET_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
};

export function integrationRoutes({ ctx, dispatcher, principal }: RouteDeps): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/integrations',
      operationId: 'publishIntegration',
      summary: 'Publish an integration, or a new version of one of your organization’s',
      tags,
      security: bearer,
      request: {
        body: jsonBody(PublishInput, {
          manifest:
            'name: hello-world\ntitle: Hello World\norganization: acme\nvisibility: public\nscopes: []\nscript: src/index.ts\n',
          script: 'export default { async fetch() { return new Response("hello"); } };',
        }),
      },
      responses: { 201: jsonAnswer(Published.extend({ warnings: z.array(z.string()) })), ...errorResponses },
    }),
    async (c) => {
      const published = await publish(ctx, await principal(c), c.req.valid('json'));
      return c.json(
        { ...published, warnings: await publishWarnings(dispatcher, published.name, published.version) },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/integrations',
      operationId: 'listIntegrations',
      summary:
        'What you may install: public integrations, those of your organizations, and an unlisted one through its share link (`share`)',
      tags,
      security: bearer,
      request: {
        query: z.object({
          share: z.string().min(1).optional().openapi({ description: "An unlisted integration's share token" }),
        }),
      },
      responses: { 200: jsonAnswer(z.array(DirectoryEntry)), ...errorResponses },
    }),
    async (c) => c.json(await listIntegrations(ctx, await principal(c), c.req.valid('query').share), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/integrations/{name}',
      operationId: 'getIntegration',
      summary:
        'Read an integration for its page: its manifest without secrets, what each scope grants, its configuration schemas, files and components',
      tags,
      security: bearer,
      request: {
        params: z.object({ name: z.string() }),
        query: z.object({
          shareToken: z.string().optional(),
          share: z.string().optional().openapi({ description: 'The same as shareToken' }),
        }),
      },
      responses: { 200: jsonAnswer(IntegrationPage), ...errorResponses },
    }),
    async (c) => {
      const { name } = c.req.valid('param');
      const { shareToken, share } = c.req.valid('query');
      const integration = await getIntegration(ctx, await principal(c), name, shareToken ?? share);
      return c.json({ ...integration, components: await integrationComponents(dispatcher, name) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/integrations/{name}/assets/{asset}',
      operationId: 'getIntegrationAsset',
      summary: 'A file the integration published for its page: `icon`, or `preview-0`, `preview-1`, …',
      tags,
      security: bearer,
      request: {
        params: z.object({ name: z.string(), asset: z.string().regex(/^(icon|preview-\d{1,3})$/) }),
        query: z.object({
          v: z.coerce.number().int().min(1).optional().openapi({ description: 'The version (default: the latest)' }),
          share: z.string().optional().openapi({ description: "An unlisted integration's share token" }),
        }),
      },
      responses: {
        200: {
          description: 'The file (PNG, JPEG, GIF, WebP, SVG or ICO)',
          content: { 'image/*': { schema: z.string().openapi({ format: 'binary' }) } },
        },
        ...errorResponses,
      },
    }),
    async (c) => {
      const { name, asset } = c.req.valid('param');
      const { v, share } = c.req.valid('query');
      const { row, manifest } = await visibleIntegration(ctx, await principal(c), name, share);
      if (v !== undefined && v > row.latest_version) {
        throw invalid('unknown_version', `the integration ${name} has versions 1 to ${row.latest_version}, not ${v}`);
      }
      if (v === undefined && !namedAssets(manifest).some((a) => a.asset === asset)) {
        throw notFound(`the asset ${asset} of the integration ${name} (its manifest names no such file)`);
      }
      const file = await readAsset(ctx, name, v ?? row.latest_version, asset);
      return c.body(file.bytes as Uint8Array<ArrayBuffer>, 200, {
        ...ASSET_HEADERS,
        'content-type': file.contentType,
        // A version's files never change.
        'cache-control': v !== undefined ? 'private, max-age=31536000, immutable' : 'private, no-cache',
      }) as never;
    },
  );

  return app;
}
