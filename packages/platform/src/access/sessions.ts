/**
 * Dashboard sessions. A person signs in with a user token, the admin token or a one-time sign-in
 * code and gets a session: its secret travels only in an HttpOnly cookie (never in a URL), and the
 * database keeps only the secret's SHA-256. A session stands for the credential it was opened with,
 * so revoking that user token, or changing the admin token, ends it at once on every node. Every
 * request that changes something must also carry the session's CSRF token (`X-CSRF-Token`).
 */
import { randomBytes } from 'node:crypto';
import { conflict, invalid, notFound, unauthenticated } from '../errors/domain-error.js';
import * as sessions from '../storage/repositories/sessions.js';
import * as users from '../storage/repositories/users.js';
import type { Principal, ServiceContext } from '../types.js';
import { type Credentials, credentialsOf, principalOf } from './auth.js';
import { hashToken, sameHash } from './tokens.js';

export const SESSION_COOKIE = 'portico_session';
/** How long a session lasts from sign-in (then the person signs in again). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** How long a sign-in code printed by `portico serve` can be used (once). */
export const SIGN_IN_CODE_TTL_MS = 15 * 60 * 1000;

export interface OpenedSession {
  /** The cookie's value. */
  secret: string;
  csrfToken: string;
  principal: Principal;
  expiresAt: number;
}

export interface SessionCredentials {
  credentials: Credentials;
  csrfToken: string;
}

const secret = () => randomBytes(32).toString('base64url');

/** Opens a session for `token` (a user token or the admin token) or a one-time sign-in `code`. */
export async function openSession(
  ctx: ServiceContext,
  adminToken: string,
  input: { token?: string | undefined; code?: string | undefined },
): Promise<OpenedSession> {
  if ((input.token === undefined) === (input.code === undefined)) {
    throw invalid(
      'invalid_request',
      'send either `token` (a user token or the admin token) or `code` (a one-time sign-in code), not both',
    );
  }
  const now = ctx.now();
  let kind: 'admin' | 'user';
  let tokenHash: string;
  let principal: Principal;
  if (input.token !== undefined) {
    const credentials = credentialsOf(adminToken, `Bearer ${input.token}`);
    if (credentials.kind === 'installation') {
      throw invalid(
        'installation_token',
        'an installation token belongs to an integration: sign in with your user token or the admin token',
      );
    }
    principal = await principalOf(ctx, credentials);
    kind = credentials.kind;
    tokenHash = credentials.kind === 'admin' ? hashToken(adminToken) : credentials.tokenHash;
  } else if (input.code?.startsWith(USER_CODE_PREFIX)) {
    // A sign-in link for a user: the code carries (sealed) the user and the token the session stands for.
    const user = userOfCode(ctx, input.code);
    if (user === undefined) throw unauthenticated(USED_OR_EXPIRED);
    principal = await principalOf(ctx, { kind: 'user', tokenHash: user.tokenHash });
    kind = 'user';
    tokenHash = user.tokenHash;
  } else {
    principal = { kind: 'admin' };
    kind = 'admin';
    tokenHash = hashToken(adminToken);
  }
  const opened: OpenedSession = { secret: secret(), csrfToken: secret(), principal, expiresAt: now + SESSION_TTL_MS };
  // One write: a code is used up only by the session it opens.
  await ctx.write(async (trx) => {
    if (input.code !== undefined) {
      if (!(await sessions.useCode(trx, hashToken(input.code), now))) throw unauthenticated(USED_OR_EXPIRED);
    }
    await sessions.insertSession(
      trx,
      {
        id_hash: hashToken(opened.secret),
        kind,
        token_hash: tokenHash,
        csrf_token: opened.csrfToken,
        created_at: now,
        expires_at: opened.expiresAt,
      },
      now,
    );
  });
  return opened;
}

/**
 * The credentials a session cookie stands for and its CSRF token; undefined when the session has
 * ended (signed out, expired, or opened with an admin token that is no longer the one in force).
 */
export async function sessionOf(
  ctx: ServiceContext,
  adminToken: string,
  cookie: string,
): Promise<SessionCredentials | undefined> {
  const row = await sessions.sessionByHash.first(ctx.db, hashToken(cookie), ctx.now());
  if (row === undefined) return undefined;
  if (row.kind === 'admin') {
    if (!sameHash(row.token_hash, hashToken(adminToken))) return undefined;
    return { credentials: { kind: 'admin' }, csrfToken: row.csrf_token };
  }
  return { credentials: { kind: 'user', tokenHash: row.token_hash }, csrfToken: row.csrf_token };
}

