/**
 * The delivery engine: works each delivery until it is `delivered` or `failed`, on the scheduler's
 * keyed pool (queue/keyed-pool.ts). It says only what its work and its keys are:
 *
 * - **Work**: a delivery row this node has claimed with a lease (`claimed_until`), in memory until
 *   it ends. Its attempt is `attempt.ts`: sign, POST, classify, write the result.
 * - **Turns**: the endpoint (installation + URL). Endpoints with deliveries waiting take turns at
 *   free slots, so one endpoint never holds up the others of its host (DESIGN.md "Isolation").
 * - **Rates**: an endpoint with a rate limit starts no more deliveries per second than it says
 *   (bursts of one second's worth), read again at most every `pollMs`; its retries are not held back.
 * - **Slots**: a delivery under way (in flight, or waiting for its retry) holds a slot of its
 *   endpoint (an adaptive limit: it halves down to 1 when attempts time out or fail at the network
 *   level, and grows back by one per success), of its destination host (scheme, host, port: the
 *   cap that bounds connections to a receiver) and of its installation. Once started, its retries
 *   never wait for a slot, so they keep their 1.0–1.1, 2.0–2.2 and 4.0–4.4 s windows.
 *
 * Work reaches the engine two ways. A delivery asked for on this node is handed over (`intake`):
 * inserted already claimed by this node, and added to the pool once its insert commits. Claims
 * (the wake loop) find the rest: deliveries asked for while the pool was full, redeliveries,
 * another node's work whose lease ran out, retries given back when a node stopped. What waits in
 * the pool keeps its lease renewed; stopping gives it back. Caps count this node's work: with
 * several nodes, a host sees at most nodes × its cap (decision 031).
 */
import type { Logger } from 'pino';
import { isAlertsInstallation } from '../alerts/operator-alerts.js';
import { LeaseLost } from '../errors/lease-lost.js';
import type { PlatformMetrics } from '../observability/metrics.js';
import type { PipelineTracing } from '../observability/tracing.js';
import { AdaptiveLimits } from '../queue/adaptive-limits.js';
import { Backlog } from '../queue/backlog.js';
import { InFlight } from '../queue/in-flight.js';
import { KeyedPool } from '../queue/keyed-pool.js';
import { LeaseRenewal } from '../queue/lease-renewal.js';
import { WakeLoop } from '../queue/wake-loop.js';
import type { DeliveryRow } from '../storage/repositories/delivery-queue.js';
import * as queue from '../storage/repositories/delivery-queue.js';
import * as endpoints from '../storage/repositories/endpoints.js';
import * as signingSecrets from '../storage/repositories/signing-secrets.js';
import type { DeliveryIntake, DeliveryTarget, Handoff, ServiceContext } from '../types.js';
import { type AttemptSettings, attemptDelivery } from './attempt.js';

/** Most rows one claim takes. */
const CLAIM_LIMIT = 256;
/**
 * Deliveries waiting in memory on one node, whatever the endpoints (times `hold`: 4,096). One
 * endpoint may have more than its `hold` while the node holds less than half of them (Backlog), so
 * two batches of 1,000 events to one endpoint are handed over whole, with no claim (decision 060).
 */
const HOLD_ENDPOINTS = 64;

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
  /** Deliveries under way per destination host (default 16). */
  perDestination?: number;
  /** Deliveries under way per endpoint at most, once it has shown it answers (default 8; it starts at 2). */
  perEndpoint?: number;
  /** Deliveries under way per installation (default 16). */
  perInstallation?: number;
  /** Deliveries an endpoint may have waiting in this node's memory (default 64; more while the node holds less than half its bound). */
  hold?: number;
  /** An endpoint that failed every attempt for this long is disabled (default 5 days). */
  disableAfterMs?: number;
  /** Longest sleep between looks, for other nodes' work and expired leases (default 1 s). */
  pollMs?: number;
  random?: () => number;
  /** The clock (Unix ms; default the service clock), controllable in tests. */
  now?: () => number;
  logger?: Logger | undefined;
  /** Counts attempts and ended deliveries (observability/metrics.ts). */
  metrics?: Pick<PlatformMetrics, 'attempted'> | undefined;
  /** Traces attempts (observability/tracing.ts); unset when tracing is off. */
  tracing?: Pick<PipelineTracing, 'attempting'> | undefined;
  /** Each attempt carries its span's W3C `traceparent` (PORTICO_DELIVERY_TRACEPARENT). */
  sendTraceparent?: boolean;
}

/** A delivery in the pool, with the sealed secrets read when it was asked for (they sign its first attempt). */
interface Job {
  row: DeliveryRow;
  sealedSecrets?: string[] | undefined;
}

