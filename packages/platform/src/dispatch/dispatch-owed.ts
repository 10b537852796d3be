/**
 * Owed outbox rows dispatched, an installation's rows one after another (the dispatcher hands over
 * the rows waiting behind the first: decision 039): for each, the installation read with its token
 * and environment, the row skipped when it was uninstalled or paused meanwhile, or its integration
 * called; at the end every outcome is settled with its dispatch-log line in one write (shared with
 * the dispatches that end meanwhile): delivered,
 * not handled (404 `event_not_handled`, or 406), failed (another 4xx, or the last attempt), or
 * retried with backoff. A worker that times out or crashes counts towards its
 * integration's circuit breaker.
 */
import type { PlatformEvent } from '@portico/runtime';
import type { Logger } from 'pino';
import { LeaseLost } from '../errors/lease-lost.js';
import { HostError } from '../hosts/host.js';
import { DELETED_EVENTS } from '../installations/owed-events.js';
import type { DispatchTrace } from '../observability/tracing.js';
import type { OutboxRow, Settled } from '../storage/repositories/outbox.js';
import * as outbox from '../storage/repositories/outbox.js';
import { type CallSettings, callIntegration } from './call-integration.js';
import type { Opened } from './circuit-breaker.js';
import { loadDispatchContext } from './dispatch-context.js';

/** Host failures that say the worker itself is in trouble: they count towards its circuit breaker. */
const WORKER_FAILURES = new Set(['timeout', 'crashed', 'memory', 'startup', 'unreachable']);

export interface OwedSettings extends CallSettings {
  leaseMs: number;
  /** Rows join a dispatch while it is younger than this (their outcomes wait for its end). */
  joinMs: number;
  /** Attempts before a dispatch is given up. */
  maxAttempts: number;
  /** The integration answered (even with an error status): its worker is alive. */
  workerAnswered(integration: string): void;
  /** Its worker failed; answers whether the failure opened its breaker (and until when). */
  workerFailed(integration: string, cause: string, row?: OutboxRow): Promise<Opened | undefined>;
  logger?: Logger | undefined;
  /** The row's outcome was written (metrics). */
  settled?(outcome: string): void;
  /** A row's dispatch starts now (tracing; unset when tracing is off). */
  tracing?: ((row: OutboxRow) => DispatchTrace | undefined) | undefined;
  /**
   * Writes the outcomes (`outbox.settleOwned`); answers the ids of rows no longer held, among these
   * and those of other dispatches settled in the same write.
   */
  settle(rows: (Settled & { row: OutboxRow })[]): Promise<Set<number>>;
}

/** Most rows dispatched together. */
const TOGETHER = 32;

/**
 * Dispatches `first`, then the rows `next` hands over (rows of the same installation waiting
 * behind it; none for a setup event) while fewer than 32 went and the dispatch is younger than
 * `joinMs` (250 ms unless the dispatcher says). Each row reads its context when its turn comes,
 * so a pause, a new version or a rotated token counts from the next row. Resolves once their
 * outcomes are written, all in one write (`settings.settle`).
 */
export async function dispatchOwed(
  settings: OwedSettings,
  first: OutboxRow,
  next: (() => OutboxRow | undefined) | undefined,
): Promise<void> {
  if (!(await keepLease(settings, first))) throw new LeaseLost(`outbox row ${first.id}`);
  const started = performance.now();
  const settled: (Settled & { row: OutboxRow; traced: DispatchTrace | undefined })[] = [];
  let row: OutboxRow | undefined = first;
  while (row) {
    const traced = settings.tracing?.(row);
    settled.push({ ...(await dispatchOne(settings, row)), row, traced });
    row = settled.length < TOGETHER ? await joining(settings, started, next) : undefined;
  }
  const lost = await settings.settle(settled).catch((error) => {
    for (const { traced } of settled) traced?.failed(error);
    throw error;
  });
  // (`lost` may name rows of other dispatches written in the same write.)
  const mine: number[] = [];
  for (const { row, outcome, traced } of settled) {
    if (lost.has(row.id)) {
      mine.push(row.id);
      traced?.failed(new LeaseLost(`outbox row ${row.id}`));
      continue;
    }
    settings.settled?.(outcome.startsWith('retrying') ? 'retrying' : outcome);
    traced?.settled(outcome);
  }
  if (mine.length > 0) throw new LeaseLost(`outbox rows ${mine.join(', ')}`);
}

