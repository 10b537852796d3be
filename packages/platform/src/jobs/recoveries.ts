/**
 * Recover-since (migration 009): redeliver every failed delivery of an installation created in a
 * time window, as a durable background job with its progress. A delivery counts once per chain:
 * one that was redelivered already is left out (its latest redelivery stands for it), so a
 * recovery never sends the same failed event twice, and a second recovery of the same window
 * only picks up what failed since.
 *
 * Any node's runner claims a running job with a lease and works it in batches. Each batch inserts
 * its new deliveries in the same transaction as the job's progress and cursor (the last delivery
 * handled), and only while the lease is still this node's. A job whose node stopped goes on, on the
 * next node that claims it, after the last committed batch: nothing is redelivered twice, nothing
 * is skipped.
 */
import type { Logger } from 'pino';
import { newId } from '../access/tokens.js';
import { redeliveryOf } from '../delivery/deliveries.js';
import { currentEndpointOf } from '../delivery/endpoints.js';
import { forbidden, invalid, notFound } from '../errors/domain-error.js';
import { LeaseLost } from '../errors/lease-lost.js';
import { authorizedInstallation, managedInstallation } from '../installations/load.js';
import { WakeLoop } from '../queue/wake-loop.js';
import * as recoveries from '../storage/repositories/recoveries.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';

type Row = Database['recoveries'];