const endpointKey = (row: DeliveryRow) => row.endpoint_id ?? `${row.installation_id} ${row.url}`;
/** Whether a turn key is an endpoint's id (rows from before schema 4 may have none: their key is not). */
const isEndpointId = (turn: string) => !turn.includes(' ');

export class DeliveryEngine {
  private readonly ctx: ServiceContext;
  private readonly now: () => number;
  private readonly attempts: AttemptSettings;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /** When a claim last looked at every endpoint's work (the engine's clock). */
  private lookedEverywhere = Number.NEGATIVE_INFINITY;
  private readonly limits: AdaptiveLimits;
  /** Endpoints' rate limits (deliveries per second), read again by a claim every `pollMs`. */
  private rates = new Map<string, number>();
  private ratesReadAt = Number.NEGATIVE_INFINITY;
  private readonly pool: KeyedPool<Job>;
  private readonly loop: WakeLoop;
  /** Attempts running now. */
  private readonly inFlight = new InFlight();
  /** Which endpoints have deliveries left unclaimed in the database, and whether unknown ones may wait. */
  private readonly backlog: Backlog<Job>;
  private readonly metrics: DeliveryEngineOptions['metrics'];
  private readonly tracing: DeliveryEngineOptions['tracing'];
  private readonly sendTraceparent: boolean;
  private running = false;
  /** Waiting deliveries keep their leases (a host at its cap may keep them waiting long). */
  private readonly renewal: LeaseRenewal<Job>;

  /** How deliveries asked for on this node reach the engine (server.ts gives it to the delivery service). */
  readonly intake: DeliveryIntake = {
    wake: () => this.wake(),
    offer: (target) => this.offer(target),
    paced: (endpointId, rate) => {
      if (rate === null) this.rates.delete(endpointId);
      else this.rates.set(endpointId, rate);
      // (A limit raised or removed may let waiting deliveries start now.)
      this.wake();
    },
  };

  constructor(options: DeliveryEngineOptions) {
    this.ctx = options.ctx;
    this.metrics = options.metrics;
    this.tracing = options.tracing;
    this.sendTraceparent = options.sendTraceparent ?? false;
    this.now = options.now ?? (() => options.ctx.now());
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.leaseMs = options.leaseMs ?? timeoutMs + 20_000;
    this.pollMs = options.pollMs ?? 1000;
    this.attempts = {
      ctx: options.ctx,
      userAgent: options.userAgent,
      allowPrivateNetwork: options.allowPrivateNetwork,
      timeoutMs,
      leaseMs: this.leaseMs,
      disableAfterMs: options.disableAfterMs ?? 5 * 24 * 60 * 60 * 1000,
      now: this.now,
      random: options.random,
      logger: options.logger,
    };
    const perDestination = options.perDestination ?? 16;
    const perInstallation = options.perInstallation ?? 16;
    this.limits = new AdaptiveLimits({ initial: 2, max: options.perEndpoint ?? 8 });
    this.pool = new KeyedPool<Job>({
      concurrency: options.concurrency ?? 64,
      turnOf: (job) => endpointKey(job.row),
      slotsOf: (job) => [`e ${endpointKey(job.row)}`, `h ${job.row.destination ?? ''}`, `i ${job.row.installation_id}`],
      capOf: (slot) =>
        slot.startsWith('e ')
          ? this.limits.of(slot.slice(2))
          : slot.startsWith('h ')
            ? perDestination
            : perInstallation,
      run: (job) => this.run(job),
      idOf: (job) => job.row.id,
      rateOf: (turn) => this.rates.get(turn),
      now: () => this.now(),
    });
    this.renewal = new LeaseRenewal({
      pool: this.pool,
      every: this.leaseMs / 4,
      leaseMs: this.leaseMs,
      now: () => this.now(),
      leaseOf: (job) => job.row.claimed_until ?? 0,
      // A delivery may start just before its lease would be renewed: it keeps an attempt's time.
      renewBefore: (until, now) => until - now < timeoutMs + this.leaseMs / 2,
      move: (jobs, lease) =>
        this.ctx.write((trx) =>
          queue.moveLeases(
            trx,
            jobs.map((job) => job.row),
            lease,
          ),
        ),
      idOf: (job) => job.row.id,
      setLease: (job, lease) => {
        job.row.claimed_until = lease;
      },
      logger: options.logger,
      what: 'deliveries',
    });
    this.backlog = new Backlog(this.pool, options.hold ?? 64, HOLD_ENDPOINTS);
    this.loop = new WakeLoop(
      async () => {
        while ((await this.claim()) && !this.loop.isStopped) {}
      },
      () => this.untilNextDue(this.pollMs),
      (error) => options.logger?.error({ err: error }, 'delivery pass failed'),
    );
  }

  /** Started and not stopped (readiness). */
  get isRunning(): boolean {
    return this.running;
  }

