/** Users (`/v1/users…`, operator): listing them, creating one with its API token, and one-time sign-in links. */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { requireAdmin } from '../../access/auth.js';
import { createSignInLink } from '../../access/sessions.js';
import { listUsers } from '../../organizations/operator-views.js';
import { createUser } from '../../organizations/users.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';
import { SignInLink, SignInLinkInput, UserCreated, UserEntry, UserInput } from '../schemas/users.js';

const tags = TAGS.directory;

export function userRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/users',
      operationId: 'createUser',
      summary: 'Create a user and their API token (operator); the token is shown only here',
      tags,
      security: bearer,
      request: { body: jsonBody(UserInput, { id: 'ada', name: 'Ada Lovelace' }) },
      responses: { 201: jsonAnswer(UserCreated), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      return c.json(await createUser(ctx, c.req.valid('json')), 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/users',
      operationId: 'listUsers',
      summary: 'Every user, by name, with the organizations they belong to and their role in each (operator)',
      tags,
      security: bearer,
      responses: { 200: jsonAnswer(z.array(UserEntry)), ...errorResponses },
    }),
    async (c) => c.json(await listUsers(ctx, await principal(c)), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/users/{id}/sign-in-links',
      operationId: 'createSignInLink',
      summary:
        'A one-time link that signs the user in to the dashboard, at `path` when given (operator); valid 15 minutes',
      tags,
      security: bearer,
      request: { params: z.object({ id: z.string() }), body: jsonBody(SignInLinkInput, { path: '/orgs/acme' }) },
      responses: { 201: jsonAnswer(SignInLink), ...errorResponses },
    }),
    async (c) => {
      requireAdmin(await principal(c));
      const { path } = c.req.valid('json');
      return c.json(await createSignInLink(ctx, c.req.valid('param').id, path), 201);
    },
  );

  return app;
}
