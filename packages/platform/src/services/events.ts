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

export async function ingestEvent(
  ctx: ServiceContext,
  input: IncomingEvent,
): Promise<{ eventId: string; duplicate: boolean }> {
  const site = SITE_EVENTS.has(input.type);
  const placeId = site ? input.siteId : input.spaceId;
  const place = await ctx.db
    .selectFrom(site ? 'sites' : 'spaces')
    .select('id')
    .where('id', '=', String(placeId))
    .executeTakeFirst();
  if (!place) throw notFound(`the ${site ? 'site' : 'space'} ${placeId}`);
  const eventId = input.eventId ?? `evt_${randomBytes(12).toString('hex')}`;
  const payload = { ...input, eventId };
  const inserted = await ctx.db
    .insertInto('events')
    .values({
      event_id: eventId,
      type: input.type,
      payload: JSON.stringify(payload),
      received_at: ctx.now(),
      routed_at: null,
    })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .executeTakeFirst();
  const duplicate = Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0;
  if (!duplicate) ctx.wake();
  return { eventId, duplicate };
}