  /** Deliveries held in this node's memory: waiting for a slot, and attempts in flight (metrics). */
  get held(): { waiting: number; attempting: number } {
    return { waiting: this.pool.waiting, attempting: this.inFlight.size };
  }

  start(): void {
    this.running = true;
    this.renewal.start();
    this.loop.start();
  }

  /** Stops claiming, gives back what waits (for a slot or a retry), and lets the attempts in flight finish. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop.stop();
    await this.renewal.stop();
    const waiting = this.pool.drain();
    await this.giveBack(waiting.map((job) => job.row));
    await this.inFlight.settled();
  }

  /** Deliveries may wait unclaimed in the database (a redelivery, a recovery): look for them. */
  wake(): void {
    this.backlog.lookAgain();
    this.loop.wake();
  }

  /** Claims what is due and waits for the attempts it started (tests drive the engine with this and a clock). */
  runDue(): Promise<number> {
    return this.inFlight.startedBy(() => this.claim());
  }

  /** See `DeliveryIntake.offer`: a delivery asked for here is taken claimed while its endpoint's hold has room. */
  private offer(target: DeliveryTarget): Handoff | undefined {
    if (!this.running) return undefined;
    const turn = target.endpointId;
    // Nothing overtakes deliveries of its endpoint that wait unclaimed (or may).
    if (!this.backlog.mayTake(turn)) {
      return {
        lease: null,
        start: () => {
          // (A claim may have run before the insert committed.)
          this.backlog.leftFor(turn);
          if (this.backlog.worthClaiming()) this.loop.wake();
        },
        cancel: () => {},
      };
    }
    this.pool.reserve(turn);
    let open = true;
    const close = () => {
      if (open) this.pool.unreserve(turn);
      const was = open;
      open = false;
      return was;
    };
    return {
      lease: this.now() + this.leaseMs,
      start: (row, sealedSecrets) => {
        if (!close()) return;
        if (this.running) this.pool.add([{ row, sealedSecrets }]);
        else void this.giveBack([row]);
      },
      cancel: close,
    };
  }

  /** Runs an attempt of a delivery the pool started (its slots taken). */
  private run(job: Job): void {
    const { row } = job;
    const endpoint = endpointKey(row);
    const traced = this.tracing?.attempting(row);
    const attempt = attemptDelivery(this.attempts, row, {
      keepClaimed: this.running,
      sealedSecrets: job.sealedSecrets,
      traceparent: this.sendTraceparent ? traced?.traceparent() : undefined,
    })
      .then(async (result) => {
        job.sealedSecrets = undefined;
        this.metrics?.attempted(
          row.event_id,
          result.post,
          result.status,
          this.now(),
          isAlertsInstallation(row.installation_id) ? 'alert' : 'customer',
        );
        traced?.attempted(result);
        if (result.unanswered) this.limits.failed(endpoint);
        else if (result.status === 'delivered') this.limits.succeeded(endpoint);
        // What waits here for an endpoint this attempt disabled has ended failed in the database.
        if (result.disabledEndpoint) this.pool.take((other) => endpointKey(other.row) === endpoint);
        // Failed for good (never on a success): the operator's alert, in the background.
        if (result.status === 'failed') this.ctx.alerts?.deliveryEnded(row.id, result.disabledEndpoint);
        // So did every delivery the endpoint's disabling ended: each is said, as any failed one.
        for (const id of result.endedByDisabling) this.ctx.alerts?.deliveryEnded(id, false);
        if (result.status === 'pending' && row.claimed_until !== null) {
          if (this.running) return this.pool.retryAt(job, result.next as number, this.now());
          // Stopped meanwhile: the retry goes back for any node's claim.
          await this.giveBack([row]);
        }
        this.done(job);
      })
      .catch((error) => {
        traced?.failed(error);
        this.done(job);
        if (error instanceof LeaseLost) this.attempts.logger?.warn({ delivery: row.id }, error.message);
        else this.attempts.logger?.error({ err: error, delivery: row.id }, 'delivery attempt failed');
      })
      .finally(() => {
        if (this.backlog.worthClaiming()) this.loop.wake();
      });
    this.inFlight.add(attempt);
  }

  private done(job: Job): void {
    this.pool.finished(job);
    const endpoint = endpointKey(job.row);
    if (this.pool.underWayOf(`e ${endpoint}`) === 0 && this.pool.waitingOf(endpoint) === 0)
      this.limits.forget(endpoint);
  }

