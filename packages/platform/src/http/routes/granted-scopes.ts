/**
 * Granted scopes (installations/granted-scopes.ts; DESIGN.md "Granted scopes"):
 * `POST /v1/installations/{id}/scopes/accept` grants what the latest version asks for (an admin of
 * the organization, or the operator); `GET /v1/scope-requests` lists the installations whose grant
 * is short of their integration's latest version (the operator).
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { acceptScopes, scopeRequests } from '../../installations/granted-scopes.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import { AcceptScopesInput, ScopeRequest, Scopes } from '../schemas/installations.js';

export function grantedScopeRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/scopes/accept',
      operationId: 'acceptInstallationScopes',
      summary:
        'Grant the organization installation what its integration’s latest version asks for (an admin of its organization): its events, token, environment and site scripts widen to it, and it is sent its setup event',
      tags: TAGS.installations,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        body: { ...jsonBody(AcceptScopesInput, { scopes: ['space:content:read', 'space:git:sync'] }), required: false },
      },
      responses: { 200: jsonAnswer(Scopes), ...errorResponses },
    }),
    async (c) => {
      const empty = c.req.header('content-length') === '0' || !c.req.header('content-type');
      const body = empty ? {} : c.req.valid('json');
      return c.json(await acceptScopes(ctx, await principal(c), c.req.valid('param').id, body.scopes), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/scope-requests',
      operationId: 'listScopeRequests',
      summary:
        'The organization installations whose integration’s latest version asks for scopes their organization has not granted yet, oldest version first (operator)',
      tags: TAGS.installations,
      security: bearer,
      responses: { 200: jsonAnswer(z.array(ScopeRequest)), ...errorResponses },
    }),
    async (c) => c.json(await scopeRequests(ctx, await principal(c)), 200),
  );

  return app;
}
