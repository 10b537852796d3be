/**
 * `/compat/gitbook`: the part of GitBook's HTTP API that integrations written for its runtime call
 * (their environment's `apiEndpoint` points here), mapped onto Portico's services and
 * authorization (gitbook/compat.ts). Not in Portico's OpenAPI document: it is that
 * platform's API, answered in its shapes. Errors are Portico's `{ error: { code, message } }`,
 * whose `message` is where that API's client reads it too.
 */
import { z } from '@hono/zod-openapi';
import { type Context, Hono } from 'hono';
import { DomainError, invalid } from '../../errors/domain-error.js';
import { readPlace, updateInstallation } from '../../gitbook/compat.js';
import type { RouteDeps } from '../route.js';
import { Id } from '../schemas/common.js';
import { describeValidationError } from '../validation-error.js';

const ANSWERED = [
  'PATCH /v1/integrations/{name}/installations/{id}',
  'PATCH /v1/integrations/{name}/installations/{id}/spaces/{space}',
  'PATCH /v1/integrations/{name}/installations/{id}/sites/{site}',
  'GET /v1/orgs/{org}/sites/{site}',
  'GET /v1/spaces/{space}',
];

const InstallationUpdate = z.strictObject({
  configuration: z.record(z.string(), z.unknown()).optional(),
  externalIds: z.array(z.string()).optional(),
});

/** The request's JSON body, checked against `schema`; a 400 that names the field otherwise. */
async function body<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  let value: unknown;
  try {
    const text = await c.req.text();
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw invalid('invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid('invalid_request', describeValidationError('json', parsed.error));
  return parsed.data;
}

/** A path parameter that must be an id (`name` names it in the error). */
function id(c: Context, name: string): string {
  const value = c.req.param(name) ?? '';
  const parsed = Id.safeParse(value);
  if (!parsed.success)
    throw invalid('invalid_request', describeValidationError('param', parsed.error).replace('path', `path.${name}`));
  return value;
}

export function compatGitBookRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): Hono {
  const app = new Hono();
  const base = '/v1/integrations/:name/installations/:id';

  app.patch(base, async (c) =>
    c.json(
      await updateInstallation(
        ctx,
        await principal(c),
        c.req.param('name'),
        c.req.param('id'),
        undefined,
        await body(c, InstallationUpdate),
      ),
    ),
  );
  for (const type of ['space', 'site'] as const) {
    app.patch(`${base}/${type}s/:place`, async (c) =>
      c.json(
        await updateInstallation(
          ctx,
          await principal(c),
          c.req.param('name'),
          c.req.param('id'),
          { type, id: id(c, 'place') },
          await body(c, InstallationUpdate),
        ),
      ),
    );
  }

  app.get('/v1/spaces/:space', async (c) =>
    c.json(await readPlace(ctx, await principal(c), { type: 'space', id: id(c, 'space') })),
  );
  app.get('/v1/orgs/:org/sites/:site', async (c) =>
    c.json(await readPlace(ctx, await principal(c), { type: 'site', id: id(c, 'site') }, id(c, 'org'))),
  );
  // Everything else of that API: said plainly (not the dashboard's page, which answers other GETs).
  app.all('*', (c) => {
    throw new DomainError(
      'not_implemented',
      'not_implemented',
      `Portico does not answer ${c.req.method} ${c.req.path.replace(/^\/compat\/gitbook/, '')} of GitBook's API; under /compat/gitbook it answers ${ANSWERED.join(', ')}`,
    );
  });
  return app;
}
