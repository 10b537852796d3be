/**
 * The delivery engine: works through due deliveries until each is `delivered` or `failed`.
 * Rows are claimed with a lease longer than an attempt can take (PostgreSQL: FOR UPDATE SKIP
 * LOCKED), so several nodes share the work and a crashed node's deliveries come back once its
 * lease expires. Each attempt is signed afresh with every valid secret and classified by the
 * retry policy of `@portico/webhooks`: the first attempt, then retries after 1, 2 and 4 s
 * (+0–10 %), then `failed`. The scheduler sleeps until the next delivery is due, so retries
 * start inside their windows.
 */
import { classifyOutcome, MAX_ATTEMPTS, type Outcome, retryDelay, sign } from '@portico/webhooks';
import type { Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { ServiceContext } from '../services/context.js';
import { WakeLoop } from '../services/wake-loop.js';
import type { Database } from '../storage/schema.js';
import { postWebhook } from './post-webhook.js';
import { validSecrets } from './signing-secrets.js';

type Delivery = Selectable<Database['deliveries']>;

export interface DeliveryEngineOptions {
  ctx: ServiceContext;
  allowPrivateNetwork: boolean;
  userAgent: string;
  /** Total time one attempt may take (default 10 s). */
  timeoutMs?: number;
  /** How long a claim holds; longer than an attempt (default timeout + 20 s). */
  leaseMs?: number;
  /** Attempts in flight at once on this node (default 64). */
  concurrency?: number;
  /** Longest sleep between looks, for other nodes' work and expired leases (default 1 s). */
  pollMs?: number;
  random?: () => number;
  /** The clock (Unix ms; default the service clock), controllable in tests. */
  now?: () => number;
  logger?: Logger | undefined;
}

export class DeliveryEngine {
  private readonly ctx: ServiceContext;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: WakeLoop;

  constructor(private readonly options: DeliveryEngineOptions) {
    this.ctx = options.ctx;
    this.now = options.now ?? (() => options.ctx.now());
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.leaseMs = options.leaseMs ?? this.timeoutMs + 20_000;
    this.concurrency = options.concurrency ?? 64;
    this.loop = new WakeLoop(
      async () => {
        // Claim until this node is full or nothing more is due.
        while ((await this.claimAndStart()) && !this.loop.isStopped) {}
      },
      () => this.untilNextDue(),
      (error) => options.logger?.error({ err: error }, 'delivery pass failed'),
    );
  }

  start(): void {
    this.ctx.wakeDeliveries = () => this.loop.wake();
    this.loop.start();
  }

  /** Stops claiming, lets the attempts in flight finish (each ends by its timeout), and returns. */
  async stop(): Promise<void> {
    this.ctx.wakeDeliveries = () => {};
    await this.loop.stop();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  wake(): void {
    this.loop.wake();
  }

  /** Claims what is due now and waits for those attempts (tests drive the engine with this and a clock). */
  async runDue(): Promise<number> {
    const before = new Set(this.inFlight);
    await this.claimAndStart();
    const started = [...this.inFlight].filter((attempt) => !before.has(attempt));
    await Promise.allSettled(started);
    return started.length;
  }

  /** Claims due deliveries and starts their attempts; answers whether it filled every free slot. */
  private async claimAndStart(): Promise<boolean> {
    const room = this.concurrency - this.inFlight.size;
    if (room <= 0) return false;
    const now = this.now();
    const postgres = this.ctx.dialect === 'postgres';
    const claimed = await this.ctx.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('deliveries')
        .selectAll()
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .orderBy('next_attempt_at')
        .limit(room)
        .$if(postgres, (qb) => qb.forUpdate().skipLocked())
        .execute();
      if (rows.length > 0) {
        await trx
          .updateTable('deliveries')
          .set({ claimed_until: now + this.leaseMs })
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
      }
      return rows;
    });
    for (const row of claimed) {
      const attempt = this.attempt(row)
        .catch((error) => this.options.logger?.error({ err: error, delivery: row.id }, 'delivery attempt failed'))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.loop.wake();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length === room;
  }

  /** How long to sleep: until the next delivery is due, at most `pollMs` (for other nodes' work). */
  private async untilNextDue(): Promise<number> {
    const now = this.now();
    const next = await this.ctx.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('due'))
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .executeTakeFirst();
    const due = next?.due === null || next?.due === undefined ? undefined : Number(next.due);
    const poll = this.options.pollMs ?? 1000;
    return due === undefined ? poll : Math.min(Math.max(due - now, 0), poll);
  }

  private async attempt(row: Delivery): Promise<void> {
    const number = row.attempts + 1;
    const started = this.now();
    const secrets = await validSecrets(this.ctx, row.installation_id);
    const headers = {
      'content-type': 'application/json',
      'user-agent': this.options.userAgent,
      'x-platform-signature': await sign(secrets, row.body, Math.floor(started / 1000)),
      'x-platform-event-id': row.event_id,
      'x-platform-event-type': row.type,
      'x-platform-delivery-id': row.id,
      'x-platform-delivery-attempt': String(number),
    };
    const result = await postWebhook(row.url, headers, row.body, {
      timeoutMs: this.timeoutMs,
      allowPrivateNetwork: this.options.allowPrivateNetwork,
    });
    let outcome: Outcome;
    let error: string | null = null;
    let status: number | null = null;
    let excerpt: string | null = null;
    if (result.kind === 'refused') {
      outcome = 'fail';
      error = `refused: ${result.reason}`;
    } else if (result.kind === 'network') {
      outcome = classifyOutcome(result.error);
      error = result.error.message;
    } else {
      status = result.status;
      excerpt = result.excerpt;
      outcome = classifyOutcome(result.status);
      if (outcome !== 'delivered')
        error =
          status >= 300 && status < 400 ? `${status}: redirects are not followed` : `the receiver answered ${status}`;
    }
    const finished = this.now();
    const retry = outcome === 'retry' && number < MAX_ATTEMPTS;
    const next = retry ? finished + retryDelay(number, this.options.random) : null;
    const final = outcome === 'delivered' ? 'delivered' : retry ? 'pending' : 'failed';
    await this.ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('delivery_attempts')
        .values({
          delivery_id: row.id,
          number,
          at: started,
          status,
          duration_ms: Math.round(result.durationMs),
          error,
          response_excerpt: excerpt,
        })
        .execute();
      await trx
        .updateTable('deliveries')
        .set({
          attempts: number,
          status: final,
          next_attempt_at: next,
          claimed_until: null,
          last_error: final === 'failed' && outcome === 'retry' ? `gave up after ${number} attempts: ${error}` : error,
          updated_at: finished,
        })
        .where('id', '=', row.id)
        .execute();
    });
  }
}