export interface RecoveryView {
  id: string;
  installationId: string;
  since: string;
  until: string;
  status: Row['status'];
  /** Failed deliveries in the window when it started; once it ends, done + errors. */
  total: number;
  /** Redelivered so far. */
  done: number;
  /** Could not be redelivered (their endpoint is disabled). */
  errors: number;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export function recoveryView(row: Row): RecoveryView {
  const iso = (t: number) => new Date(t).toISOString();
  return {
    id: row.id,
    installationId: row.installation_id,
    since: iso(row.since),
    until: iso(row.until),
    status: row.status,
    total: row.total,
    done: row.done,
    errors: row.errors,
    lastError: row.last_error,
    createdAt: iso(row.created_at),
    finishedAt: row.finished_at === null ? null : iso(row.finished_at),
  };
}

/**
 * Starts redelivering the installation's failed deliveries created in [since, until) (until: now
 * when not given, and never later than now, so what the job itself sends is never in its window).
 */
export async function startRecovery(
  ctx: ServiceContext,
  principal: Principal,
  installationId: string,
  input: { since: number; until?: number | undefined },
): Promise<RecoveryView> {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot start a recovery');
  await managedInstallation(ctx, principal, installationId, 'recovering failed deliveries');
  const now = ctx.now();
  const until = Math.min(input.until ?? now, now);
  if (!(input.since < until)) {
    throw invalid(
      'invalid_window',
      `\`since\` (${new Date(input.since).toISOString()}) must be before \`until\` (${new Date(until).toISOString()}${input.until === undefined || input.until > now ? ', now' : ''})`,
    );
  }
  const row: Row = {
    id: newId('rcv'),
    installation_id: installationId,
    since: input.since,
    until,
    status: 'running',
    total: 0,
    done: 0,
    errors: 0,
    last_error: null,
    cursor_created_at: null,
    cursor_id: null,
    claimed_until: null,
    created_by: principal.kind === 'user' ? principal.userId : 'operator',
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
  const counted = await recoveries.countOwed(ctx.db, row);
  row.total = Number(counted.n);
  await recoveries.insertRecovery(ctx.db, row);
  return recoveryView(row);
}

async function authorizedRecovery(ctx: ServiceContext, principal: Principal, id: string): Promise<Row> {
  const row = await recoveries.recoveryById(ctx.db, id);
  if (!row) throw notFound(`the recovery ${id}`);
  await authorizedInstallation(ctx, principal, row.installation_id);
  return row;
}

export async function getRecovery(ctx: ServiceContext, principal: Principal, id: string): Promise<RecoveryView> {
  return recoveryView(await authorizedRecovery(ctx, principal, id));
}

/** The installation's latest recoveries, newest first. */
export async function listRecoveries(ctx: ServiceContext, principal: Principal, installationId: string) {
  await authorizedInstallation(ctx, principal, installationId);
  const rows = await recoveries.latestRecoveries(ctx.db, installationId, 20);
  return rows.map(recoveryView);
}

export interface RecoveryRunnerOptions {
  ctx: ServiceContext;
  logger?: Logger | undefined;
  /** How long a claim holds without renewal (each batch renews it). */
  leaseMs?: number;
  /** How often to look for jobs nobody works (another node's, after its lease ended). */
  pollMs?: number;
  /** Deliveries redelivered per transaction. */
  batch?: number;
  /** Told after each batch commits, with the job's progress. */
  onBatch?: (progress: RecoveryView) => void;
}

/** After this many failures in a row, a job ends `failed` with the last error. */
const MAX_FAILURES = 5;

/** Works the running recoveries, one at a time on this node. */
export class RecoveryRunner {
  private readonly loop: WakeLoop;
  private stopped = true;
  private readonly failures = new Map<string, number>();
  /** The job this node works, as last written (its lease renews with each batch). */
  private holding: Row | undefined;

  constructor(private readonly options: RecoveryRunnerOptions) {
    this.loop = new WakeLoop(
      () => this.pass(),
      () => options.pollMs ?? 5000,
      (error) => options.logger?.warn({ err: error }, 'recoveries: a pass failed; it runs again'),
    );
  }

  start(): void {
    this.stopped = false;
    this.loop.start();
  }

  /** A job was started: look at once. */
  wake(): void {
    this.loop.wake();
  }

  /** Stops after the batch in progress; the job it worked is given back (the next claim takes it at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  private get leaseMs() {
    return this.options.leaseMs ?? 30_000;
  }

  /** Claims and works jobs until none is left to claim. */
  private async pass(): Promise<void> {
    for (let job = await this.claim(); job !== undefined && !this.stopped; job = await this.claim()) {
      this.holding = job;
      try {
        await this.work(job);
        this.failures.delete(job.id);
      } catch (error) {
        if (error instanceof LeaseLost) continue;
        const failures = (this.failures.get(job.id) ?? 0) + 1;
        this.failures.set(job.id, failures);
        const message = (error as Error).message;
        this.options.logger?.warn({ err: error, recovery: job.id }, 'recoveries: a batch failed');
        const held = this.holding ?? job;
        await this.release(
          held,
          failures >= MAX_FAILURES ? `stopped after ${failures} failures: ${message}` : undefined,
        );
        if (failures < MAX_FAILURES) return;
      } finally {
        this.holding = undefined;
      }
    }
  }

  /** The oldest running job nobody holds, claimed with a lease. */
  private async claim(): Promise<Row | undefined> {
    const { ctx } = this.options;
    if (this.stopped) return undefined;
    const now = ctx.now();
    const lease = now + this.leaseMs;
    return recoveries.claimRecovery(ctx.db, ctx.dialect, now, lease);
  }

  private async work(job: Row): Promise<void> {
    const { ctx } = this.options;
    let current = job;
    const batch = this.options.batch ?? 100;
    while (!this.stopped) {
      const installation = await recoveries.installationLeft(ctx.db, current.installation_id);
      if (!installation) return this.finish(current, 'failed', 'the installation was removed');
      const rows = await recoveries.owedBatch(ctx.db, current, batch);
      if (rows.length === 0) return this.finish(current, 'done');
      const now = ctx.now();
      const redeliveries: Database['deliveries'][] = [];
      let errors = 0;
      let lastError = current.last_error;
      for (const row of rows) {
        const endpoint = await currentEndpointOf(ctx, row);
        if (endpoint.disabled_at !== null) {
          errors++;
          lastError = `${row.id} was not redelivered: its endpoint ${endpoint.url} is disabled (${endpoint.disabled_reason ?? 'it kept failing'}); enable it, then recover again`;
        } else {
          redeliveries.push(redeliveryOf(row, endpoint, now));
        }
      }
      const last = rows.at(-1) as Database['deliveries'];
      const next: Row = {
        ...current,
        done: current.done + redeliveries.length,
        errors: current.errors + errors,
        last_error: lastError,
        cursor_created_at: last.created_at,
        cursor_id: last.id,
        claimed_until: now + this.leaseMs,
        updated_at: now,
      };
      await recoveries.saveBatch(ctx.db, current, next, redeliveries, now);
      current = next;
      this.holding = next;
      this.options.onBatch?.(recoveryView(next));
      if (redeliveries.length > 0) ctx.deliveries.wake();
      // Other work of this process goes first between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.release(current);
  }

  private async finish(job: Row, status: 'done' | 'failed', error?: string): Promise<void> {
    const { ctx } = this.options;
    const now = ctx.now();
    await recoveries.finishRecovery(ctx.db, job, status, error, now);
  }

  /** Gives a job back (the next claim, here or on another node, takes it), or ends it failed. */
  private async release(job: Row, failure?: string): Promise<void> {
    if (failure !== undefined) return this.finish(job, 'failed', failure);
    await recoveries.releaseRecovery(this.options.ctx.db, job);
  }
}
