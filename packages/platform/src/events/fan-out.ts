/**
 * Fan-out at ingest (DESIGN.md "The pipeline's shape"): an event that a webhook subscription
 * selected becomes a delivery in the event's own write: the spec 2.9 payload, built by the webhook
 * package's one function, for the subscription's URL, headers and policy. No outbox row, no
 * dispatch. Each delivery is offered to this node's delivery engine before the write (inserted
 * claimed by this node when it takes it) and handed to it once the write has committed. A
 * subscription that failures disabled gets its delivery recorded `failed` with the reason, never
 * dropped, as a delivery asked for through the API would.
 */
import { payloadOf } from '@portico/webhook-integration';
import { DEFAULT_DELIVERY_POLICY } from '@portico/webhooks';
import { newTimeOrderedId } from '../access/tokens.js';
import { refusedAtOnce } from '../delivery/deliveries.js';
import type { Database } from '../storage/schema.js';
import type { Handoff, ServiceContext } from '../types.js';

/** A live subscription switched on, as routing read it with its installation's valid secrets. */
export interface Subscription {
  id: string;
  installationId: string;
  url: string;
  destination: string;
  eventTypes: readonly string[];
  /** JSON object of name to value, or null. */
  headers: string | null;
  policy: string | null;
  /** Set when failures disabled it: its deliveries end failed with this reason. */
  disabledReason: string | null;
  /** Sealed, newest first. */
  sealedSecrets: string[];
}

/** A delivery routing made, with what signs its first attempt. */
export interface FannedOut {
  row: Database['deliveries'];
  sealedSecrets: string[];
  handoff?: Handoff | undefined;
}

/** The delivery of one stored event to one subscription (`payload`: the event as ingested). */
export function deliveryFor(
  event: { event_id: string; type: string },
  payload: Record<string, unknown>,
  subscription: Subscription,
  now: number,
  /** The server-wide default policy (PORTICO_DELIVERY_POLICY), for a subscription that chose none. */
  defaultPolicy = DEFAULT_DELIVERY_POLICY,
): Database['deliveries'] {
  const disabled = subscription.disabledReason !== null;
  return {
    id: newTimeOrderedId('dlv', now),
    installation_id: subscription.installationId,
    event_id: event.event_id,
    type: event.type,
    url: subscription.url,
    body: JSON.stringify(payloadOf(payload as unknown as Parameters<typeof payloadOf>[0], subscription.installationId)),
    status: disabled ? 'failed' : 'pending',
    attempts: 0,
    next_attempt_at: disabled ? null : now,
    claimed_until: null,
    last_error: subscription.disabledReason,
    redelivery_of: null,
    endpoint_id: subscription.id,
    destination: subscription.destination,
    headers: subscription.headers,
    policy: subscription.policy ?? defaultPolicy,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Offers each pending delivery to this node's engine (a lease: the row is inserted claimed). Answers
 * what to call once the write has committed (with the events it stored: only their deliveries were
 * inserted) or failed.
 */
export function handOver(ctx: ServiceContext, fanned: FannedOut[]) {
  for (const delivery of fanned) {
    const { row } = delivery;
    if (row.status !== 'pending') continue;
    delivery.handoff = ctx.deliveries.offer({
      deliveryId: row.id,
      installationId: row.installation_id,
      endpointId: row.endpoint_id as string,
    });
    row.claimed_until = delivery.handoff?.lease ?? null;
  }
  return {
    committed(stored: ReadonlySet<string>) {
      let unclaimed = false;
      for (const { row, handoff, sealedSecrets } of fanned) {
        if (!stored.has(row.event_id)) {
          handoff?.cancel();
          continue;
        }
        if (row.status === 'failed') refusedAtOnce(ctx, row.id);
        else if (handoff) handoff.start(row, sealedSecrets);
        else unclaimed = true;
      }
      if (unclaimed) ctx.deliveries.wake();
    },
    failed() {
      for (const { handoff } of fanned) handoff?.cancel();
    },
  };
}
