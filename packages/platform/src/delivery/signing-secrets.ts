/** Signing secrets of installations: 32 random bytes each; after a rotation the old one signs for 24 h more. */
import { randomBytes } from 'node:crypto';
import { prepared } from '../storage/prepared.js';
import type { ServiceContext } from '../types.js';

export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

// Read before every attempt: built once (storage/prepared.ts), never cached as an answer, so a
// rotation on any node signs with the new secret at once.
const secretsOf = prepared((db, installationId: string, now: number) =>
  db
    .selectFrom('signing_secrets')
    .select(['secret'])
    .where('installation_id', '=', installationId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id', 'desc'),
);

/** The installation's valid secrets, newest first; the first is created on first use. */
export async function validSecrets(ctx: ServiceContext, installationId: string): Promise<string[]> {
  const now = ctx.now();
  const rows = await secretsOf.all(ctx.db, installationId, now);
  if (rows.length > 0) return rows.map((r) => ctx.box.open(r.secret));
  const secret = newSecret();
  await ctx.db.transaction().execute(async (trx) => {
    // Another request may have created it meanwhile: keep the first.
    const existing = await trx
      .selectFrom('signing_secrets')
      .select('id')
      .where('installation_id', '=', installationId)
      .executeTakeFirst();
    if (!existing) {
      await trx
        .insertInto('signing_secrets')
        .values({ installation_id: installationId, secret: ctx.box.seal(secret), created_at: now, expires_at: null })
        .execute();
    }
  });
  return validSecrets(ctx, installationId);
}

/** Makes a new secret current; the ones before it keep signing for 24 h. Answers the new secret. */
export async function rotateSecret(ctx: ServiceContext, installationId: string): Promise<string> {
  await validSecrets(ctx, installationId);
  const secret = newSecret();
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('signing_secrets')
      .set({ expires_at: now + ROTATION_OVERLAP_MS })
      .where('installation_id', '=', installationId)
      .where('expires_at', 'is', null)
      .execute();
    await trx
      .insertInto('signing_secrets')
      .values({ installation_id: installationId, secret: ctx.box.seal(secret), created_at: now, expires_at: null })
      .execute();
  });
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
  const rows = await ctx.db
    .selectFrom('signing_secrets')
    .select(['secret', 'expires_at'])
    .where('installation_id', '=', installationId)
    .where('expires_at', '>', ctx.now())
    .orderBy('id', 'desc')
    .execute();
  return {
    secret: current as string,
    previous: rows.map((row) => ({
      secret: ctx.box.open(row.secret),
      expiresAt: new Date(Number(row.expires_at)).toISOString(),
    })),
  };
}
