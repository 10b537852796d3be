/** `POST /v1/installations/{id}/oauth/start`: the start link of an OAuth connection (the Connect button). */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { getCookie } from 'hono/cookie';
import { SESSION_COOKIE } from '../../access/sessions.js';
import { startOAuth } from '../../calls/oauth-starts.js';
import { bearer, errorResponses, jsonAnswer, jsonBody, type RouteDeps, TAGS } from '../route.js';

const OAuthStartInput = z
  .strictObject({
    property: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'The button property to connect (default: the only one of its level)' }),
  })
  .openapi('OAuthStartInput');

const OAuthStart = z
  .object({
    url: z.string().openapi({
      description:
        "Open it in the browser that asked (a session's link works only there): the integration's OAuth path with a signed start token",
    }),
    property: z.string(),
    expiresAt: z.string().openapi({ description: 'The link works until then (5 minutes)' }),
  })
  .openapi('OAuthStart');

export function oauthRoutes({ ctx, principal }: Pick<RouteDeps, 'ctx' | 'principal'>): OpenAPIHono {
  const app = new OpenAPIHono();

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/installations/{id}/oauth/start',
      operationId: 'startOAuth',
      summary:
        "Start an OAuth connection (the Connect button): a signed link to the integration's OAuth path, valid 5 minutes, for this installation and session; the public OAuth path refuses flows without one",
      tags: TAGS.installations,
      security: bearer,
      request: {
        params: z.object({ id: z.string() }),
        body: { ...jsonBody(OAuthStartInput, { property: 'account' }), required: false },
      },
      responses: { 200: jsonAnswer(OAuthStart), ...errorResponses },
    }),
    async (c) => {
      const who = await principal(c);
      // A session's link is bound to it; a bearer token's request has no session.
      const session = c.req.header('authorization') === undefined ? getCookie(c, SESSION_COOKIE) : undefined;
      const { property } =
        c.req.header('content-length') === '0' || !c.req.header('content-type') ? {} : c.req.valid('json');
      return c.json(await startOAuth(ctx, who, c.req.valid('param').id, property, session), 200);
    },
  );

  return app;
}