/** Who a session stands for, as the dashboard names them: the operator, or a user with their name. */
export async function signedIn(
  ctx: ServiceContext,
  principal: Principal,
): Promise<{ kind: 'admin' } | { kind: 'user'; userId: string; name?: string }> {
  if (principal.kind !== 'user') return { kind: 'admin' };
  const user = await users.userName(ctx.db, principal.userId);
  return { kind: 'user', userId: principal.userId, ...(user ? { name: user.name } : {}) };
}

/** Ends a session (signing out); ending one that has ended already is not an error. */
export async function closeSession(ctx: ServiceContext, cookie: string): Promise<void> {
  await ctx.write((trx) => sessions.deleteSession(trx, hashToken(cookie)));
}

const USED_OR_EXPIRED =
  'the sign-in code is not valid: each code works once, for 15 minutes; ask for a new sign-in link, or sign in with a token';

/** Codes of users' sign-in links start with this; the operator's codes (printed at start) never do. */
const USER_CODE_PREFIX = 'u.';

/** The user and token a sign-in link's code was made for, or undefined when it was not made here. */
function userOfCode(ctx: ServiceContext, code: string): { userId: string; tokenHash: string } | undefined {
  try {
    const parsed = JSON.parse(ctx.box.open(code.slice(USER_CODE_PREFIX.length))) as Record<string, unknown>;
    if (typeof parsed.user !== 'string' || typeof parsed.token !== 'string') return undefined;
    return { userId: parsed.user, tokenHash: parsed.token };
  } catch {
    return undefined;
  }
}

/**
 * Where a sign-in link may lead: a path of the dashboard (`/installations/inst_…`, `/spaces/docs`),
 * never another site nor the API. Answers the problem, or undefined when `path` is fine.
 */
export function signInPathProblem(path: string): string | undefined {
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\'))
    return '`path` must be a path of the dashboard starting with one /, such as /installations/inst_… or /spaces/docs';
  if (/^\/v1(\/|$|\?)/.test(path) || path === '/healthz') return '`path` must be a dashboard page, not an API route';
  if (/[\s#]/.test(path) || path.length > 2000)
    return '`path` must not hold spaces or a # (the link adds its own fragment), and at most 2,000 characters';
  return undefined;
}

/**
 * A one-time link that signs `userId` in to the dashboard (at `path`, else the overview), valid for
 * `SIGN_IN_CODE_TTL_MS`. The session it opens stands for the user's current token: revoking that
 * token ends it. The code travels in the fragment, so it stays out of server logs.
 */
export async function createSignInLink(
  ctx: ServiceContext,
  userId: string,
  path = '/',
): Promise<{ url: string; expiresAt: string }> {
  const problem = signInPathProblem(path);
  if (problem !== undefined) throw invalid('invalid_path', problem);
  const user = await users.userById(ctx.db, userId);
  if (user === undefined) throw notFound(`the user ${userId}`);
  const token = await users.newestToken(ctx.db, userId);
  if (token === undefined) {
    throw conflict(`the user ${userId} has no token in force: a sign-in link signs in as the user's token`);
  }
  const code = `${USER_CODE_PREFIX}${ctx.box.seal(JSON.stringify({ user: userId, token: token.token_hash }))}`;
  const now = ctx.now();
  const expiresAt = now + SIGN_IN_CODE_TTL_MS;
  await ctx.write((trx) =>
    sessions.insertSignInCode(trx, {
      code_hash: hashToken(code),
      created_at: now,
      expires_at: expiresAt,
      used_at: null,
    }),
  );
  return { url: `${ctx.publicUrl}${path}#code=${code}`, expiresAt: new Date(expiresAt).toISOString() };
}

/** A one-time code that opens an operator session, valid for `SIGN_IN_CODE_TTL_MS`. */
export async function createSignInCode(ctx: ServiceContext): Promise<string> {
  const code = secret();
  const now = ctx.now();
  await ctx.write((trx) =>
    sessions.insertSignInCode(trx, {
      code_hash: hashToken(code),
      created_at: now,
      expires_at: now + SIGN_IN_CODE_TTL_MS,
      used_at: null,
    }),
  );
  return code;
}
