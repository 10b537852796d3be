/** Recover-since: redeliver an installation's failed deliveries of a time window, as a background job. */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { getRecovery, listRecoveries, startRecovery } from '../../jobs/recoveries.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, parseTime, type RouteDeps, TAGS } from '../route.js';

const Time = z
  .union([z.string().min(1), z.number().int().nonnegative()])
  .openapi({ description: 'An ISO 8601 time or Unix milliseconds', example: '2025-01-31T12:00:00Z' });

const RecoverInput = z
  .strictObject({
    since: Time.openapi({ description: 'Redeliver failed deliveries created from this time on' }),
    until: Time.optional().openapi({ description: 'Up to (not including) this time; default and at most: now' }),
  })
  .openapi('RecoverInput');

export const Recovery = z
  .object({
    id: z.string(),
    installationId: z.string(),
    since: z.string(),
    until: z.string(),
    status: z.enum(['running', 'done', 'failed']),
    total: z
      .number()
      .openapi({ description: 'Failed deliveries in the window when it started; once it ends, done + errors' }),
    done: z.number().openapi({ description: 'Redelivered so far' }),
    errors: z.number().openapi({ description: 'Could not be redelivered (their endpoint is disabled)' }),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi('Recovery');

const tags = TAGS.deliveries;

export function recoveryRoutes(
  { ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>,
  runner?: { wake(): void },
): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/deliveries/recover',
      operationId: 'recoverDeliveries',
      summary:
        'Recover since: redeliver every failed delivery created in [since, until) that was not redelivered yet, as a background job (GET /v1/recoveries/{id} for its progress)',
      tags,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        body: jsonBody(RecoverInput, { since: '2025-01-31T12:00:00Z' }),
      },
      responses: { 202: jsonAnswer(Recovery), ...errorResponses },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const recovery = await startRecovery(ctx, await principal(c), c.req.valid('param').id, {
        since: parseTime(body.since, 'body.since'),
        until: body.until === undefined ? undefined : parseTime(body.until, 'body.until'),
      });
      runner?.wake();
      return c.json(recovery, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/recoveries/{id}',
      operationId: 'getRecovery',
      summary: 'A recovery and its progress',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(Recovery), ...errorResponses },
    }),
    async (c) => c.json(await getRecovery(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/installations/{id}/recoveries',
      operationId: 'listRecoveries',
      summary: 'The installation’s latest recoveries (20), newest first',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: jsonAnswer(z.array(Recovery)), ...errorResponses },
    }),
    async (c) => c.json(await listRecoveries(ctx, await principal(c), c.req.valid('param').id), 200),
  );

  return app;
}
