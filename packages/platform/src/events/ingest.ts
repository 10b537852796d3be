/**
 * Platform events in: persisted (idempotent on eventId) and acknowledged once committed. While a
 * dispatcher runs on this node they are routed as they are stored, on both back ends: their outbox
 * rows, and the deliveries of the webhook subscriptions that selected them, are written in the same write (storage/repositories/events.ts); otherwise they are stored
 * unrouted, and a dispatcher routes them later.
 */
import { randomBytes } from 'node:crypto';
import { DomainError, notFound } from '../errors/domain-error.js';
import { oneStatement, type Stored, storeEvents } from '../storage/repositories/events.js';
import { placeExists } from '../storage/repositories/organizations.js';
import type { Database } from '../storage/schema.js';
import type { ServiceContext } from '../types.js';
import { SITE_EVENTS } from './routing.js';

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
  const place = await placeExists(ctx.db, kind, id);
  if (!place) throw notFound(`the ${kind} ${id}`);
  if (known.size >= MAX_KNOWN_PLACES) known.clear();
  known.add(key);
}

export interface Accepted {
  eventId: string;
  duplicate: boolean;
}

export async function ingestEvent(ctx: ServiceContext, input: IncomingEvent): Promise<Accepted> {
  const [result] = await ingestEvents(ctx, [input]);
  if (result === undefined || 'error' in result) throw (result as { error: DomainError }).error;
  return result;
}

/**
 * Persists events in one write (each idempotent on its eventId: one seen before, or earlier in
 * the same batch, is a duplicate), acknowledged once committed; answers one result per input, in
 * order. An input that is already an DomainError (refused by the caller's validation), or an event
 * whose place does not exist, gets its error and changes nothing; the others are accepted.
 */
export async function ingestEvents(
  ctx: ServiceContext,
  inputs: (IncomingEvent | DomainError)[],
): Promise<(Accepted | { error: DomainError })[]> {
  const rows: Database['events'][] = [];
  /** Per input: its refusal, or the index of its row. */
  const slots: ({ error: DomainError } | number)[] = [];
  const now = ctx.now();
  const traced = ctx.tracing?.ingest();
  for (const input of inputs) {
    if (input instanceof DomainError) {
      slots.push({ error: input });
      continue;
    }
    const site = SITE_EVENTS.has(input.type);
    try {
      await requirePlace(ctx, site ? 'site' : 'space', String(site ? input.siteId : input.spaceId));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      slots.push({ error });
      continue;
    }
    const eventId = input.eventId ?? `evt_${randomBytes(12).toString('hex')}`;
    slots.push(
      rows.push({
        event_id: eventId,
        type: input.type,
        payload: JSON.stringify({ ...input, eventId }),
        received_at: now,
        routed_at: null,
      }) - 1,
    );
  }
  let inserted = new Set<string>();
  if (rows.length > 0) {
    // (Should deciding the routing fail, the events are stored unrouted: the dispatcher's loop
    // routes them, and logs what fails.)
    traced?.routing();
    const routing = await ctx.routeOnIngest(rows, now).catch(() => undefined);
    traced?.routed();
    for (const row of rows) row.routed_at = routing ? now : null;
    const owed = routing?.rows ?? [];
    const deliveries = routing?.deliveries ?? [];
    let stored: Stored;
    try {
      stored = await ctx.write((trx) => storeEvents(trx, ctx.dialect, rows, owed, deliveries), {
        standalone: oneStatement(ctx.dialect, rows.length, owed.length + deliveries.length),
      });
    } catch (error) {
      routing?.failed();
      throw error;
    }
    routing?.committed(stored.owed, stored.events);
    inserted = stored.events;
    ctx.metrics?.eventsStored(rows, inserted, now);
    ctx.metrics?.settledAtRouting(owed, inserted);
    traced?.stored(rows, inserted, routing && [...routing.rows, ...routing.deliveries]);
    if (routing === undefined && inserted.size > 0) ctx.wake('events');
  }
  const answered = new Set<string>();
  return slots.map((slot) => {
    if (typeof slot !== 'number') return slot;
    const eventId = (rows[slot] as Database['events']).event_id;
    const duplicate = !inserted.has(eventId) || answered.has(eventId);
    answered.add(eventId);
    return { eventId, duplicate };
  });
}
