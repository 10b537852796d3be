/**
 * Routing (DESIGN.md "Routing and selection"): a space or site event goes once per integration, to
 * its installation in that place, when that installation is active (and its organization
 * installation is not paused), its scopes allow the event, its organization granted that scope
 * (DESIGN.md "Granted scopes") and its integration handles it. This
 * decides the outbox rows of some events, read-only; the dispatcher has them written in the
 * transaction that stores the events (or marks them routed). An installation that would receive
 * the event but is paused (or below a paused organization installation) gets a row written
 * settled, `skipped: paused`, with its dispatch-log line (`outbox.insertRouted`): the event is not
 * kept for it, but its Events log and the event's trace say what it missed.
 *
 * A webhook installation's subscriptions are fanned out here (fan-out.ts): one delivery per
 * subscription that selected the event's type, written with the event, instead of an outbox row.
 * Paused, such an installation's missed event is recorded as any other's.
 */

import { type IntegrationRegistry, REQUIRED_SCOPE } from '../dispatch/integration-registry.js';
import { grantOf } from '../installations/granted-scopes.js';
import { keptRead, type Timed } from '../storage/kept-reads.js';
import type { NewOutboxRow } from '../storage/repositories/outbox.js';
import { SKIPPED_PAUSED } from '../storage/repositories/outbox.js';
import { RECEIVER_TABLES, receiversIn } from '../storage/repositories/receivers.js';
import type { RoutableEvent, ServiceContext } from '../types.js';
import { deliveryFor, type FannedOut, type Subscription } from './fan-out.js';

export const SITE_EVENTS = new Set(['site_view', 'page_feedback']);

type ReceiverRow = Awaited<ReturnType<typeof receiversIn.all>>[number];

/** An installation in a place, as routing sees it: whether it is paused or owed a setup event, and its subscriptions. */
interface Receiver {
  id: string;
  integration_name: string;
  latest_version: number;
  /** The scopes its organization granted: an event needing another is not its, whatever its version asks for. */
  granted: ReadonlySet<string>;
  paused: boolean;
  setupOwed: boolean;
  subscriptions: Subscription[];
}

/**
 * The read's rows (one per installation, subscription and secret) as one receiver per
 * installation, until the first of their secrets expires.
 */
function receiversOf(rows: ReceiverRow[]): Timed<Receiver[]> {
  const receivers: Receiver[] = [];
  let until = Number.POSITIVE_INFINITY;
  let receiver: Receiver | undefined;
  let subscription: Subscription | undefined;
  for (const row of rows) {
    if (receiver?.id !== row.id) {
      receiver = {
        id: row.id,
        integration_name: row.integration_name,
        latest_version: row.latest_version,
        granted: new Set(grantOf(row.granted_scopes)),
        paused: Number(row.paused) === 1,
        setupOwed: Boolean(Number(row.setup_owed)),
        subscriptions: [],
      };
      receivers.push(receiver);
      subscription = undefined;
    }
    if (row.subscription_id === null) continue;
    if (subscription?.id !== row.subscription_id) {
      subscription = {
        id: row.subscription_id,
        installationId: row.id,
        url: row.url as string,
        destination: row.destination as string,
        eventTypes: JSON.parse(row.event_types as string) as string[],
        headers: row.headers,
        policy: row.policy,
        disabledReason: row.disabled_at === null ? null : (row.disabled_reason ?? 'the endpoint is disabled'),
        sealedSecrets: [],
      };
      receiver.subscriptions.push(subscription);
    }
    if (row.secret !== null) subscription.sealedSecrets.push(row.secret);
    if (row.secret_expires_at !== null) until = Math.min(until, Number(row.secret_expires_at));
  }
  return { value: receivers, until };
}

/**
 * The receivers in a place, read again only once what they come from has changed (SQLite: every
 * write of this node is seen, storage/kept-reads.ts; PostgreSQL reads each time, as other nodes
 * write): the routing read was about 8 % of a webhook event's work there (decision 059). The objects
 * are shared by every event routed meanwhile: nothing changes them.
 */
const keptReceivers = keptRead<Receiver[]>(RECEIVER_TABLES);
const receiversInPlace = (ctx: ServiceContext, kind: 'space' | 'site', placeId: string, now: number) =>
  keptReceivers(ctx.db, `${kind}:${placeId}`, now, async () =>
    receiversOf(await receiversIn.all(ctx.db, kind, placeId, now)),
  );

/**
 * The rows each event is owed (one per installation that receives it), in the events' order, the
 * deliveries of the subscriptions that selected it, and the installations among them owed a setup
 * event, as the routing read found them.
 */
export async function owedRows(
  ctx: ServiceContext,
  registry: IntegrationRegistry,
  events: RoutableEvent[],
  now: number,
): Promise<{ owed: { eventId: string; rows: NewOutboxRow[] }[]; deliveries: FannedOut[]; setupOwed: Set<string> }> {
  const setupOwed = new Set<string>();
  const places = new Map<string, Promise<Receiver[]>>();
  const owed: { eventId: string; rows: NewOutboxRow[] }[] = [];
  const deliveries: FannedOut[] = [];
  const seen = new Set<string>();
  for (const event of events) {
    // (An event given twice is stored once, as first given.)
    if (seen.has(event.event_id)) continue;
    seen.add(event.event_id);
    const payload = JSON.parse(event.payload) as Record<string, unknown>;
    const kind = SITE_EVENTS.has(event.type) ? 'site' : 'space';
    const placeId = String(kind === 'site' ? payload.siteId : payload.spaceId);
    let installed = places.get(`${kind}:${placeId}`);
    if (installed === undefined) {
      installed = receiversInPlace(ctx, kind, placeId, now);
      places.set(`${kind}:${placeId}`, installed);
    }
    const rows: NewOutboxRow[] = [];
    for (const installation of await installed) {
      const { paused } = installation;
      if (!paused && installation.setupOwed) setupOwed.add(installation.id);
      // A webhook installation's subscriptions are its organization's own choice (decision 054);
      // an integration's events are capped by what its organization granted.
      const scope = REQUIRED_SCOPE[event.type];
      const granted = scope === undefined || installation.granted.has(scope);
      const subscribed = installation.subscriptions.filter((s) => s.eventTypes.includes(event.type));
      if (subscribed.length > 0 && !paused) {
        for (const subscription of subscribed) {
          deliveries.push({
            row: deliveryFor(event, payload, subscription, now, ctx.defaultDeliveryPolicy),
            sealedSecrets: subscription.sealedSecrets,
          });
        }
        continue;
      }
      if (!granted) continue;
      if (
        subscribed.length === 0 &&
        !(await registry.receives(installation.integration_name, installation.latest_version, event.type))
      )
        continue;
      rows.push({
        installation_id: installation.id,
        integration_name: installation.integration_name,
        event_id: event.event_id,
        event_type: event.type,
        event: JSON.stringify({ ...payload, installationId: installation.id }),
        created_at: now,
        // Paused: the event is not kept, only recorded as missed (written settled, never dispatched).
        dispatched_at: paused ? now : null,
        claimed_until: null,
        outcome: paused ? SKIPPED_PAUSED : null,
      });
    }
    owed.push({ eventId: event.event_id, rows });
  }
  return { owed, deliveries, setupOwed };
}
