/**
 * What became of one platform event, for `portico emit --wait` and anyone who asks: whether it
 * was routed, which installations it is owed to and how each dispatch ended (the outbox rows),
 * every dispatch recorded for it, and the webhook deliveries it caused. Read from the tables, so
 * it is right whichever node did the work; it only reads.
 */

import { requireAdmin } from '../access/auth.js';
import { type DeliveryView, withAttempts } from '../delivery/deliveries.js';
import { type DispatchView, dispatchView } from '../dispatch/dispatch-log.js';
import { notFound } from '../errors/domain-error.js';
import { authorizedInstallation } from '../installations/load.js';
import { deliveriesOfEvent, deliveryById } from '../storage/repositories/deliveries.js';
import { dispatchesOfEvent } from '../storage/repositories/dispatches.js';
import { eventById } from '../storage/repositories/events.js';
import { everInstalledIn } from '../storage/repositories/installations.js';
import { owedForEvent } from '../storage/repositories/outbox.js';
import type { Principal, ServiceContext } from '../types.js';
import { SITE_EVENTS } from './routing.js';

export interface EventTrace {
  eventId: string;
  type: string;
  receivedAt: string;
  /** When the router decided who it is owed to; null while it has not yet. */
  routedAt: string | null;
  /** One per installation it is owed to. */
  installations: {
    installationId: string;
    /** `delivered`, `not_handled`, `skipped: …`, `failed…`: final; `retrying: …`, `waiting: …` or null: not yet. */
    outcome: string | null;
    dispatchedAt: string | null;
  }[];
  dispatches: (DispatchView & { installationId: string })[];
  deliveries: (DeliveryView & { installationId: string })[];
}

/** Most dispatches and deliveries answered (a retried dispatch is one per attempt). */
const MOST = 200;

export async function traceEvent(ctx: ServiceContext, principal: Principal, eventId: string): Promise<EventTrace> {
  requireAdmin(principal);
  const event = await eventById(ctx.db, eventId);
  if (!event) throw notFound(`the event ${eventId} (or it is older than the retention period)`);
  const owed = await owedForEvent(ctx.db, eventId);
  const ids = owed.map((row) => row.installation_id);
  const dispatches = ids.length === 0 ? [] : await dispatchesOfEvent(ctx.db, ids, eventId, event.received_at, MOST);
  // Deliveries fanned out to subscriptions have no outbox row: look in the event's place.
  const payload = JSON.parse(event.payload) as Record<string, unknown>;
  const site = SITE_EVENTS.has(event.type);
  const place = site ? payload.siteId : payload.spaceId;
  const inPlace = typeof place === 'string' ? await everInstalledIn(ctx.db, site ? 'site' : 'space', place) : [];
  const receivers = [...new Set([...ids, ...inPlace])];
  const deliveries = receivers.length === 0 ? [] : await deliveriesOfEvent(ctx.db, receivers, eventId, MOST);
  const views = await withAttempts(ctx.db, deliveries);
  return {
    eventId: event.event_id,
    type: event.type,
    receivedAt: new Date(event.received_at).toISOString(),
    routedAt: event.routed_at === null ? null : new Date(event.routed_at).toISOString(),
    installations: owed.map((row) => ({
      installationId: row.installation_id,
      outcome: row.outcome,
      dispatchedAt: row.dispatched_at === null ? null : new Date(row.dispatched_at).toISOString(),
    })),
    dispatches: dispatches.map((row) => ({ installationId: row.installation_id, ...dispatchView(row) })),
    deliveries: views.map((view, index) => ({
      installationId: (deliveries[index] as { installation_id: string }).installation_id,
      ...view,
    })),
  };
}

/** One delivery with its attempts, for whoever may see its installation. */
export async function getDelivery(
  ctx: ServiceContext,
  principal: Principal,
  deliveryId: string,
): Promise<DeliveryView & { installationId: string }> {
  const row = await deliveryById(ctx.db, deliveryId);
  if (!row) throw notFound(`the delivery ${deliveryId}`);
  await authorizedInstallation(ctx, principal, row.installation_id);
  const [view] = await withAttempts(ctx.db, [row]);
  return { installationId: row.installation_id, ...(view as DeliveryView) };
}
