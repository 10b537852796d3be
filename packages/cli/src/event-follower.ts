/**
 * Follows one platform event to its end for `portico emit --wait`, by polling GET
 * /v1/events/{eventId}: prints each dispatch as it is recorded and each change of the deliveries it
 * caused, until every installation it is owed to has its dispatch's final outcome and every
 * delivery is delivered or failed, or the time is up.
 */
import type { DispatchView } from '@portico/platform';
import type { ApiClient } from './api-client.js';
import { type Delivery, deliveryVersion, formatDeliveryChange } from './delivery-lines.js';
import { SourceMaps } from './dev/stack-traces.js';
import { clock, formatDispatch } from './dispatch-lines.js';
import type { InstallationLabels } from './installation-labels.js';

export interface EventTrace {
  eventId: string;
  type: string;
  receivedAt: string;
  routedAt: string | null;
  installations: { installationId: string; outcome: string | null; dispatchedAt: string | null }[];
  dispatches: (DispatchView & { installationId: string })[];
  deliveries: (Delivery & { installationId: string })[];
}

export interface FollowResult {
  trace: EventTrace;
  /** Everything it is owed to ended and every delivery is over. */
  over: boolean;
  /** A dispatch or a delivery failed. */
  failed: boolean;
}

const POLL_MS = 150;

/** Whether a dispatch outcome is final (see GET /v1/events/{eventId}). */
export const finalOutcome = (outcome: string | null) =>
  outcome !== null && !outcome.startsWith('retrying') && !outcome.startsWith('waiting');

export async function followEvent(
  client: ApiClient,
  eventId: string,
  options: { timeoutMs: number; labels: InstallationLabels; print?: ((text: string) => void) | undefined },
): Promise<FollowResult> {
  const deadline = Date.now() + options.timeoutMs;
  const maps = new SourceMaps(process.cwd());
  const printed = new Set<number>();
  const versions = new Map<string, string>();
  const dispatched = new Set<string>();
  for (;;) {
    const trace: EventTrace = await client.call(
      client.portico.GET('/v1/events/{eventId}', { params: { path: { eventId } } }),
    );
    const over =
      trace.routedAt !== null &&
      trace.installations.every((i) => finalOutcome(i.outcome)) &&
      trace.deliveries.every((d) => d.status !== 'pending');
    if (options.print) {
      for (const dispatch of trace.dispatches) {
        if (printed.has(dispatch.id)) continue;
        printed.add(dispatch.id);
        dispatched.add(dispatch.installationId);
        options.print(formatDispatch(dispatch, await options.labels.label(dispatch.installationId), maps));
      }
      const owed = new Set(trace.installations.map((i) => i.installationId));
      for (const delivery of trace.deliveries) {
        // A delivery asked for during a dispatch, which is recorded when it ends, is shown under
        // the dispatch that caused it. One fanned out to a webhook subscription when the event was
        // accepted has no dispatch: a line says so, once per installation, above its deliveries.
        if (!owed.has(delivery.installationId) && !dispatched.has(delivery.installationId)) {
          dispatched.add(delivery.installationId);
          options.print(
            `${clock(new Date(delivery.createdAt))} ${trace.type} → ${await options.labels.label(delivery.installationId)}: written for its webhook subscriptions when accepted\n`,
          );
        }
        if (!dispatched.has(delivery.installationId) && !over) continue;
        const version = deliveryVersion(delivery);
        if (versions.get(delivery.id) === version) continue;
        versions.set(delivery.id, version);
        options.print(`  ${formatDeliveryChange(delivery)}`);
      }
    }
    const failed =
      trace.installations.some((i) => i.outcome?.startsWith('failed')) ||
      trace.deliveries.some((d) => d.status === 'failed');
    if (over || Date.now() >= deadline) return { trace, over, failed };
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(deadline - Date.now(), 0))));
  }
}
