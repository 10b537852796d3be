/** Deliveries through the API: asking for one, reading the log, delivering again. */

import { customHeaderProblems, DEFAULT_DELIVERY_POLICY, deliveryPolicyProblem } from '@portico/webhooks';
import type { Kysely, Selectable } from 'kysely';
import { newTimeOrderedId } from '../access/tokens.js';
import { invalid, notFound } from '../errors/domain-error.js';
import { authorizedInstallation, managedInstallation } from '../installations/load.js';
import * as deliveries from '../storage/repositories/deliveries.js';
import type { Database } from '../storage/schema.js';
import type { DeliveryTargets, Principal, ServiceContext } from '../types.js';
import { type CurrentEndpoint, currentEndpointOf, endpointDisabled, endpointWithSecrets } from './endpoints.js';

export interface DeliveryRequest {
  url: string;
  eventId: string;
  type: string;
  payload: Record<string, unknown>;
  /** The installation's own headers, sent with every attempt (customHeaderProblems says which may be). */
  headers?: Record<string, unknown> | undefined;
  /** The delivery policy to retry it under (`standard` when not given); the delivery keeps it to the end. */
  policy?: string | undefined;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  type: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  createdAt: string;
  nextAttemptAt: string | null;
  lastError: string | null;
  redeliveryOf: string | null;
  /** The endpoint (installation and URL) it goes to: its health is at GET /v1/installations/{id}/endpoints. */
  endpointId: string | null;
  /** The delivery policy it is retried under. */
  policy: string;
  attempts: {
    number: number;
    at: string;
    status: number | null;
    durationMs: number;
    error: string | null;
    response: string | null;
  }[];
}

/**
 * Asks the engine to deliver `payload` to `url`; the row is durable before this answers. `known`:
 * the installation's endpoints and secrets as its dispatch read them (a call made during one).
 */
