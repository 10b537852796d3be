/**
 * The dispatcher: works through what the outbox owes integrations, on the scheduler's keyed pool
 * (queue/keyed-pool.ts). It says only what its work and its keys are:
 *
 * - **Work**: an outbox row this node has claimed with a lease, dispatched by `dispatch-owed.ts`.
 * - **Turns**: the installation. Installations with rows waiting take turns at free slots.
 * - **Slots**: a dispatch in flight holds a slot of its installation and of its integration (the
 *   integration's cap is 1 while its circuit breaker lets a probe through, 0 while it is open).
 *
 * Events are routed (routing.ts) in the transaction that stores them, on both back ends, while a
 * dispatcher runs on the node: the rows this node can take are written claimed by it and join the
 * pool when that transaction commits (`intake.route`). Events stored while none ran are routed by
 * the loop, the same way. Claims find the rest: setup events, rows over the hold, retries, another
 * node's rows whose lease ran out. An installation's setup events go out one at a time and in
 * order, and nothing overtakes them. An integration whose worker keeps timing out or crashing is
 * backed off by a circuit breaker: its owed rows wait with growing delay, written to the rows.
 */
import type { PlatformEvent } from '@portico/runtime';
import type { Logger } from 'pino';
import { LeaseLost } from '../errors/lease-lost.js';
import { handOver } from '../events/fan-out.js';
import { ROUTE_BATCH, routeStoredEvents } from '../events/route-stored.js';
import { owedRows } from '../events/routing.js';
import type { HostKind, HostResponse } from '../hosts/host.js';
import type { PipelineTracing } from '../observability/tracing.js';
import { Backlog } from '../queue/backlog.js';
import { InFlight } from '../queue/in-flight.js';
import { KeyedPool } from '../queue/keyed-pool.js';
import { LeaseRenewal } from '../queue/lease-renewal.js';
import { Together } from '../queue/together.js';
import { WakeLoop } from '../queue/wake-loop.js';
import type { NewOutboxRow, OutboxRow, Settled } from '../storage/repositories/outbox.js';
import * as outbox from '../storage/repositories/outbox.js';
import type { Database } from '../storage/schema.js';
import type { DispatchGrant, EventRouting, RoutableEvent, ServiceContext } from '../types.js';
import { callIntegration } from './call-integration.js';
import { CircuitBreakers } from './circuit-breaker.js';
import { dispatchOwed, type OwedSettings } from './dispatch-owed.js';
import { type Hosts, IntegrationRegistry } from './integration-registry.js';

/** Most rows one claim takes. */
const CLAIM_LIMIT = 256;
/** Rows waiting in memory on one node, whatever the installations (times `hold`: 1,024; one installation may have more than its `hold` while the node holds fewer than half of them, Backlog). */
const HOLD_INSTALLATIONS = 16;

export interface DispatcherOptions {
  ctx: ServiceContext;
  hosts: Hosts;
  logger?: Logger | undefined;
  /** How often other nodes' work and retries are looked for (default 500 ms). */
  pollMs?: number;
  /** How long a claimed row stays with this node (default 30 s). */
  leaseMs?: number;
  /** How long a dispatch takes the installation's waiting rows along (default 250 ms: decision 039). */
  joinMs?: number;
  /** Attempts before a dispatch is given up (default 5). */
  maxAttempts?: number;
  /** Dispatches in flight on this node (default 64). */
  concurrency?: number;
  /** Dispatches in flight per integration (default 16). */
  perIntegration?: number;
  /** Dispatches in flight per installation (default 8). */
  perInstallation?: number;
  /** Owed rows an installation may have waiting in this node's memory (default 64). */
  hold?: number;
  /** Circuit breaker: timeouts or crashes in a row before an integration is backed off (default 3). */
  breakerThreshold?: number;
  /** Circuit breaker: the first wait, doubled at each failed probe (default 1 s, at most 5 min). */
  breakerDelayMs?: number;
  /** The `env` of an in-process integration for an event dispatch, acting with the dispatch's grant. */
  bindingsFor?: (grant: DispatchGrant) => Record<string, unknown>;
  /** Counts settled dispatches (observability/metrics.ts). */
  metrics?: { dispatchSettled(outcome: string): void } | undefined;
  /** Traces routing and dispatches (observability/tracing.ts); unset when tracing is off. */
  tracing?: Pick<PipelineTracing, 'routedLater' | 'dispatching'> | undefined;
}

