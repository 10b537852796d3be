/**
 * The integration directory: what the caller may install, and the files (icon, preview images)
 * each integration published for its page.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { invalid, notFound } from '../errors/domain-error.js';
import { namedAssets, readAsset } from '../integrations/assets.js';
import { listIntegrations } from '../integrations/list.js';
import { visibleIntegration } from '../integrations/read.js';
import { DirectoryEntry } from './page-schemas.js';
import { bearer, errorResponses, jsonAnswer, type RouteDeps } from './route.js';

const tags = ['Integrations'];

/** Served files run nothing and are never read as another type (an SVG is an image, not a page). */
const ASSET_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
};

export function directoryRoutes(app: OpenAPIHono, { ctx, principal }: RouteDeps) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/integrations',
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
      path: '/v1/integrations/{name}/assets/{asset}',
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
}
