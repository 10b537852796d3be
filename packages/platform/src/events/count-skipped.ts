/**
 * The rows routing wrote settled (an event a paused installation missed) end there: they are
 * counted as settled dispatches (`portico_dispatches_settled_total{outcome="skipped"}`) once the
 * write that stored them commits, for the events it stored.
 */
import type { NewOutboxRow } from '../storage/repositories/outbox.js';
import { settledAtRouting } from '../storage/repositories/outbox.js';
import type { ServiceContext } from '../types.js';

export function countSkipped(ctx: ServiceContext, rows: readonly NewOutboxRow[], stored: ReadonlySet<string>): void {
  if (!ctx.metrics) return;
  for (const row of rows) {
    if (settledAtRouting(row) && stored.has(row.event_id as string)) ctx.metrics.dispatchSettled(row.outcome as string);
  }
}
