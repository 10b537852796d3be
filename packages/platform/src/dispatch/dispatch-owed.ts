/**
 * One owed outbox row dispatched: the installation read with its token and environment, skipped
 * when it was uninstalled or paused meanwhile, the integration called, and the outcome settled with
 * its dispatch-log line: delivered, not handled (404 `event_not_handled`, or 406), failed (another
 * 4xx, or the last attempt), or retried with backoff. A worker that times out or crashes counts
 * towards its integration's circuit breaker.
 */
import type { PlatformEvent } from '@portico/runtime';
import { HostError } from '../hosts/host.js';
import { DELETED_EVENTS } from '../installations/owed-events.js';
import type { DispatchTrace } from '../observability/tracing.js';
import type { OutboxRow } from '../storage/repositories/outbox.js';
import * as outbox from '../storage/repositories/outbox.js';
import { type CallSettings, callIntegration, type DispatchRecord } from './call-integration.js';
import type { Opened } from './circuit-breaker.js';
import { loadDispatchContext } from './dispatch-context.js';

/** Host failures that say the worker itself is in trouble: they count towards its circuit breaker. */
const WORKER_FAILURES = new Set(['timeout', 'crashed', 'memory', 'startup', 'unreachable']);

export interface OwedSettings extends CallSettings {
  leaseMs: number;
  /** Attempts before a dispatch is given up. */
  maxAttempts: number;
  /** The integration answered (even with an error status): its worker is alive. */
  workerAnswered(integration: string): void;
  /** Its worker failed; answers whether the failure opened its breaker (and until when). */
  workerFailed(integration: string, cause: string, row?: OutboxRow): Promise<Opened | undefined>;
  /** The row's outcome was written (metrics). */
  settled?(outcome: string): void;
}

export async function dispatchOwed(settings: OwedSettings, row: OutboxRow, traced?: DispatchTrace): Promise<void> {
  const { ctx } = settings;
  const settle = (outcome: string, record?: DispatchRecord) => {
    const set = { dispatched_at: ctx.now(), outcome, claimed_until: null };
    const written = record
      ? ctx.write((trx) => outbox.settleOwned(trx, ctx.dialect, row, record, set), { standalone: true })
      : ctx.write((trx) => outbox.updateOwned(trx, row, set));
    return written.then(() => {
      settings.settled?.(outcome);
      traced?.settled(outcome);
    });
  };
  if ((row.claimed_until as number) - ctx.now() < settings.leaseMs / 2) {
    // Waited long in memory: the lease is renewed first, so no other node takes the row meanwhile.
    const lease = ctx.now() + settings.leaseMs;
    await ctx.write((trx) => outbox.updateOwned(trx, row, { claimed_until: lease }));
    row.claimed_until = lease;
  }
  const context = await loadDispatchContext(ctx.db, ctx.dialect, row.installation_id, ctx.now());
  const installation = context?.installation;
  // An installation's deleted event goes out once it is removed, paused or not.
  const deleted = DELETED_EVENTS.has(row.event_type as string);
  if (!context || !installation || (installation.uninstalled_at !== null && !deleted))
    return settle('skipped: uninstalled');
  const owed = JSON.parse(row.event) as Record<string, unknown> & { type: string };
  const setup = row.event_id === null; // the installation's own events: setup and deleted
  // Paused since it was routed: not kept, but its Events log says what it missed.
  if (installation.status === 'paused' && !deleted)
    return settle(
      outbox.SKIPPED_PAUSED,
      outbox.skippedLine({ ...row, dispatched_at: ctx.now(), outcome: outbox.SKIPPED_PAUSED }),
    );
  if (!setup && installation.status !== 'active') return settle(`skipped: ${installation.status}`);
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
    if (status >= 200 && status < 300) return settle('delivered', called.record);
    const text = new TextDecoder().decode(called.answer.body).slice(0, 500);
    if (status === 406) await settings.registry.notHandled(row.integration_name, context.latestVersion, event.type);
    if ((status === 404 && text.includes('event_not_handled')) || status === 406)
      return settle('not_handled', called.record);
    if (status < 500 && status !== 429) return settle(`failed: ${status} ${text}`, called.record);
    failure = `${status} ${text}`;
  } else {
    failure = called.error.message;
    if (called.error instanceof HostError && WORKER_FAILURES.has(called.error.failure))
      waitUntil = (await settings.workerFailed(row.integration_name, failure, row))?.until ?? 0;
  }
  const attempts = row.attempts + 1;
  if (attempts >= settings.maxAttempts) return settle(`failed after ${attempts} attempts: ${failure}`, called.record);
  await ctx.write(
    (trx) =>
      outbox.settleOwned(trx, ctx.dialect, row, called.record, {
        attempts,
        available_at: Math.max(waitUntil, ctx.now() + 1000 * 2 ** (attempts - 1)),
        claimed_until: null,
        outcome: `retrying: ${failure}`,
      }),
    { standalone: true },
  );
  settings.settled?.('retrying');
  traced?.settled(`retrying: ${failure}`);
}
