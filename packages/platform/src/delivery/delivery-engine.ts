/**
 * The delivery engine: works through due deliveries until each is `delivered` or `failed`.
 * Rows are claimed with a lease longer than an attempt can take (PostgreSQL: FOR UPDATE SKIP
 * LOCKED), so several nodes share the work and a crashed node's deliveries come back once its
 * lease expires. Each attempt is signed afresh with every valid secret and classified by the
 * retry policy of `@portico/webhooks`: the first attempt, then retries after 1, 2 and 4 s
 * (+0–10 %), then `failed`. The scheduler sleeps until the next delivery is due, so retries
 * start inside their windows.
 *
 * Isolation (DESIGN.md): a delivery is admitted to its first attempt only while its destination
 * (scheme, host, port) and its installation have fewer than their cap of deliveries under way (in
 * flight, or waiting for a retry), taking installations in turn; once admitted, its retries
 * never wait for a slot, so a slow or hanging receiver holds at most its share of the engine and
 * the retry windows stay exact. Every attempt updates its endpoint's health; an endpoint that
 * failed every attempt for long enough is disabled (endpoints.ts).
 *
 * Work made on this node skips the claim (decision 013): a delivery asked for here that would be
 * admitted at once (room, caps, and nothing admissible waiting before it) is inserted already
 * claimed by this node and started when its insert commits (`offer`); a delivery to retry stays
 * claimed and is attempted again by a timer when due. Claims find the rest: what waited for a
 * slot, what another node left when its lease ran out, and everything while this node is not
 * running. The caps count what the database says is under way, read at each claim, plus what
 * this node started or ended since.
 */