/** The next row handed over while the dispatch is young enough, one this node still holds. */
async function joining(
  settings: OwedSettings,
  started: number,
  next: (() => OutboxRow | undefined) | undefined,
): Promise<OutboxRow | undefined> {
  while (next && performance.now() - started < settings.joinMs) {
    const row = next();
    if (row === undefined || (await keepLease(settings, row))) return row;
    settings.logger?.warn({ outbox: row.id }, `outbox row ${row.id}: its lease was lost while it waited`);
  }
  return undefined;
}

/**
 * A row that waited past half its lease gets a new one first, so no other node takes it
 * meanwhile; answers whether this node still holds it.
 */
async function keepLease(settings: OwedSettings, row: OutboxRow): Promise<boolean> {
  const { ctx } = settings;
  if ((row.claimed_until as number) - ctx.now() >= settings.leaseMs / 2) return true;
  const lease = ctx.now() + settings.leaseMs;
  const moved = await ctx.write((trx) => outbox.moveLeases(trx, [row], lease));
  if (!moved.has(row.id)) return false;
  row.claimed_until = lease;
  return true;
}

/** One row: skipped, or its integration called; answers how to settle it (not yet written). */
async function dispatchOne(settings: OwedSettings, row: OutboxRow): Promise<Settled> {
  const { ctx } = settings;
  const context = await loadDispatchContext(ctx.db, ctx.dialect, row.installation_id, ctx.now());
  const ended = (outcome: string, record?: Settled['record']): Settled => ({
    outcome,
    dispatched_at: ctx.now(),
    attempts: row.attempts,
    available_at: row.available_at,
    record,
  });
  const installation = context?.installation;
  // An installation's deleted event goes out once it is removed, paused or not.
  const deleted = DELETED_EVENTS.has(row.event_type as string);
  if (!context || !installation || (installation.uninstalled_at !== null && !deleted))
    return ended('skipped: uninstalled');
  const owed = JSON.parse(row.event) as Record<string, unknown> & { type: string };
  const setup = row.event_id === null; // the installation's own events: setup and deleted
  // Paused since it was routed: not kept, but its Events log says what it missed.
  if (installation.status === 'paused' && !deleted)
    return ended(
      outbox.SKIPPED_PAUSED,
      outbox.skippedLine({ ...row, dispatched_at: ctx.now(), outcome: outbox.SKIPPED_PAUSED }),
    );
  if (!setup && installation.status !== 'active') return ended(`skipped: ${installation.status}`);
  const { cause: _cause, ...fields } = owed;
  const event = (setup
    ? { ...fields, eventId: `${deleted ? 'deleted' : 'setup'}_${row.id}`, status: installation.status }
    : fields) as unknown as PlatformEvent;
  const called = await callIntegration(settings, installation, event, undefined, context);
  let failure: string;
  let waitUntil = 0;
  if (called.answer !== undefined) {
    settings.workerAnswered(row.integration_name);
    const { status } = called.answer;
    if (status >= 200 && status < 300) return ended('delivered', called.record);
    const text = new TextDecoder().decode(called.answer.body).slice(0, 500);
    if (status === 406) await settings.registry.notHandled(row.integration_name, context.latestVersion, event.type);
    if ((status === 404 && text.includes('event_not_handled')) || status === 406)
      return ended('not_handled', called.record);
    if (status < 500 && status !== 429) return ended(`failed: ${status} ${text}`, called.record);
    failure = `${status} ${text}`;
  } else {
    failure = called.error.message;
    if (called.error instanceof HostError && WORKER_FAILURES.has(called.error.failure))
      waitUntil = (await settings.workerFailed(row.integration_name, failure, row))?.until ?? 0;
  }
  const attempts = row.attempts + 1;
  if (attempts >= settings.maxAttempts) return ended(`failed after ${attempts} attempts: ${failure}`, called.record);
  return {
    outcome: `retrying: ${failure}`,
    dispatched_at: null,
    attempts,
    available_at: Math.max(waitUntil, ctx.now() + 1000 * 2 ** (attempts - 1)),
    record: called.record,
  };
}
