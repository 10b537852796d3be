/** API tokens: random, prefixed by kind, stored only as SHA-256 hashes for lookup. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type TokenKind = 'admin' | 'user' | 'installation';
const PREFIX: Record<TokenKind, string> = { admin: 'pta_', user: 'ptu_', installation: 'pti_' };

export function newToken(kind: TokenKind): string {
  return `${PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
}

export function tokenKind(token: string): TokenKind | undefined {
  return (Object.keys(PREFIX) as TokenKind[]).find((kind) => token.startsWith(PREFIX[kind]));
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compares two secrets in constant time (through their hashes, so lengths may differ). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** An id with a readable prefix: `inst_3f9c…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}