import { classifyOutcome, MAX_ATTEMPTS, type Outcome, retryDelay, sign } from '@portico/webhooks';
import type { Selectable, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { LeaseLost } from '../errors.js';
import { type Handoff, NO_DELIVERY_ENGINE, type ServiceContext } from '../services/context.js';
import { Counts } from '../services/counts.js';
import { WakeLoop } from '../services/wake-loop.js';
import { insertThenUpdate } from '../storage/insert-then-update.js';
import type { Database } from '../storage/schema.js';
import { endpointFor, recordAttempt } from './endpoints.js';
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
  /** Deliveries under way (in flight or waiting for a retry) per destination (default 16). */
  perDestination?: number;
  /** Deliveries under way per installation (default 16). */
  perInstallation?: number;
  /** An endpoint that failed every attempt for this long is disabled (default 5 days). */
  disableAfterMs?: number;
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
  private readonly perDestination: number;
  private readonly perInstallation: number;
  private readonly disableAfterMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: WakeLoop;
  private running = false;
  /** Deliveries handed over by `offer` whose insert has not committed yet. */
  private readonly reservations = new Set<{ installationId: string; destination: string }>();
  /** Deliveries under way per destination and per installation (the caps' counts). */
  private underWay = { destination: new Counts(), installation: new Counts() };
  /** Whether first attempts that could be admitted may be waiting in the database (offers wait behind them). */
  private waitingFirsts = true;
  /** Destinations (`d:`) and installations (`i:`) at their cap: their rows wait for a slot. */
  private capped = new Set<string>();
  /** Deliveries to retry that this node keeps claimed, each with the timer of its next attempt. */
  private readonly held = new Map<string, { row: Delivery; timer: NodeJS.Timeout }>();

  constructor(private readonly options: DeliveryEngineOptions) {
    this.ctx = options.ctx;
    this.now = options.now ?? (() => options.ctx.now());
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.leaseMs = options.leaseMs ?? this.timeoutMs + 20_000;
    this.concurrency = options.concurrency ?? 64;
    this.perDestination = options.perDestination ?? 16;
    this.perInstallation = options.perInstallation ?? 16;
    this.disableAfterMs = options.disableAfterMs ?? 5 * 24 * 60 * 60 * 1000;
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
    this.running = true;
    this.ctx.deliveries = {
      wake: () => {
        this.waitingFirsts = true;
        this.loop.wake();
      },
      offer: (target) => this.offer(target),
    };
    this.loop.start();
  }

  /**
   * Gives pending deliveries from before migration 004 their endpoint and destination (parsed from
   * the URL), which admission needs; ended ones keep none. Reads pending rows only (an index), so a
   * start costs nothing once they are done.
   */
  async adoptOlderDeliveries(): Promise<number> {
    const rows = await this.ctx.db
      .selectFrom('deliveries')
      .select(['id', 'installation_id', 'url'])
      .where('status', '=', 'pending')
      .where('destination', 'is', null)
      .execute();
    for (const row of rows) {
      const endpoint = await endpointFor(this.ctx, row.installation_id, row.url).catch(() => undefined);
      await this.ctx.db
        .updateTable('deliveries')
        .set({ endpoint_id: endpoint?.id ?? null, destination: endpoint?.destination ?? 'invalid:' })
        .where('id', '=', row.id)
        .execute();
    }
    return rows.length;
  }

  /** Stops claiming, lets the attempts in flight finish (each ends by its timeout), and returns. */
  async stop(): Promise<void> {
    this.running = false;
    this.ctx.deliveries = NO_DELIVERY_ENGINE;
    await this.loop.stop();
    // Retries kept for later go back to the database, free for any node (or this one's next start).
    const held = [...this.held.values()];
    this.held.clear();
    for (const { timer } of held) clearTimeout(timer);
    await Promise.all(held.map(({ row }) => this.letGo(row)));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** See `DeliveryIntake.offer` (services/context.ts). */
  private offer(target: { installationId: string; destination: string }): Handoff | undefined {
    if (!this.running) return undefined;
    const { installationId, destination } = target;
    if (this.waitingFirsts || this.inFlight.size + this.reservations.size >= this.concurrency) {
      this.waitingFirsts = true;
      return undefined;
    }
    if (this.capped.has(`d:${destination}`) || this.capped.has(`i:${installationId}`)) return undefined;
    if (this.underWay.destination.of(destination) >= this.perDestination) {
      this.capped.add(`d:${destination}`);
      return undefined;
    }
    if (this.underWay.installation.of(installationId) >= this.perInstallation) {
      this.capped.add(`i:${installationId}`);
      return undefined;
    }
    const reservation = { installationId, destination };
    this.reservations.add(reservation);
    this.count(destination, installationId, 1);
    return {
      lease: this.now() + this.leaseMs,
      start: (row) => {
        if (!this.reservations.delete(reservation)) return;
        if (this.running) this.launch(row);
        else {
          // Stopped meanwhile: the row goes back to the database for a claim.
          this.ended(row);
          void this.letGo(row).catch((error) =>
            this.options.logger?.warn({ err: error, delivery: row.id }, 'could not give a delivery back'),
          );
        }
      },
      cancel: () => {
        if (this.reservations.delete(reservation)) this.count(destination, installationId, -1);
      },
    };
  }

  private count(destination: string, installationId: string, by: number): void {
    this.underWay.destination.add(destination, by);
    this.underWay.installation.add(installationId, by);
  }

  /** Starts an attempt of a delivery this node holds the lease of. */
  private launch(row: Delivery): void {
    const attempt = this.attempt(row)
      .then((status) => {
        if (status !== 'pending') this.ended(row);
      })
      .catch((error) => {
        this.ended(row);
        if (error instanceof LeaseLost) this.options.logger?.warn({ delivery: row.id }, error.message);
        else this.options.logger?.error({ err: error, delivery: row.id }, 'delivery attempt failed');
      })
      .finally(() => {
        this.inFlight.delete(attempt);
        // A slot is free: what waits for one is claimed now; nothing waiting, nothing to look for.
        const destination = row.destination ?? '';
        if (this.waitingFirsts || this.capped.has(`d:${destination}`) || this.capped.has(`i:${row.installation_id}`))
          this.loop.wake();
      });
    this.inFlight.add(attempt);
  }

  /** Gives a claimed delivery back, unclaimed, for any node's next claim. */
  private async letGo(row: Delivery): Promise<void> {
    await this.ctx.write((trx) =>
      trx
        .updateTable('deliveries')
        .set({ claimed_until: null })
        .where('id', '=', row.id)
        .where('claimed_until', '=', row.claimed_until)
        .execute(),
    );
  }

  /** A delivery is no longer under way on this node (ended, or its lease lost). */
  private ended(row: Delivery): void {
    this.count(row.destination ?? '', row.installation_id, -1);
  }

  /** Keeps a delivery to retry claimed, and attempts it again when due (or lets it go once stopping). */
  private async hold(row: Delivery): Promise<void> {
    if (!this.running) return this.letGo(row);
    const timer = setTimeout(
      () => {
        if (this.held.delete(row.id)) this.launch(row);
      },
      Math.max(0, (row.next_attempt_at ?? 0) - this.now()),
    );
    this.held.set(row.id, { row, timer });
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

  /**
   * Claims due deliveries and starts their attempts: first the retries that are due (admitted
   * already: they never wait for a destination slot), then first attempts within the caps.
   * Answers whether it started any while slots remain (the caller claims again until not).
   */
  private async claimAndStart(): Promise<boolean> {
    const room = this.concurrency - this.inFlight.size - this.reservations.size;
    if (room <= 0) return false;
    const now = this.now();
    const postgres = this.ctx.dialect === 'postgres';
    const claimed = await this.ctx.write(async (trx) => {
      const retries = await trx
        .selectFrom('deliveries')
        .selectAll()
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .where((eb) => eb.or([eb('attempts', '>', 0), eb('claimed_until', 'is not', null)]))
        .orderBy('next_attempt_at')
        .limit(room)
        .$if(postgres, (qb) => qb.forUpdate().skipLocked())
        .execute();
      const firsts = retries.length < room ? await this.admit(trx, room - retries.length, now) : [];
      const rows = [...retries, ...firsts];
      const lease = now + this.leaseMs;
      // Each row carries its lease: results are written only while this node still holds it.
      for (const row of rows) row.claimed_until = lease;
      if (rows.length > 0) {
        await trx
          .updateTable('deliveries')
          .set({ claimed_until: lease })
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
      }
      return rows;
    });
    for (const row of claimed) this.launch(row);
    return claimed.length > 0 && this.inFlight.size < this.concurrency;
  }

  /**
   * Due first attempts for up to `room` slots, within the caps of deliveries under way per
   * destination and per installation (counted in the database, so every node's share counts),
   * one installation after another so none crowds out the rest.
   */
  private async admit(trx: Transaction<Database>, room: number, now: number): Promise<Delivery[]> {
    const underWay = await trx
      .selectFrom('deliveries')
      .select(['destination', 'installation_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('attempts', '>', 0), eb('claimed_until', 'is not', null)]))
      .groupBy(['destination', 'installation_id'])
      .execute();
    const byDestination = new Counts();
    const byInstallation = new Counts();
    for (const { destination, installation_id, n } of underWay) {
      byDestination.add(destination ?? '', Number(n));
      byInstallation.add(installation_id, Number(n));
    }
    // Handed over, not committed yet: under way all the same.
    for (const { destination, installationId } of this.reservations) {
      byDestination.add(destination);
      byInstallation.add(installationId);
    }
    const fullDestinations = [...byDestination].filter(([, n]) => n >= this.perDestination).map(([d]) => d);
    const fullInstallations = [...byInstallation].filter(([, n]) => n >= this.perInstallation).map(([i]) => i);
    const limit = room * 4;
    const candidates = await trx
      .selectFrom('deliveries')
      .selectAll()
      .where('status', '=', 'pending')
      .where('attempts', '=', 0)
      .where('claimed_until', 'is', null)
      .where('next_attempt_at', '<=', now)
      .$if(fullDestinations.length > 0, (qb) => qb.where('destination', 'not in', fullDestinations))
      .$if(fullInstallations.length > 0, (qb) => qb.where('installation_id', 'not in', fullInstallations))
      .orderBy('next_attempt_at')
      .limit(limit)
      .$if(this.ctx.dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
      .execute();
    // Installations in turn, each in the order its deliveries became due.
    const queues = new Map<string, Delivery[]>();
    for (const row of candidates) {
      const queue = queues.get(row.installation_id) ?? [];
      queue.push(row);
      queues.set(row.installation_id, queue);
    }
    const chosen: Delivery[] = [];
    while (chosen.length < room && queues.size > 0) {
      for (const [installation, queue] of queues) {
        const row = queue.shift();
        if (queue.length === 0) queues.delete(installation);
        if (row === undefined || chosen.length >= room) continue;
        const destination = row.destination ?? '';
        if (byInstallation.of(installation) >= this.perInstallation) {
          queues.delete(installation);
          continue;
        }
        if (byDestination.of(destination) >= this.perDestination) continue;
        byDestination.add(destination);
        byInstallation.add(installation);
        chosen.push(row);
      }
    }
    this.underWay = { destination: byDestination, installation: byInstallation };
    this.capped = new Set([
      ...[...byDestination].filter(([, n]) => n >= this.perDestination).map(([d]) => `d:${d}`),
      ...[...byInstallation].filter(([, n]) => n >= this.perInstallation).map(([i]) => `i:${i}`),
    ]);
    this.waitingFirsts = candidates.length >= limit || chosen.length < candidates.length;
    return chosen;
  }

  /**
   * How long to sleep: until the next retry is due, at most `pollMs` (for other nodes' work and
   * expired leases). First attempts held back by a cap need no timer: an attempt finishing wakes
   * the engine.
   */
  private async untilNextDue(): Promise<number> {
    const poll = this.options.pollMs ?? 1000;
    if (this.inFlight.size >= this.concurrency) return poll;
    const now = this.now();
    const next = await this.ctx.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('due'))
      .where('status', '=', 'pending')
      .where('attempts', '>', 0)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .executeTakeFirst();
    const due = next?.due === null || next?.due === undefined ? undefined : Number(next.due);
    return due === undefined ? poll : Math.min(Math.max(due - now, 5), poll);
  }

  /** One attempt and its result; answers the delivery's status after it. */
  private async attempt(row: Delivery): Promise<Delivery['status']> {
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
    const { final, keep, next, lease } = await this.ctx.write(async (trx) => {
      const health =
        row.endpoint_id === null
          ? { disabledReason: undefined, disabledNow: false }
          : await recordAttempt(
              trx,
              row.endpoint_id,
              outcome === 'delivered'
                ? { ok: true, at: finished }
                : { ok: false, at: finished, error: error ?? 'failed' },
              this.disableAfterMs,
            );
      if (health.disabledNow)
        this.options.logger?.warn({ endpoint: row.endpoint_id, url: row.url }, 'endpoint disabled');
      const stopped = outcome !== 'delivered' && health.disabledReason !== undefined;
      const retry = outcome === 'retry' && number < MAX_ATTEMPTS && !stopped;
      const next = retry ? finished + retryDelay(number, this.options.random) : null;
      const final: Delivery['status'] = outcome === 'delivered' ? 'delivered' : retry ? 'pending' : 'failed';
      const lastError = stopped
        ? (health.disabledReason as string)
        : final === 'failed' && outcome === 'retry'
          ? `gave up after ${number} attempts: ${error}`
          : error;
      // A running engine keeps a delivery to retry claimed, and attempts it again itself.
      const keep = final === 'pending' && this.running && next !== null;
      const lease = keep ? (next as number) + this.leaseMs : null;
      const updated = await insertThenUpdate(
        trx,
        this.ctx.dialect,
        {
          into: 'delivery_attempts',
          values: {
            delivery_id: row.id,
            number,
            at: started,
            status,
            duration_ms: Math.round(result.durationMs),
            error,
            response_excerpt: excerpt,
          },
        },
        {
          table: 'deliveries',
          set: {
            attempts: number,
            status: final,
            next_attempt_at: next,
            claimed_until: lease,
            last_error: lastError,
            updated_at: finished,
          },
          where: { id: row.id, claimed_until: row.claimed_until },
        },
      );
      // Another node took the delivery over (this one stalled past its lease): its result stands.
      if (updated === 0) throw new LeaseLost(row.id);
      return { final, keep, next, lease };
    });
    // Only now that the result is committed is the next attempt scheduled (a write may run twice,
    // so the row changes only after it).
    if (keep) {
      Object.assign(row, { attempts: number, next_attempt_at: next, claimed_until: lease });
      await this.hold(row);
    }
    return final;
  }
}
