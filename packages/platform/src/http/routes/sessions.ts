/**
 * `/v1/session`: signing in to the dashboard and out. The session's secret is set as an HttpOnly,
 * SameSite=Strict cookie (Secure over https); the answer carries the CSRF token the dashboard sends
 * back in `X-CSRF-Token` on every request that changes something.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { principalOf } from '../../access/auth.js';
import { closeSession, openSession, SESSION_COOKIE, SESSION_TTL_MS, signedIn } from '../../access/sessions.js';
import { unauthenticated } from '../../errors/domain-error.js';
import type { Principal, ServiceContext } from '../../types.js';
import type { Caller } from '../middleware/credentials.js';
import { anyone, errorResponses, jsonAnswer, jsonBody, sessionCookie, TAGS } from '../route.js';

const SessionInput = z
  .object({
    token: z.string().min(1).optional().openapi({ description: 'A user token or the admin token' }),
    code: z.string().min(1).optional().openapi({ description: 'A one-time sign-in code printed by `portico serve`' }),
  })
  .strict()
  .openapi('SessionInput');

const Session = z
  .object({
    principal: z.object({
      kind: z.enum(['admin', 'user']),
      userId: z.string().optional(),
      name: z.string().optional().openapi({ description: "A user's name, as the operator synced it" }),
    }),
    csrfToken: z
      .string()
      .openapi({ description: 'Send it back in `X-CSRF-Token` on every request that changes something' }),
  })
  .openapi('Session');

const tags = TAGS.sessions;

export interface SessionRouteOptions {
  ctx: ServiceContext;
  adminToken: string;
  /**
   * Other sites may frame the dashboard (PORTICO_FRAME_ANCESTORS): over https the cookie is then
   * `SameSite=None; Partitioned`, so a framed dashboard keeps its session (the CSRF token still
   * guards every change).
   */
  embeddable?: boolean;
  /** The request's session, if it has one that has not ended (its CSRF token checked on changes). */
  session: Caller['session'];
}

export function sessionRoutes({ ctx, adminToken, session, embeddable = false }: SessionRouteOptions): OpenAPIHono {
  const app = new OpenAPIHono();
  const sessionOf = async (c: Context): Promise<{ principal: Principal; csrfToken: string } | undefined> => {
    const found = await session(c);
    if (found === undefined) return undefined;
    return { principal: await principalOf(ctx, found.credentials), csrfToken: found.csrfToken };
  };
  const view = async (principal: Principal, csrfToken: string) => ({
    principal: await signedIn(ctx, principal),
    csrfToken,
  });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/session',
      operationId: 'signIn',
      summary: 'Sign in: exchange a user token, the admin token or a one-time code for a session cookie',
      tags,
      security: anyone,
      request: { body: jsonBody(SessionInput, { token: 'ptk_…' }) },
      responses: { 201: jsonAnswer(Session), ...errorResponses },
    }),
    async (c) => {
      const opened = await openSession(ctx, adminToken, c.req.valid('json'));
      const secure = new URL(c.req.url).protocol === 'https:';
      const framed = embeddable && secure;
      setCookie(c, SESSION_COOKIE, opened.secret, {
        httpOnly: true,
        sameSite: framed ? 'None' : 'Strict',
        secure,
        ...(framed ? { partitioned: true } : {}),
        path: '/',
        maxAge: SESSION_TTL_MS / 1000,
      });
      return c.json(await view(opened.principal, opened.csrfToken), 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/session',
      operationId: 'getSession',
      summary: 'The signed-in session: who it is, and its CSRF token',
      tags,
      security: sessionCookie,
      responses: { 200: jsonAnswer(Session), ...errorResponses },
    }),
    async (c) => {
      const session = await sessionOf(c);
      if (session === undefined)
        throw unauthenticated('not signed in: POST /v1/session with a user token or the admin token');
      return c.json(await view(session.principal, session.csrfToken), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/session',
      operationId: 'signOut',
      summary: 'Sign out: end the session and clear its cookie',
      tags,
      security: sessionCookie,
      responses: { 204: { description: 'Signed out' }, ...errorResponses },
    }),
    async (c) => {
      // The CSRF check ran when the session was resolved: a page elsewhere cannot sign anyone out.
      await sessionOf(c);
      const cookie = getCookie(c, SESSION_COOKIE);
      if (cookie !== undefined) await closeSession(ctx, cookie);
      deleteCookie(c, SESSION_COOKIE, { path: '/' });
      return c.body(null, 204);
    },
  );
  return app;
}
