/**
 * Who is calling: a request's bearer token, else its session cookie (access/sessions.ts), whose
 * CSRF token is checked when the request changes something. Resolved only when a route asks, after
 * its request was validated, so routes that need no caller (signing in, /healthz) never look.
 */
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { type Credentials, credentialsOf, principalOf } from '../../access/auth.js';
import { SESSION_COOKIE, type SessionCredentials, sessionOf } from '../../access/sessions.js';
import { unauthenticated } from '../../errors/domain-error.js';
import type { Principal, ServiceContext } from '../../types.js';
import { checkCsrf } from './csrf.js';

export interface Caller {
  /** The request's session cookie, resolved (undefined without one, or once it ended), its CSRF token checked. */
  session(c: Context): Promise<SessionCredentials | undefined>;
  /**
   * The request's credentials. Routes that look the token up in the query that reads what they
   * answer use these; the others use `principal`.
   */
  credentials(c: Context): Promise<Credentials>;
  principal(c: Context): Promise<Principal>;
}

export function callerOf(ctx: ServiceContext, adminToken: string): Caller {
  const session = async (c: Context, cookie = getCookie(c, SESSION_COOKIE)) => {
    if (cookie === undefined) return undefined;
    const found = await sessionOf(ctx, adminToken, cookie);
    if (found !== undefined) checkCsrf(c, found.csrfToken);
    return found;
  };
  const credentials = async (c: Context): Promise<Credentials> => {
    const header = c.req.header('authorization');
    const cookie = header === undefined ? getCookie(c, SESSION_COOKIE) : undefined;
    if (cookie === undefined) return credentialsOf(adminToken, header);
    const found = await session(c, cookie);
    if (found === undefined) {
      throw unauthenticated('the session has ended (signed out, expired, or its token was revoked): sign in again');
    }
    return found.credentials;
  };
  return {
    session: (c) => session(c),
    credentials,
    principal: async (c) => principalOf(ctx, await credentials(c)),
  };
}
