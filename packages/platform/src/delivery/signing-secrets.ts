/**
 * Signing secrets of installations: 32 random bytes each, shown as `whsec_<standard base64>`, the
 * form both schemes read (decision 032); after a rotation the old one signs for 24 h more.
 */
import { randomBytes } from 'node:crypto';
import { managedInstallation } from '../installations/load.js';
import * as signingSecrets from '../storage/repositories/signing-secrets.js';
import type { Principal, ServiceContext } from '../types.js';

export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const PREFIX = 'whsec_';

/**
 * How a stored secret is shown: as it is, or, for a secret made before decision 032 (base64url
 * text, which the standardwebhooks package cannot read), the standard base64 of the same key bytes.
 */
export function shownSecret(stored: string): string {
  const text = stored.slice(PREFIX.length);
  if (!stored.startsWith(PREFIX) || !/^[A-Za-z0-9_-]{43}$/.test(text)) return stored;
  return `${PREFIX}${Buffer.from(text, 'base64url').toString('base64')}`;
}

/** The installation's valid secrets, newest first; the first is created on first use. */
export async function validSecrets(ctx: ServiceContext, installationId: string): Promise<string[]> {
  const now = ctx.now();
  const rows = await signingSecrets.secretsOf.all(ctx.db, installationId, now);
  if (rows.length > 0) return rows.map((r) => ctx.box.open(r.secret));
  const secret = newSecret();
  await signingSecrets.addFirstSecret(ctx.db, {
    installation_id: installationId,
    secret: ctx.box.seal(secret),
    created_at: now,
    expires_at: null,
  });
  return validSecrets(ctx, installationId);
}

/** Makes a new secret current; the ones before it keep signing for 24 h. Answers the new secret. */
export async function rotateSecret(ctx: ServiceContext, installationId: string): Promise<string> {
  await validSecrets(ctx, installationId);
  const secret = newSecret();
  const now = ctx.now();
  await signingSecrets.replaceSecret(
    ctx.db,
    { installation_id: installationId, secret: ctx.box.seal(secret), created_at: now, expires_at: null },
    now + ROTATION_OVERLAP_MS,
  );
  return secret;
}

/**
 * What a person sees of the installation's secrets: the current one and those still signing after
 * a rotation, each with the time it stops (newest first).
 */
export async function secretsView(
  ctx: ServiceContext,
  installationId: string,
): Promise<{ secret: string; previous: { secret: string; expiresAt: string }[] }> {
  const [current] = await validSecrets(ctx, installationId);
  const rows = await signingSecrets.expiringSecrets(ctx.db, installationId, ctx.now());
  return {
    secret: shownSecret(current as string),
    previous: rows.map((row) => ({
      secret: shownSecret(ctx.box.open(row.secret)),
      expiresAt: new Date(Number(row.expires_at)).toISOString(),
    })),
  };
}

/**
 * Reveals the installation's signing secrets to whoever may manage it (the contract's Roles: an
 * admin of its organization, the operator, or its own token); a member is refused with 403, since
 * the secret lets whoever holds it sign as Portico.
 */
export async function revealSecrets(ctx: ServiceContext, principal: Principal, installationId: string) {
  await managedInstallation(ctx, principal, installationId, 'revealing the signing secret');
  return secretsView(ctx, installationId);
}

/** Rotates the installation's signing secret for whoever may manage it, and answers what `revealSecrets` does. */
export async function rotateSecretOf(ctx: ServiceContext, principal: Principal, installationId: string) {
  await managedInstallation(ctx, principal, installationId, 'rotating the signing secret');
  await rotateSecret(ctx, installationId);
  return secretsView(ctx, installationId);
}
