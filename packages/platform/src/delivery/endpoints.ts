/**
 * Delivery endpoints: one installation's URL that deliveries go to, and its health (DESIGN.md
 * "Isolation"). Every attempt updates it in the same transaction as the attempt itself: a success
 * clears the failures, a failure counts them and remembers when the failing began. An endpoint
 * whose every attempt failed for `disableAfterMs`, or that answered 410 Gone, is disabled with the
 * reason: what it was owed
 * ends `failed` with that reason (it can be redelivered once the endpoint is enabled again), and
 * what is asked for it afterwards is recorded as `failed` at once, never dropped silently.
 */
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import { newId } from '../access/tokens.js';
import { DomainError, notFound } from '../errors/domain-error.js';
import { authorizedInstallation, managedInstallation } from '../installations/load.js';
import * as queue from '../storage/repositories/delivery-queue.js';
import * as endpoints from '../storage/repositories/endpoints.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';

type Row = Selectable<Database['endpoints']>;

export interface EndpointView {
  id: string;
  url: string;
  destination: string;
  /** `healthy` (the last attempt succeeded, or none was made), `failing`, or `disabled`. */
  state: 'healthy' | 'failing' | 'disabled';
  consecutiveFailures: number;
  failingSince: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  lastError: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  /** A webhook subscription: routing delivers the event types it selected to it. */
  subscribed: boolean;
  /** The subscription the installation's configuration form edits. */
  fromConfiguration: boolean;
  eventTypes: string[];
  headers: Record<string, string>;
  /** The delivery policy (null: the default, standard). */
  policy: string | null;
  /** Switched on (a person may switch a subscription off: nothing is delivered to it). */
  enabled: boolean;
  /** Most deliveries per second it is sent (per node); null: no limit but the concurrency caps. */
  rateLimit: number | null;
}

/** `scheme://host:port` of a URL: the unit that attempts under way are capped by. */
export function destinationOf(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : '');
  return `${parsed.protocol}//${parsed.hostname}:${port}`;
}

/**
 * The endpoint of `url` for the installation (created on first use) and the installation's valid
 * signing secrets, sealed, newest first (empty when it has none yet: the first attempt creates one).
 */
export async function endpointWithSecrets(
  ctx: ServiceContext,
  installationId: string,
  url: string,
): Promise<{ endpoint: Pick<Row, 'id' | 'destination' | 'disabled_at' | 'disabled_reason'>; sealedSecrets: string[] }> {
  const rows = await endpoints.endpointAndSecrets.all(ctx.db, installationId, url, ctx.now());
  const [first] = rows;
  if (first === undefined) return { endpoint: await endpointFor(ctx, installationId, url), sealedSecrets: [] };
  const { secret: _secret, ...endpoint } = first;
  return { endpoint, sealedSecrets: rows.flatMap((row) => (row.secret === null ? [] : [row.secret])) };
}

/** The endpoint of `url` for the installation, created on first use. */
export async function endpointFor(
  ctx: ServiceContext,
  installationId: string,
  url: string,
): Promise<Pick<Row, 'id' | 'destination' | 'disabled_at' | 'disabled_reason'>> {
  const find = () => endpoints.endpointByUrl.first(ctx.db, installationId, url);
  const found = await find();
  if (found) return found;
  await endpoints.insertEndpoint(ctx.db, newEndpoint(newId('ep'), installationId, url, ctx.now()));
  const created = await find();
  if (!created) throw new Error(`the endpoint ${url} of ${installationId} could not be created`);
  return created;
}

/** Where a delivery goes again, as its endpoint is now (its URL, and a subscription's headers). */
export type CurrentEndpoint = Pick<
  Row,
  'id' | 'url' | 'destination' | 'disabled_at' | 'disabled_reason' | 'headers'
> & {
  subscribed: boolean;
};

/**
 * The endpoint of a delivery as it is now: a subscription whose URL was changed since answers its
 * new URL and headers (a redelivery reaches the fixed URL); a delivery from before endpoints gets
 * the endpoint of its URL.
 */
export async function currentEndpointOf(
  ctx: ServiceContext,
  delivery: Pick<Database['deliveries'], 'endpoint_id' | 'installation_id' | 'url'>,
): Promise<CurrentEndpoint> {
  const row = delivery.endpoint_id === null ? undefined : await endpoints.endpointById(ctx.db, delivery.endpoint_id);
  if (row) return { ...row, subscribed: Number(row.subscribed) === 1 };
  const found = await endpointFor(ctx, delivery.installation_id, delivery.url);
  return { ...found, url: delivery.url, headers: null, subscribed: false };
}

