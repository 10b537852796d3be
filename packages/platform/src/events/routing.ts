/**
 * Routing (DESIGN.md "Routing and selection"): a space or site event goes once per integration, to
 * its installation in that place, when that installation is active (and its organization
 * installation is not paused), its scopes allow the event and its integration handles it. This
 * decides the outbox rows of some events, read-only; the dispatcher has them written in the
 * transaction that stores the events (or marks them routed). An installation that would receive
 * the event but is paused (or below a paused organization installation) gets a row written
 * settled, `skipped: paused`, with its dispatch-log line (`outbox.insertRouted`): the event is not
 * kept for it, but its Events log and the event's trace say what it missed.
 */

import type { IntegrationRegistry } from '../dispatch/integration-registry.js';
import type { NewOutboxRow } from '../storage/repositories/outbox.js';
import { SKIPPED_PAUSED } from '../storage/repositories/outbox.js';
import { receiversIn } from '../storage/repositories/receivers.js';
import type { RoutableEvent, ServiceContext } from '../types.js';

export const SITE_EVENTS = new Set(['site_view', 'page_feedback']);

/**
 * The rows each event is owed (one per installation that receives it), in the events' order, and
 * the installations among them owed a setup event, as the routing read found them.
 */
export async function owedRows(
  ctx: ServiceContext,
  registry: IntegrationRegistry,
  events: RoutableEvent[],
  now: number,
): Promise<{ owed: { eventId: string; rows: NewOutboxRow[] }[]; setupOwed: Set<string> }> {
  const setupOwed = new Set<string>();
  const places = new Map<string, ReturnType<typeof receiversIn.all>>();
  const owed: { eventId: string; rows: NewOutboxRow[] }[] = [];
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
      installed = receiversIn.all(ctx.db, kind, placeId);
      places.set(`${kind}:${placeId}`, installed);
    }
    const rows: NewOutboxRow[] = [];
    for (const installation of await installed) {
      const paused = Number(installation.paused) === 1;
      if (!paused && Number(installation.setup_owed)) setupOwed.add(installation.id);
      if (!(await registry.receives(installation.integration_name, installation.latest_version, event.type))) continue;
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
  return { owed, setupOwed };
}