export async function requestDelivery(
  ctx: ServiceContext,
  principal: Principal,
  installationId: string,
  input: DeliveryRequest,
  known?: DeliveryTargets,
) {
  // A person asking for a signed delivery to a URL of their choosing manages the installation (the
  // contract's Roles); an installation's own token asks for its own.
  await managedInstallation(ctx, principal, installationId, 'asking for a delivery');
  try {
    const url = new URL(input.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
  } catch {
    throw invalid('invalid_url', `"${input.url}" is not an http(s) URL`);
  }
  const problems = customHeaderProblems(input.headers ?? {});
  if (problems.length > 0) {
    throw invalid('invalid_headers', `headers: ${problems.join('; ')}`, { errors: problems });
  }
  const policyProblem = input.policy === undefined ? undefined : deliveryPolicyProblem('policy', input.policy);
  if (policyProblem !== undefined) throw invalid('invalid_delivery_policy', policyProblem);
  const headers = input.headers && Object.keys(input.headers).length > 0 ? JSON.stringify(input.headers) : null;
  const knownEndpoint = known?.endpoints.get(input.url);
  const { endpoint, sealedSecrets } = knownEndpoint
    ? { endpoint: knownEndpoint, sealedSecrets: known?.sealedSecrets ?? [] }
    : await endpointWithSecrets(ctx, installationId, input.url);
  const now = ctx.now();
  // A disabled endpoint's deliveries are recorded failed with the reason, to redeliver once it is enabled.
  const disabled = endpoint.disabled_at !== null;
  // When this node's engine takes it, the row is inserted claimed and handed over: no claim has to find it.
  const id = newTimeOrderedId('dlv', now);
  const handoff = disabled
    ? undefined
    : ctx.deliveries.offer({ deliveryId: id, installationId, endpointId: endpoint.id });
  const row = {
    id,
    installation_id: installationId,
    event_id: input.eventId,
    type: input.type,
    url: input.url,
    body: JSON.stringify(input.payload),
    status: disabled ? ('failed' as const) : ('pending' as const),
    attempts: 0,
    next_attempt_at: disabled ? null : now,
    claimed_until: handoff?.lease ?? null,
    last_error: disabled ? endpoint.disabled_reason : null,
    redelivery_of: null,
    endpoint_id: endpoint.id,
    destination: endpoint.destination,
    headers,
    policy: input.policy ?? ctx.defaultDeliveryPolicy ?? DEFAULT_DELIVERY_POLICY,
    created_at: now,
    updated_at: now,
  };
  // Asking again for the same event and URL (a retried dispatch) gets the delivery already made.
  // One insert, and a read after it only when another request made the delivery first: standalone.
  let stored: { id: string; status: 'pending' | 'delivered' | 'failed' };
  try {
    stored = await ctx.write((trx) => deliveries.insertOrExisting(trx, ctx.dialect, row), { standalone: true });
  } catch (error) {
    handoff?.cancel();
    throw error;
  }
  if (stored.id !== row.id) handoff?.cancel();
  else if (handoff) handoff.start(row, sealedSecrets);
  else if (!disabled) ctx.deliveries.wake();
  else refusedAtOnce(ctx, row.id);
  return { id: stored.id, status: stored.status };
}

/** A delivery written failed without an attempt (its endpoint is disabled): counted and alerted like any that failed. */
export function refusedAtOnce(ctx: ServiceContext, deliveryId: string): void {
  ctx.metrics?.deliveryFailedUnattempted();
  ctx.alerts?.deliveryEnded(deliveryId, false);
}

export async function redeliver(ctx: ServiceContext, principal: Principal, deliveryId: string) {
  const original = await deliveries.deliveryById(ctx.db, deliveryId);
  if (!original) throw notFound(`the delivery ${deliveryId}`);
  await managedInstallation(ctx, principal, original.installation_id, 'redelivering');
  const endpoint = await currentEndpointOf(ctx, original);
  if (endpoint.disabled_at !== null) throw endpointDisabled(original.installation_id, endpoint);
  const row = redeliveryOf(original, endpoint, ctx.now());
  await deliveries.insertDelivery(ctx.db, row);
  ctx.deliveries.wake();
  return view(row, []);
}

/**
 * A new delivery of `original`: the same body and eventId (so the same `webhook-id`), to its
 * endpoint as it is now (a subscription's current URL and headers), linked to it.
 */
export function redeliveryOf(
  original: Database['deliveries'],
  endpoint: CurrentEndpoint,
  now: number,
): Database['deliveries'] {
  return {
    ...original,
    endpoint_id: endpoint.id,
    url: endpoint.url,
    destination: endpoint.destination,
    headers: endpoint.subscribed ? endpoint.headers : original.headers,
    id: newTimeOrderedId('dlv', now),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    claimed_until: null,
    last_error: null,
    redelivery_of: original.id,
    created_at: now,
    updated_at: now,
  };
}

export async function listDeliveries(
  ctx: ServiceContext,
  principal: Principal,
  installationId: string,
  filter: {
    status?: string | undefined;
    eventId?: string | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
    /** Only the latest delivery of each event and URL: one redelivered since is left out (its redelivery decides). */
    latest?: boolean | undefined;
  },
): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
  await authorizedInstallation(ctx, principal, installationId);
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  let after: { createdAt: number; id: string } | undefined;
  if (filter.cursor) {
    const [createdAt, id] = Buffer.from(filter.cursor, 'base64url').toString().split('|');
    if (!createdAt || !id || !/^\d+$/.test(createdAt))
      throw invalid('invalid_cursor', 'the cursor is not one this API gave');
    after = { createdAt: Number(createdAt), id };
  }
  const rows = await deliveries.deliveriesOf(ctx.db, installationId, { ...filter, after, limit });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    deliveries: await withAttempts(ctx.db, page),
    nextCursor: rows.length > limit && last ? Buffer.from(`${last.created_at}|${last.id}`).toString('base64url') : null,
  };
}

/** The views of deliveries, each with its attempts (read in one query). */
export async function withAttempts(db: Kysely<Database>, rows: Database['deliveries'][]): Promise<DeliveryView[]> {
  const attempts =
    rows.length === 0
      ? []
      : await deliveries.attemptsOf(
          db,
          rows.map((r) => r.id),
        );
  return rows.map((row) =>
    view(
      row,
      attempts.filter((a) => a.delivery_id === row.id),
    ),
  );
}

function view(row: Database['deliveries'], attempts: Selectable<Database['delivery_attempts']>[]): DeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.type,
    url: row.url,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    nextAttemptAt:
      row.status === 'pending' && row.next_attempt_at !== null ? new Date(row.next_attempt_at).toISOString() : null,
    lastError: row.last_error,
    redeliveryOf: row.redelivery_of,
    endpointId: row.endpoint_id,
    policy: row.policy,
    attempts: attempts.map((a) => ({
      number: a.number,
      at: new Date(a.at).toISOString(),
      status: a.status,
      durationMs: a.duration_ms,
      error: a.error,
      response: a.response_excerpt,
    })),
  };
}