export class Dispatcher {
  readonly registry: IntegrationRegistry;
  private readonly ctx: ServiceContext;
  private readonly owed: OwedSettings;
  private readonly breakers: CircuitBreakers;
  private readonly pool: KeyedPool<OutboxRow>;
  private readonly loop: WakeLoop;
  private readonly leaseMs: number;
  private readonly inFlight = new InFlight();
  /** Which installations have rows left unclaimed in the database, and whether unknown ones may wait. */
  private readonly backlog: Backlog<OutboxRow>;
  private running = false;
  /** When a claim last looked at every installation's rows (`performance.now()`). */
  private lookedEverywhere = Number.NEGATIVE_INFINITY;
  /** Waiting rows keep their leases (a slow integration may keep its installations' rows waiting long). */
  private readonly renewal: LeaseRenewal<OutboxRow>;
  /** The outcomes of dispatches, written one write at a time, those that wait meanwhile together. */
  private readonly settles: Together<Settled & { row: OutboxRow }, Set<number>>;

  /** How ingest reaches the dispatcher (server.ts wires it into the service context). */
  readonly intake = {
    /** New work is in the outbox (or, with 'events', events wait to be routed). */
    wake: (what?: 'events') => {
      if (what !== 'events') this.backlog.lookAgain();
      this.loop.wake();
    },
    /** Decides the routing of events being stored; undefined while no dispatcher runs here (they are stored unrouted). */
    route: async (events: RoutableEvent[], now: number): Promise<EventRouting | undefined> =>
      this.running ? this.routing(events, now) : undefined,
  };

  constructor(private readonly options: DispatcherOptions) {
    this.ctx = options.ctx;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.registry = new IntegrationRegistry(options.ctx, options.hosts, options.logger);
    this.breakers = new CircuitBreakers({
      now: () => this.ctx.now(),
      ...(options.breakerThreshold !== undefined ? { threshold: options.breakerThreshold } : {}),
      ...(options.breakerDelayMs !== undefined ? { baseDelayMs: options.breakerDelayMs } : {}),
    });
    this.settles = new Together((rows) =>
      this.ctx.write((trx) => outbox.settleOwned(trx, this.ctx.dialect, rows), { standalone: true }),
    );
    this.owed = {
      ctx: options.ctx,
      registry: this.registry,
      bindingsFor: options.bindingsFor,
      leaseMs: this.leaseMs,
      joinMs: options.joinMs ?? 250,
      maxAttempts: options.maxAttempts ?? 5,
      settled: options.metrics && ((outcome) => options.metrics?.dispatchSettled(outcome)),
      tracing: options.tracing && ((row) => options.tracing?.dispatching(row)),
      logger: options.logger,
      // Dispatches that end while another's outcomes are being written share the next write.
      settle: (rows) => this.settles.run(rows),
      workerAnswered: (integration) => this.breakers.succeeded(integration),
      workerFailed: async (integration, cause, row) => {
        const opened = this.breakers.failed(integration);
        if (opened) await this.backOff(integration, opened.until, opened.delayMs, opened.failures, cause);
        if (opened && row) this.ctx.alerts?.circuitOpened({ integration, ...opened, cause, row });
        return opened;
      },
    };
    const perInstallation = options.perInstallation ?? 8;
    const perIntegration = options.perIntegration ?? 16;
    this.pool = new KeyedPool<OutboxRow>({
      concurrency: options.concurrency ?? 64,
      turnOf: (row) => row.installation_id,
      slotsOf: (row) => [`i ${row.installation_id}`, `g ${row.integration_name}`],
      capOf: (slot) => {
        if (slot.startsWith('i ')) return perInstallation;
        const state = this.breakers.state(slot.slice(2));
        return state === 'closed' ? perIntegration : state === 'half-open' ? 1 : 0;
      },
      run: (row) => this.run(row),
      idOf: (row) => row.id,
    });
    this.renewal = new LeaseRenewal({
      pool: this.pool,
      every: this.leaseMs / 4,
      leaseMs: this.leaseMs,
      now: () => this.ctx.now(),
      leaseOf: (row) => row.claimed_until ?? 0,
      renewBefore: (until, now) => until - now < this.leaseMs / 2,
      move: (rows, lease) => this.ctx.write((trx) => outbox.moveLeases(trx, rows, lease)),
      idOf: (row) => row.id,
      setLease: (row, lease) => {
        row.claimed_until = lease;
      },
      logger: options.logger,
      what: 'owed rows',
    });
    this.backlog = new Backlog(this.pool, options.hold ?? 64, HOLD_INSTALLATIONS);
    this.loop = new WakeLoop(
      async () => {
        const route = (events: RoutableEvent[], now: number) => this.routing(events, now);
        while ((await routeStoredEvents(this.ctx, route, options.tracing)) === ROUTE_BATCH && !this.loop.isStopped) {}
        // At least every `pollMs` a claim looks at everything (another node's rows, leases that ran out).
        const everywhere = performance.now() - this.lookedEverywhere >= (options.pollMs ?? 500);
        if (!everywhere && !this.backlog.worthClaiming()) return;
        while ((await this.claim(everywhere)) && !this.loop.isStopped) {}
      },
      () => options.pollMs ?? 500,
      (error) => options.logger?.error({ err: error }, 'dispatch pass failed'),
    );
  }

