/**
 * Events stored unrouted (ingested while no dispatcher ran on this node) are routed later by the
 * dispatcher's loop, a batch at a time, at the same step as at ingest: their outbox rows and
 * deliveries are decided the same way and written as the events are marked routed. Another node may have routed
 * some of them meanwhile: only the events this node marks get rows.
 */
import type { PipelineTracing } from '../observability/tracing.js';
import { insertFannedOut } from '../storage/repositories/deliveries.js';
import * as outbox from '../storage/repositories/outbox.js';
import type { EventRouting, RoutableEvent, ServiceContext } from '../types.js';

/** Events routed per pass; a full batch means there may be more. */
export const ROUTE_BATCH = 200;

/** Routes one batch of events stored unrouted; answers how many it looked at. */
export async function routeStoredEvents(
  ctx: ServiceContext,
  route: (events: RoutableEvent[], now: number) => Promise<EventRouting>,
  tracing?: Pick<PipelineTracing, 'routedLater'>,
): Promise<number> {
  const events = await outbox.unroutedEvents(ctx.db, ROUTE_BATCH);
  if (events.length === 0) return 0;
  const now = ctx.now();
  const began = tracing && performance.timeOrigin + performance.now();
  const routing = await route(events, now);
  let marked = new Set<string>();
  let ids: Map<string, number>;
  try {
    ids = await ctx.write(async (trx) => {
      marked = await outbox.markRouted(
        trx,
        events.map((e) => e.event_id),
        now,
      );
      await insertFannedOut(
        trx,
        ctx.dialect,
        routing.deliveries.filter((row) => marked.has(row.event_id)),
      );
      const rows = routing.rows.filter((row) => marked.has(row.event_id as string));
      return rows.length > 0 ? outbox.insertRouted(trx, ctx.dialect, rows) : new Map<string, number>();
    });
  } catch (error) {
    routing.failed();
    throw error;
  }
  routing.committed(ids, marked);
  ctx.metrics?.settledAtRouting(routing.rows, marked);
  if (began !== undefined) tracing?.routedLater(events, marked, [...routing.rows, ...routing.deliveries], began);
  return events.length;
}
