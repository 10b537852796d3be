/**
 * The CSRF check of cookie sessions: a request that changes something (not GET, HEAD or OPTIONS)
 * must carry the session's CSRF token in X-CSRF-Token. Bearer tokens need none: a page elsewhere
 * cannot make a browser send one.
 */
import type { Context } from 'hono';
import { sameSecret } from '../../access/tokens.js';
import { DomainError } from '../../errors/domain-error.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Throws 403 csrf_refused when `c` changes something without the session's `csrfToken`. */
export function checkCsrf(c: Context, csrfToken: string): void {
  if (SAFE_METHODS.has(c.req.method) || sameSecret(c.req.header('x-csrf-token'), csrfToken)) return;
  throw new DomainError(
    'forbidden',
    'csrf_refused',
    'a request that changes something must carry the session’s CSRF token in X-CSRF-Token (GET /v1/session answers it)',
  );
}