  /** Started and not stopped (readiness). */
  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    this.running = true;
    this.renewal.start();
    this.loop.start();
  }

  /**
   * Stops claiming and waits for the dispatches in flight, at most `graceMs` (then the caller
   * closes the hosts, which ends the rest; their rows stay owed and go out again).
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.running = false;
    await this.loop.stop();
    await this.renewal.stop();
    // Waiting rows go back to the database at once (other nodes, or the next start, take them).
    await this.release(this.pool.drain());
    await this.inFlight.settled(graceMs);
  }

  /** Runs a pass now (or right after the one running). */
  wake(): void {
    this.loop.wake();
  }

  bundle(name: string, version?: number) {
    return this.registry.bundle(name, version);
  }

  describe(bundle: Parameters<IntegrationRegistry['describe']>[0]) {
    return this.registry.describe(bundle);
  }

  /** Sends one event to one installation now, records the dispatch, and answers the integration's response. */
  async send(
    installation: Database['installations'],
    event: PlatformEvent,
    body?: Uint8Array,
  ): Promise<HostResponse & { host: HostKind }> {
    const called = await callIntegration(this.owed, installation, event, body);
    await this.ctx.write((trx) => outbox.recordDispatch(trx, called.record));
    if (called.error !== undefined) throw called.error;
    return { ...called.answer, host: called.host };
  }

  /**
   * Decides the outbox rows of events; the caller writes them with the events (or as it marks them
   * routed), and says how it ended. The rows this node takes are written claimed, their places in
   * the pool reserved until then.
   */
  private async routing(events: RoutableEvent[], now: number): Promise<EventRouting> {
    const { owed, deliveries, setupOwed } = await owedRows(this.ctx, this.registry, events, now);
    const rows = owed.flatMap((o) => o.rows);
    let taken = this.take(rows, setupOwed, now);
    const unreserve = () => {
      for (const row of taken) this.pool.unreserve(row.installation_id);
      taken = [];
    };
    const handed = handOver(this.ctx, deliveries);
    return {
      rows,
      deliveries: deliveries.map((d) => d.row),
      failed: () => {
        unreserve();
        handed.failed();
      },
      committed: (ids, stored) => {
        handed.committed(stored);
        const written = taken.flatMap((row) => {
          const id = ids.get(outbox.owedKey(row));
          return id === undefined ? [] : [{ ...row, id, attempts: 0, available_at: 0 } as OutboxRow];
        });
        // Rows left for a claim (not taken, not settled at routing), marked again now that they
        // are committed: a claim that committed meanwhile may not have seen them, and would have
        // cleared the mark `take` made (as the delivery engine's hand-over does).
        const left = rows.filter(
          (row) => row.claimed_until == null && !outbox.settledAtRouting(row) && ids.has(outbox.owedKey(row)),
        );
        for (const row of left) this.backlog.leftFor(row.installation_id);
        unreserve();
        if (this.running) this.pool.add(written);
        else void this.release(written);
        // The loop claims them.
        if (left.length > 0) this.loop.wake();
      },
    };
  }

  /**
   * Marks the routed rows this node takes (`claimed_until` set, a place in the pool reserved): not
   * those of an installation owed a setup event when routing read it, or with rows left unclaimed
   * (they would overtake them), of an integration backed off, or beyond the installation's hold.
   */
  private take(rows: NewOutboxRow[], setupOwed: Set<string>, now: number): NewOutboxRow[] {
    if (!this.running || rows.length === 0) return [];
    const taken: NewOutboxRow[] = [];
    const lease = now + this.leaseMs;
    for (const row of rows) {
      // Settled at routing (an installation paused: skipped), nothing to dispatch.
      if (outbox.settledAtRouting(row)) continue;
      const id = row.installation_id;
      if (setupOwed.has(id) || this.breakers.state(row.integration_name) !== 'closed') {
        this.backlog.leftFor(id);
        continue;
      }
      if (!this.backlog.mayTake(id)) continue;
      this.pool.reserve(id);
      row.claimed_until = lease;
      taken.push(row);
    }
    return taken;
  }

  /**
   * Claims owed rows into the pool, at most `hold` waiting per installation. Unless it must look
   * `everywhere`, and while this node knows what waits and no integration is backed off, it reads
   * only the rows of installations it left rows of (`Backlog.targets`), each up to its room.
   * Answers whether another claim may find more.
   */
  private async claim(everywhere: boolean): Promise<boolean> {
    const room = this.backlog.room;
    if (room <= 0) return false;
    const now = this.ctx.now();
    // Rows of an integration backed off wait; one that may be probed gets one row while none is in flight.
    const backedOff = this.breakers
      .tripped()
      .filter(([name, state]) => state === 'open' || this.pool.underWayOf(`g ${name}`) >= 1)
      .map(([name]) => name);
    const targets = everywhere || backedOff.length > 0 ? undefined : this.backlog.targets();
    if (targets) return this.claimTargets(targets, now);
    this.lookedEverywhere = performance.now();
    const full = this.backlog.full();
    const marked = this.backlog.readingNow();
    const limit = Math.min(CLAIM_LIMIT, room);
    const claim = await this.ctx.write(async (trx) => {
      const found = await outbox.claimable(trx, this.ctx.dialect, {
        now,
        limit,
        installations: full,
        integrations: backedOff,
      });
      // (A row whose lease ran out while it waits here, its renewal late, stays this node's.)
      const { taken, skipped } = this.backlog.take(
        found.filter((row) => !this.pool.has(row.id)),
        (row) => row.installation_id,
      );
      await outbox.claim(trx, taken, now + this.leaseMs);
      return { taken, skipped, complete: found.length < limit };
    });
    this.backlog.claimed({ ...claim, full }, marked);
    this.pool.add(claim.taken);
    return claim.taken.length > 0 && !claim.complete;
  }

  /** A claim of the rows of `targets` (installation → its room) only. */
  private async claimTargets(targets: Map<string, number>, now: number): Promise<boolean> {
    const marked = this.backlog.readingNow();
    const claim = await this.ctx.write(async (trx) => {
      const taken: OutboxRow[] = [];
      const found = new Map<string, number>();
      for (const [installation, room] of targets) {
        const rows = await outbox.claimable(trx, this.ctx.dialect, {
          now,
          limit: room,
          installations: [],
          integrations: [],
          of: installation,
        });
        found.set(installation, rows.length);
        taken.push(...rows.filter((row) => !this.pool.has(row.id)));
      }
      await outbox.claim(trx, taken, now + this.leaseMs);
      return { taken, found };
    });
    this.backlog.claimedTargets(targets, claim.found, marked);
    this.pool.add(claim.taken);
    return false;
  }

  /**
   * Dispatches a row the pool started (its slots taken), then the event rows waiting next for the
   * same installation as it hands them over (`dispatchOwed`): they run in its slots, one after
   * another, while the dispatcher runs and the integration's breaker is closed (so a stop or a
   * back-off finds them waiting, and takes them). Setup events go alone, in order.
   */
  private run(row: OutboxRow): void {
    const along: OutboxRow[] = [];
    const next =
      row.event_id === null
        ? undefined
        : () => {
            if (!this.running || this.breakers.state(row.integration_name) !== 'closed') return;
            const taken = this.pool.takeNext(row, (waiting) => waiting.event_id !== null);
            if (taken) along.push(taken);
            return taken;
          };
    const dispatch = dispatchOwed(this.owed, row, next)
      .catch((error) => {
        if (error instanceof LeaseLost) this.options.logger?.warn({ outbox: row.id }, error.message);
        else this.options.logger?.error({ err: error, outbox: row.id }, 'dispatch failed');
      })
      .finally(() => {
        this.pool.finished(row, along);
        if (this.backlog.worthClaiming()) this.loop.wake();
      });
    this.inFlight.add(dispatch);
  }

  /** Gives rows back unclaimed, where this node still holds their lease. */
  private async release(rows: OutboxRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ctx
      .write((trx) => outbox.release(trx, rows))
      .catch((error) =>
        this.options.logger?.warn({ err: error }, 'could not release owed rows; they come back when their lease ends'),
      );
  }

  /**
   * The circuit breaker opened for `integration`: what waits here for it goes back, every row owed
   * to it waits until `until` (on every node), and each installation owed one is told why.
   */
  private async backOff(integration: string, until: number, delayMs: number, failures: number, cause: string) {
    const now = this.ctx.now();
    const reason = `waiting: the worker of ${integration} failed ${failures} times in a row (last: ${cause}); its events wait ${delayMs / 1000} s, until ${new Date(until).toISOString()} (circuit breaker)`;
    this.options.logger?.warn({ integration, until, failures }, 'circuit breaker opened');
    const waiting = this.pool.take((row) => row.integration_name === integration);
    await this.ctx.db.transaction().execute(async (trx) => {
      await outbox.release(trx, waiting);
      await outbox.backOff(trx, integration, until, reason, now);
    });
  }
}
