/** Platform events in: persisted first (idempotent on eventId), acknowledged, routed afterwards. */
import { randomBytes } from 'node:crypto';
import { notFound } from '../errors.js';
import type { ServiceContext } from './context.js';
import { SITE_EVENTS } from './dispatcher.js';

export interface IncomingEvent {
  type: string;
  eventId?: string | undefined;
  spaceId?: string;
  siteId?: string;
  [field: string]: unknown;
}

/** Places seen to exist, per database: spaces and sites are never deleted, so this is true on every node. */
const knownPlaces = new WeakMap<ServiceContext['db'], Set<string>>();
const MAX_KNOWN_PLACES = 100_000;

async function requirePlace(ctx: ServiceContext, kind: 'space' | 'site', id: string): Promise<void> {
  let known = knownPlaces.get(ctx.db);
  if (known === undefined) {
    known = new Set();
    knownPlaces.set(ctx.db, known);
  }
  const key = `${kind}:${id}`;
  if (known.has(key)) return;
  const place = await ctx.db
    .selectFrom(kind === 'site' ? 'sites' : 'spaces')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  if (!place) throw notFound(`the ${kind} ${id}`);
  if (known.size >= MAX_KNOWN_PLACES) known.clear();
  known.add(key);
}

export async function ingestEvent(
  ctx: ServiceContext,
  input: IncomingEvent,
): Promise<{ eventId: string; duplicate: boolean }> {
  const site = SITE_EVENTS.has(input.type);
  await requirePlace(ctx, site ? 'site' : 'space', String(site ? input.siteId : input.spaceId));
  const eventId = input.eventId ?? `evt_${randomBytes(12).toString('hex')}`;
  const payload = { ...input, eventId };
  const inserted = await ctx.write((trx) =>
    trx
      .insertInto('events')
      .values({
        event_id: eventId,
        type: input.type,
        payload: JSON.stringify(payload),
        received_at: ctx.now(),
        routed_at: null,
      })
      .onConflict((oc) => oc.column('event_id').doNothing())
      .executeTakeFirst(),
  );
  const duplicate = Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0;
  if (!duplicate) ctx.wake();
  return { eventId, duplicate };
}