/** A new endpoint's row: enabled, with no attempt yet (a plain endpoint: where deliveries went, no subscription). */
export function newEndpoint(
  id: string,
  installationId: string,
  url: string,
  now: number,
): Insertable<Database['endpoints']> {
  return {
    id,
    installation_id: installationId,
    url,
    destination: destinationOf(url),
    consecutive_failures: 0,
    failing_since: null,
    last_success_at: null,
    last_failure_at: null,
    last_error: null,
    disabled_at: null,
    disabled_reason: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * What this node knows of each endpoint's health (decision 013: a healthy endpoint's row is
 * written at most every few seconds): when the newest success it wrote ended, counted once its
 * write committed, and when the newest failure it saw ended, counted as the attempt ends.
 */
const known = new Map<string, { written: number; failed: number }>();
const SUCCESS_WRITE_INTERVAL_MS = 5000;

export interface AttemptHealth {
  /** Set when the endpoint is disabled (by this attempt or before it): the delivery ends failed with it. */
  disabledReason: string | undefined;
  /** True when this attempt disabled it. */
  disabledNow: boolean;
  /** The other deliveries its disabling ended failed (when this attempt disabled it). */
  endedByDisabling: string[];
  /**
   * Written: after a failure, the failures in a row now; after a success, those before it (the
   * early-warning alerts read them). Undefined when the health was not written, or when a success
   * ended no streak (a failure that ended after it was written first).
   */
  failures?: number | undefined;
}

/** An attempt whose endpoint's health is not written. */
export const NO_HEALTH_CHANGE: AttemptHealth = { disabledReason: undefined, disabledNow: false, endedByDisabling: [] };

/**
 * Tells this node an attempt to the endpoint ended; answers whether its result writes the
 * endpoint's health (`recordAttempt`). A failure always does. A success does not when a success
 * that ended within the interval was written, and no failure this node saw ended after it: the
 * row says healthy already (the updates commute, storage/repositories/endpoints.ts), and the
 * attempt's result is then one statement on PostgreSQL.
 */
export function attemptEnded(endpointId: string | null, ok: boolean, at: number): boolean {
  if (endpointId === null) return false;
  const seen = known.get(endpointId);
  if (!ok) {
    if (seen) seen.failed = Math.max(seen.failed, at);
    else remember(endpointId, { written: Number.NEGATIVE_INFINITY, failed: at });
    return true;
  }
  return seen === undefined || seen.failed > seen.written || seen.written <= at - SUCCESS_WRITE_INTERVAL_MS;
}

/** Tells this node a success's health write committed (not before: a write may run twice, or roll back). */
export function successWritten(endpointId: string, at: number): void {
  const seen = known.get(endpointId);
  if (seen) seen.written = Math.max(seen.written, at);
  else remember(endpointId, { written: at, failed: Number.NEGATIVE_INFINITY });
}

function remember(endpointId: string, health: { written: number; failed: number }): void {
  if (known.size >= 100_000) known.clear();
  known.set(endpointId, health);
}

/**
 * Records an attempt's outcome on its endpoint, inside the attempt's transaction (when
 * `attemptEnded` answered that it is written); disables the endpoint when it has failed every
 * attempt for `disableAfterMs`, and fails what it is still owed.
 */
export async function recordAttempt(
  trx: Transaction<Database>,
  endpointId: string,
  outcome: { ok: true; at: number } | { ok: false; at: number; error: string; gone?: boolean },
  disableAfterMs: number,
): Promise<AttemptHealth> {
  if (outcome.ok) {
    const before = await endpoints.failuresOf(trx, endpointId);
    const row = await endpoints.recordSuccess(trx, endpointId, outcome.at);
    return {
      disabledReason: row?.disabled_reason ?? undefined,
      disabledNow: false,
      endedByDisabling: [],
      // (A failure that ended after this success was written first: no streak ended.)
      failures: row?.consecutive_failures === 0 ? before : undefined,
    };
  }
  const row = await endpoints.recordFailure(trx, endpointId, outcome.at, outcome.error.slice(0, 500));
  if (!row) return NO_HEALTH_CHANGE;
  const failures = row.consecutive_failures;
  if (row.disabled_at !== null)
    return {
      disabledReason: row.disabled_reason ?? 'the endpoint is disabled',
      disabledNow: false,
      endedByDisabling: [],
      failures,
    };
  const since = row.failing_since ?? outcome.at;
  if (!outcome.gone && outcome.at - since < disableAfterMs)
    return { disabledReason: undefined, disabledNow: false, endedByDisabling: [], failures };
  const reason = outcome.gone
    ? `disabled: ${row.url} answered 410 Gone at ${new Date(outcome.at).toISOString()} (the receiver says it is gone for good); enable the endpoint again to deliver to it`
    : `disabled: every attempt to ${row.url} failed since ${new Date(since).toISOString()} (${row.consecutive_failures} in a row; last: ${outcome.error.slice(0, 200)}); enable the endpoint again to deliver to it`;
  await endpoints.disable(trx, endpointId, reason, outcome.at);
  // What it is still owed ends failed with the reason: every first attempt (one in flight writes
  // its own result over it when it ends, failed with this reason unless it was delivered; the node
  // of one waiting in memory drops it) and every retry no node holds. A retry a node holds fails
  // with the reason at its next attempt.
  const ended = await endpoints.failOwed(trx, endpointId, reason, outcome.at);
  return { disabledReason: reason, disabledNow: true, endedByDisabling: ended, failures };
}

export async function listEndpoints(ctx: ServiceContext, principal: Principal, installationId: string) {
  await authorizedInstallation(ctx, principal, installationId);
  return endpointsOf(ctx.db, installationId);
}

/** The installation's endpoints with their health, oldest first (the caller has authorized the reader). */
export async function endpointsOf(db: Kysely<Database>, installationId: string): Promise<EndpointView[]> {
  const rows = await endpoints.endpointsOf(db, installationId);
  return rows.map(endpointView);
}

/** Enables a disabled endpoint: its failures are forgotten and new deliveries go to it again. */
export async function enableEndpoint(ctx: ServiceContext, principal: Principal, installationId: string, id: string) {
  await managedInstallation(ctx, principal, installationId, 'enabling an endpoint');
  const recovered = await ctx.alerts?.endpointEnabling(installationId, id);
  const now = ctx.now();
  const row = await endpoints.enable(ctx.db, installationId, id, now);
  if (!row) throw notFound(`the endpoint ${id} of the installation ${installationId}`);
  recovered?.();
  return endpointView(row);
}

/** The installation's disabled endpoints, as alerts for its status page. */
export async function endpointAlerts(db: Kysely<Database>, installationId: string) {
  const rows = await endpoints.disabledOf(db, installationId);
  return rows.map((r) => ({
    code: 'endpoint_disabled' as const,
    endpointId: r.id,
    url: r.url,
    since: new Date(r.disabled_at as number).toISOString(),
    // (The stored reason begins "disabled: ", which this sentence says already.)
    message: `Deliveries to ${r.url} are disabled: ${r.disabled_reason?.replace(/^disabled: /, '') ?? 'it kept failing'}. Enable it with POST /v1/installations/${installationId}/endpoints/${r.id}/enable, then redeliver what failed.`,
  }));
}

/** Refuses to deliver again to a disabled endpoint, saying how to enable it. */
export function endpointDisabled(installationId: string, endpoint: { id: string; disabled_reason: string | null }) {
  return new DomainError(
    'conflict',
    'endpoint_disabled',
    `the endpoint is disabled (${endpoint.disabled_reason ?? 'it kept failing'}); enable it with POST /v1/installations/${installationId}/endpoints/${endpoint.id}/enable first`,
  );
}

export function endpointView(row: Row): EndpointView {
  const time = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return {
    id: row.id,
    url: row.url,
    destination: row.destination,
    state: row.disabled_at !== null ? 'disabled' : row.failing_since !== null ? 'failing' : 'healthy',
    consecutiveFailures: row.consecutive_failures,
    failingSince: time(row.failing_since),
    lastSuccessAt: time(row.last_success_at),
    lastFailureAt: time(row.last_failure_at),
    lastError: row.last_error,
    disabledAt: time(row.disabled_at),
    disabledReason: row.disabled_reason,
    subscribed: Number(row.subscribed) === 1,
    fromConfiguration: Number(row.from_configuration) === 1,
    eventTypes: JSON.parse(row.event_types) as string[],
    headers: row.headers === null ? {} : (JSON.parse(row.headers) as Record<string, string>),
    policy: row.policy,
    enabled: Number(row.enabled) === 1,
    rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
  };
}

/**
 * Gives pending deliveries from before migration 004 their endpoint and destination (parsed from
 * the URL), which scheduling needs. Reads pending rows only (an index): a start costs nothing once
 * done. Run before the delivery engine starts.
 */
export async function adoptOlderDeliveries(ctx: ServiceContext): Promise<number> {
  const rows = await queue.pendingWithoutDestination(ctx.db);
  for (const row of rows) {
    const endpoint = await endpointFor(ctx, row.installation_id, row.url).catch(() => undefined);
    await queue.setEndpoint(ctx.db, row.id, endpoint);
  }
  return rows.length;
}