  /**
   * Claims due deliveries no node holds: retries start at once (they never wait for a slot), first
   * attempts join the pool, up to each endpoint's room (`Backlog`). While this node knows what waits
   * (`Backlog.targets`), a claim reads only the first attempts of endpoints it left work of, each up
   * to its room; at least every `pollMs` one looks at everything (another node's work, leases that
   * ran out). Answers whether another claim may find more.
   */
  private async claim(): Promise<boolean> {
    await this.readRates();
    const room = this.backlog.room;
    if (room <= 0) return false;
    const now = this.now();
    const since = now - this.lookedEverywhere;
    const targets = since >= 0 && since < this.pollMs ? this.backlog.targets() : undefined;
    if (targets && [...targets.keys()].every(isEndpointId)) return this.claimTargets(targets, now);
    this.lookedEverywhere = now;
    const full = this.backlog.full();
    const marked = this.backlog.readingNow();
    const limit = Math.min(CLAIM_LIMIT, room);
    const claim = await this.ctx.write(async (trx) => {
      const due = await queue.dueDeliveries(trx, this.ctx.dialect, {
        now,
        retries: limit,
        firsts: limit,
        leaveOut: full,
      });
      // (A row whose lease ran out while it waits here, its renewal late, stays this node's.)
      const retries = due.retries.filter((row) => !this.pool.has(row.id));
      const { taken, skipped } = this.backlog.take(
        due.firsts.filter((row) => !this.pool.has(row.id)),
        endpointKey,
      );
      await queue.claim(trx, [...retries, ...taken], now + this.leaseMs);
      return { retries, taken, skipped, complete: due.firsts.length < limit && due.retries.length < limit };
    });
    this.backlog.claimed({ ...claim, full }, marked);
    await this.started(claim.retries, claim.taken);
    return !claim.complete && claim.retries.length + claim.taken.length > 0;
  }

  /** A claim of due retries, and of the first attempts of `targets` (endpoint → its room) only. */
  private async claimTargets(targets: Map<string, number>, now: number): Promise<boolean> {
    const marked = this.backlog.readingNow();
    const limit = Math.min(CLAIM_LIMIT, this.backlog.room);
    const claim = await this.ctx.write(async (trx) => {
      const due = await queue.dueDeliveries(trx, this.ctx.dialect, { now, retries: limit, firsts: 0, leaveOut: [] });
      const retries = due.retries.filter((row) => !this.pool.has(row.id));
      const taken: DeliveryRow[] = [];
      const found = new Map<string, number>();
      for (const [endpointId, room] of targets) {
        const rows = await queue.waitingFor(trx, this.ctx.dialect, { now, endpointId, limit: room });
        found.set(endpointId, rows.length);
        taken.push(...rows);
      }
      await queue.claim(trx, [...retries, ...taken], now + this.leaseMs);
      return { retries, taken, found, more: due.retries.length === limit };
    });
    this.backlog.claimedTargets(targets, claim.found, marked);
    await this.started(claim.retries, claim.taken);
    return claim.more;
  }

  /**
   * Claimed rows go to work: retries at once, first attempts into the pool. Each first attempt signs
   * with its installation's valid secrets read now, once per installation for the whole claim, as a
   * delivery asked for here signs with those read with its dispatch (a retry reads them afresh).
   */
  private async started(retries: DeliveryRow[], firsts: DeliveryRow[]): Promise<void> {
    for (const row of retries) this.pool.force({ row });
    const secrets = new Map<string, string[]>();
    const now = this.ctx.now();
    for (const row of firsts) {
      if (secrets.has(row.installation_id)) continue;
      // (Should the read fail, each attempt reads them itself.)
      const rows = await signingSecrets.secretsOf.all(this.ctx.db, row.installation_id, now).catch(() => []);
      secrets.set(
        row.installation_id,
        rows.map((r) => r.secret),
      );
    }
    this.pool.add(firsts.map((row) => ({ row, sealedSecrets: secrets.get(row.installation_id) })));
  }

  /** The endpoints' rate limits as they are now (a person may have changed one on any node). */
  private async readRates(): Promise<void> {
    const now = this.now();
    const since = now - this.ratesReadAt;
    if (since >= 0 && since < this.pollMs) return;
    this.ratesReadAt = now;
    try {
      const rows = await endpoints.rateLimited(this.ctx.db);
      this.rates = new Map(rows.map((row) => [row.id, Number(row.rate_limit)]));
    } catch (error) {
      // (The limits read last stay until the next look.)
      this.attempts.logger?.warn({ err: error }, 'could not read the endpoints’ rate limits');
    }
  }

  private async giveBack(rows: DeliveryRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ctx
      .write((trx) => queue.letGo(trx, rows))
      .catch((error) =>
        this.attempts.logger?.warn(
          { err: error },
          'could not give deliveries back; they come back when their lease ends',
        ),
      );
  }

  /** How long to sleep: until the next retry no node holds is due, at most `pollMs` (other nodes' work, lapsed leases). */
  private async untilNextDue(pollMs: number): Promise<number> {
    const now = this.now();
    const due = await queue.nextRetryDue(this.ctx.db, now);
    return due === undefined ? pollMs : Math.min(Math.max(due - now, 5), pollMs);
  }
}
