/**
 * Dashboard sessions. A person signs in with a user token, the admin token or a one-time sign-in
 * code and gets a session: its secret travels only in an HttpOnly cookie (never in a URL), and the
 * database keeps only the secret's SHA-256. A session stands for the credential it was opened with,
 * so revoking that user token, or changing the admin token, ends it at once on every node. Every
 * request that changes something must also carry the session's CSRF token (`X-CSRF-Token`).
 */
import { randomBytes } from 'node:crypto';
import { badRequest, unauthorized } from '../errors.js';
import { prepared } from '../storage/prepared.js';
import { type Credentials, credentialsOf, principalOf } from './auth.js';
import type { Principal, ServiceContext } from './context.js';
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

const sessionByHash = prepared((db, idHash: string, now: number) =>
  db
    .selectFrom('sessions')
    .select(['kind', 'token_hash', 'csrf_token'])
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now),
);

const secret = () => randomBytes(32).toString('base64url');

/** Opens a session for `token` (a user token or the admin token) or a one-time sign-in `code`. */
export async function openSession(
  ctx: ServiceContext,
  adminToken: string,
  input: { token?: string | undefined; code?: string | undefined },
): Promise<OpenedSession> {
  if ((input.token === undefined) === (input.code === undefined)) {
    throw badRequest(
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
      throw badRequest(
        'installation_token',
        'an installation token belongs to an integration: sign in with your user token or the admin token',
      );
    }
    principal = await principalOf(ctx, credentials);
    kind = credentials.kind;
    tokenHash = credentials.kind === 'admin' ? hashToken(adminToken) : credentials.tokenHash;
  } else {
    principal = { kind: 'admin' };
    kind = 'admin';
    tokenHash = hashToken(adminToken);
  }
  const opened: OpenedSession = { secret: secret(), csrfToken: secret(), principal, expiresAt: now + SESSION_TTL_MS };
  // One write: a code is used up only by the session it opens.
  await ctx.write(async (trx) => {
    if (input.code !== undefined) {
      const used = await trx
        .updateTable('sign_in_codes')
        .set({ used_at: now })
        .where('code_hash', '=', hashToken(input.code))
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) === 0) {
        throw unauthorized(
          'the sign-in code is not valid: each code works once, for 15 minutes; sign in with the admin token instead',
        );
      }
    }
    await trx.deleteFrom('sessions').where('expires_at', '<=', now).execute();
    await trx
      .insertInto('sessions')
      .values({
        id_hash: hashToken(opened.secret),
        kind,
        token_hash: tokenHash,
        csrf_token: opened.csrfToken,
        created_at: now,
        expires_at: opened.expiresAt,
      })
      .execute();
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
  const row = await sessionByHash.first(ctx.db, hashToken(cookie), ctx.now());
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
  const user = await ctx.db.selectFrom('users').select('name').where('id', '=', principal.userId).executeTakeFirst();
  return { kind: 'user', userId: principal.userId, ...(user ? { name: user.name } : {}) };
}

/** Ends a session (signing out); ending one that has ended already is not an error. */
export async function closeSession(ctx: ServiceContext, cookie: string): Promise<void> {
  await ctx.write((trx) => trx.deleteFrom('sessions').where('id_hash', '=', hashToken(cookie)).execute());
}

/** A one-time code that opens an operator session, valid for `SIGN_IN_CODE_TTL_MS`. */
export async function createSignInCode(ctx: ServiceContext): Promise<string> {
  const code = secret();
  const now = ctx.now();
  await ctx.write((trx) =>
    trx
      .insertInto('sign_in_codes')
      .values({ code_hash: hashToken(code), created_at: now, expires_at: now + SIGN_IN_CODE_TTL_MS, used_at: null })
      .execute(),
  );
  return code;
}
