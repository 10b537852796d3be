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
 *
 * Claimed ahead (decision 025): a first attempt that cannot start for its caps is claimed all the
 * same, marked `claimed_ahead` (no node counts it under way), and waits in memory, up to `hold`
 * per installation; a freed slot starts the next one that fits with one write. Held leases are
 * renewed while they wait, and stopping gives them back.
 */
import { classifyOutcome, MAX_ATTEMPTS, type Outcome, retryDelay, sign } from '@portico/webhooks';
import type { Selectable, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { LeaseLost } from '../errors.js';
import { type DeliveryTarget, type Handoff, NO_DELIVERY_ENGINE, type ServiceContext } from '../services/context.js';
import { Changes, Counts } from '../services/counts.js';
import { HeldRows, idsByLease } from '../services/held-rows.js';
import { WakeLoop } from '../services/wake-loop.js';
import { insertThenUpdate } from '../storage/insert-then-update.js';
import type { Database } from '../storage/schema.js';
import { endpointFor, recordAttempt, writesHealth } from './endpoints.js';
import { postWebhook } from './post-webhook.js';
import { validSecrets } from './signing-secrets.js';

type Delivery = Selectable<Database['deliveries']>;

/** Most rows one claim looks at. */
const CLAIM_LIMIT = 256;
/** First attempts held in memory on one node, whatever the installations (times `hold`). */
const HOLD_INSTALLATIONS = 16;
/** Rows per statement when many are updated by id. */
const ID_CHUNK = 200;

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
  /**
   * First attempts over their caps that this node claims ahead and holds in memory until a slot
   * frees, per installation (default 64; 0 claims only what can start at once).
   */
  hold?: number;
  /** An endpoint that failed every attempt for this long is disabled (default 5 days). */
  disableAfterMs?: number;
  /** Longest sleep between looks, for other nodes' work and expired leases (default 1 s). */
  pollMs?: number;
  random?: () => number;
  /** The clock (Unix ms; default the service clock), controllable in tests. */
  now?: () => number;
  logger?: Logger | undefined;
}

/** Deliveries under way per destination and per installation (the caps' counts). */
interface UnderWay {
  destination: Counts;
  installation: Counts;
}

/** What one claim of first attempts took, and what it learnt of the rest. */
interface Admitted {
  start: Delivery[];
  hold: Delivery[];
  /** Installations that had rows this claim could not take (no room for them). */
  skipped: Set<string>;
  /** Installations the claim left out, their holds being full enough. */
  full: Set<string>;
  /** Whether the claim saw every first attempt waiting (outside `full`). */
  complete: boolean;
  underWay: UnderWay;
}

export class DeliveryEngine {
  private readonly ctx: ServiceContext;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly perDestination: number;
  private readonly perInstallation: number;
  private readonly holdLimit: number;
  private readonly holdTotal: number;
  private readonly disableAfterMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: WakeLoop;
  private running = false;
  /** Deliveries handed over by `offer` to start at once, not started yet (their inserts committed or not). */
  private readonly reservations = new Set<DeliveryTarget>();
  /** Deliveries under way (the caps' counts): what the database said at the last claim, plus what this node started or ended since. */
  private underWay: UnderWay = { destination: new Counts(), installation: new Counts() };
  /** Changes to the counts while a claim runs (ends too: negative), applied on top of what it read. */
  private changedDuringClaim: { destination: Changes; installation: Changes } | undefined;
  /** First attempts claimed ahead, waiting in memory for a slot (see `hold`), and places for those offers will hold once their inserts commit. */
  private readonly held = new HeldRows<Delivery>();
  /** Installations with first attempts this node left unclaimed for want of room: a claim takes them once they fit. */
  private leftWaiting = new Set<string>();
  /**
   * Installations left waiting since the running claim began: its reads may have been taken before
   * their rows were written, so it must not forget them when it sets what it learnt.
   */
  private leftDuringClaim: Set<string> | undefined;
  /** Handed-over deliveries started while a claim counts what is under way (see `admit`). */
  private startedDuringCount: DeliveryTarget[] | undefined;
  /** Whether first attempts this node knows nothing of may wait unclaimed (other nodes', redeliveries, before its first claim). */
  private unknownWaiting = true;
  /** Deliveries to retry that this node keeps claimed, each with the timer of its next attempt. */
  private readonly retrying = new Map<string, { row: Delivery; timer: NodeJS.Timeout }>();
  /** Held rows whose start is being written (their slots counted already). */
  private starting = 0;
  private renewTimer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(private readonly options: DeliveryEngineOptions) {
    this.ctx = options.ctx;
    this.now = options.now ?? (() => options.ctx.now());
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.leaseMs = options.leaseMs ?? this.timeoutMs + 20_000;
    this.concurrency = options.concurrency ?? 64;
    this.perDestination = options.perDestination ?? 16;
    this.perInstallation = options.perInstallation ?? 16;
    this.holdLimit = options.hold ?? 64;
    this.holdTotal = this.holdLimit * HOLD_INSTALLATIONS;
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
        this.unknownWaiting = true;
        this.loop.wake();
      },
      offer: (target) => this.offer(target),
    };
    // Held rows keep their leases while they wait (a destination at its cap may hold them long).
    this.renewTimer = setInterval(() => {
      this.renewing ??= this.renewHeld().finally(() => {
        this.renewing = undefined;
      });
    }, this.leaseMs / 4);
    this.renewTimer.unref();
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
    clearInterval(this.renewTimer);
    await this.loop.stop();
    await this.renewing;
    // Retries kept for later and held rows go back to the database, free for any node (or this one's next start).
    const retrying = [...this.retrying.values()];
    this.retrying.clear();
    for (const { timer } of retrying) clearTimeout(timer);
    await this.letGo([...retrying.map(({ row }) => row), ...this.held.take(() => true)]).catch((error) =>
      this.options.logger?.warn({ err: error }, 'could not give deliveries back; they come back when their lease ends'),
    );
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** See `DeliveryIntake.offer` (services/context.ts). */
  private offer(target: DeliveryTarget): Handoff | undefined {
    if (!this.running) return undefined;
    const { installationId: id, destination } = target;
    // Nothing overtakes what this node left unclaimed (or may not know of).
    if (!this.unknownWaiting && !this.leftWaiting.has(id)) {
      if (this.held.of(id) === 0 && this.fits(destination, id)) return this.reserve(target);
      if (this.canHold(id)) return this.holdOnCommit(id);
    }
    this.markLeft(id);
    return {
      lease: null,
      ahead: false,
      start: () => {
        // (A claim may have run before the insert committed.)
        this.markLeft(id);
        if (this.claimWorthwhile()) this.loop.wake();
      },
      cancel: () => {},
    };
  }

  /** Notes first attempts of the installation left unclaimed (see `leftWaiting`). */
  private markLeft(installationId: string): void {
    this.leftWaiting.add(installationId);
    this.leftDuringClaim?.add(installationId);
  }

  /** A handoff that starts its delivery once the insert commits, its slots counted from now. */
  private reserve(reservation: DeliveryTarget): Handoff {
    const { destination, installationId } = reservation;
    this.reservations.add(reservation);
    this.count(destination, installationId, 1);
    return {
      lease: this.now() + this.leaseMs,
      ahead: false,
      start: (row, sealedSecrets) => {
        if (!this.reservations.delete(reservation)) return;
        this.startedDuringCount?.push(reservation);
        if (this.running) this.launch(row, sealedSecrets);
        else {
          // Stopped meanwhile: the row goes back to the database for a claim.
          this.ended(row);
          this.giveBack([row]);
        }
      },
      cancel: () => {
        if (this.reservations.delete(reservation)) this.count(destination, installationId, -1);
      },
    };
  }

  /** A handoff that holds its delivery once the insert commits, its place in the hold taken from now. */
  private holdOnCommit(installationId: string): Handoff {
    this.held.reserve(installationId);
    let open = true;
    const close = () => {
      if (open) this.held.unreserve(installationId);
      const was = open;
      open = false;
      return was;
    };
    return {
      lease: this.now() + this.leaseMs,
      ahead: true,
      start: (row) => {
        if (close()) this.hold([row]);
      },
      cancel: () => {
        close();
      },
    };
  }

  private count(destination: string, installationId: string, by: number): void {
    for (const counts of this.changedDuringClaim ? [this.underWay, this.changedDuringClaim] : [this.underWay]) {
      counts.destination.add(destination, by);
      counts.installation.add(installationId, by);
    }
  }

  /** Whether a first attempt may start now: room on this node, its destination and installation under their caps. */
  private fits(destination: string, installationId: string): boolean {
    return (
      this.busy() < this.concurrency &&
      this.underWay.destination.of(destination) < this.perDestination &&
      this.underWay.installation.of(installationId) < this.perInstallation
    );
  }

  /** Attempts in flight, about to be (handed over by offers), and held rows being started. */
  private busy(): number {
    return this.inFlight.size + this.reservations.size + this.starting;
  }

  private canHold(installationId: string): boolean {
    return this.running && this.held.of(installationId) < this.holdLimit && this.held.total < this.holdTotal;
  }

  /**
   * Whether an installation can take no more claimed rows now: it has no room to start one, and
   * its hold is over half full (so a claim for it waits until its hold has drained that far).
   */
  private full(installationId: string, underWay = this.underWay): boolean {
    if (this.held.of(installationId) === 0 && underWay.installation.of(installationId) < this.perInstallation)
      return false;
    if (!this.running || this.holdLimit === 0) return true;
    return this.held.of(installationId) > this.holdLimit / 2 || this.held.total >= this.holdTotal;
  }

  /** Whether a claim could take rows now: rows wait that this node knows nothing of, or for an installation with room. */
  private claimWorthwhile(): boolean {
    if (this.unknownWaiting) return true;
    for (const id of this.leftWaiting) if (!this.full(id)) return true;
    return false;
  }

  /** Puts claimed first attempts (committed) in their installations' holds, and starts what fits. */
  private hold(rows: Delivery[]): void {
    if (!this.running) {
      if (rows.length > 0) this.giveBack(rows);
      return;
    }
    this.held.put(rows);
    if (rows.length > 0) this.startHeld();
  }

  /**
   * Starts held rows while they fit, the installations taking turns at the free slots. A held row
   * is under way once its start is written (then every node counts it).
   */
  private startHeld(): void {
    if (!this.running) return;
    const rows: Delivery[] = [];
    this.held.startWhile((row) => {
      if (this.busy() >= this.concurrency) return 'stop';
      if (this.underWay.installation.of(row.installation_id) >= this.perInstallation) return 'next';
      const destination = row.destination ?? '';
      if (this.underWay.destination.of(destination) >= this.perDestination) return 'skip';
      this.count(destination, row.installation_id, 1);
      this.starting++;
      rows.push(row);
      return 'started';
    });
    if (rows.length > 0) void this.startWritten(rows);
  }

  /** Writes held rows' start (renewing their leases), then launches those this node still holds. */
  private async startWritten(rows: Delivery[]): Promise<void> {
    const lease = this.now() + this.leaseMs;
    let kept: Set<string> | undefined;
    try {
      kept = await this.moveLeases(rows, lease, { claimed_ahead: 0 });
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'could not start held deliveries; they wait for the next slot');
    } finally {
      this.starting -= rows.length;
    }
    const back: Delivery[] = [];
    for (const row of rows) {
      if (kept?.has(row.id)) {
        row.claimed_until = lease;
        this.launch(row);
        continue;
      }
      this.ended(row);
      // Not written: held again. Not this node's any more (taken over, or its endpoint disabled): dropped.
      if (kept === undefined) back.push(row);
    }
    this.hold(back);
    if (kept !== undefined && kept.size < rows.length) {
      this.startHeld();
      if (this.claimWorthwhile()) this.loop.wake();
    }
  }

  /** Renews the leases of held rows more than half gone; a row another node has taken meanwhile is dropped. */
  private async renewHeld(): Promise<void> {
    const now = this.now();
    const due = this.held.take((row) => (row.claimed_until ?? 0) - now < this.leaseMs / 2);
    if (due.length === 0) return;
    const lease = now + this.leaseMs;
    let kept: Set<string>;
    try {
      kept = await this.moveLeases(due, lease, {});
    } catch (error) {
      // Their leases stand as they were; the next renewal tries again.
      this.options.logger?.warn({ err: error }, 'could not renew the leases of held deliveries');
      this.hold(due);
      return;
    }
    const still = due.filter((row) => kept.has(row.id));
    for (const row of still) row.claimed_until = lease;
    this.hold(still);
  }

  /**
   * Moves claimed rows to a new lease (and `set`), where this node still holds them and they are
   * still pending; answers the ids it moved.
   */
  private moveLeases(rows: Delivery[], lease: number, set: { claimed_ahead?: number }): Promise<Set<string>> {
    return this.ctx.write(async (trx) => {
      const ids = new Set<string>();
      for (const [old, chunk] of idsByLease(rows, ID_CHUNK)) {
        const moved = await trx
          .updateTable('deliveries')
          .set({ ...set, claimed_until: lease })
          .where('id', 'in', chunk)
          .where('claimed_until', '=', old)
          .where('status', '=', 'pending')
          .returning('id')
          .execute();
        for (const { id } of moved) ids.add(id);
      }
      return ids;
    });
  }

  /**
   * Starts an attempt of a delivery this node holds the lease of (its slots counted already);
   * `sealedSecrets`, read with its endpoint when it was asked for, sign it.
   */
  private launch(row: Delivery, sealedSecrets?: string[]): void {
    const attempt = this.attempt(row, sealedSecrets)
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
        // A slot is free: a held row takes it, and rows waiting unclaimed are claimed now.
        this.startHeld();
        if (this.claimWorthwhile()) this.loop.wake();
      });
    this.inFlight.add(attempt);
  }

  /** Gives claimed deliveries back, unclaimed, for any node's next claim (where this node still holds their lease). */
  private async letGo(rows: Delivery[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ctx.write(async (trx) => {
      for (const [lease, chunk] of idsByLease(rows, ID_CHUNK)) {
        await trx
          .updateTable('deliveries')
          .set({ claimed_until: null, claimed_ahead: 0 })
          .where('id', 'in', chunk)
          .where('claimed_until', '=', lease)
          .execute();
      }
    });
  }

  /** `letGo` in the background (the engine stopped while the rows were on their way to it). */
  private giveBack(rows: Delivery[]): void {
    void this.letGo(rows).catch((error) =>
      this.options.logger?.warn({ err: error }, 'could not give deliveries back; they come back when their lease ends'),
    );
  }

  /** A delivery is no longer under way on this node (ended, or its lease lost). */
  private ended(row: Delivery): void {
    this.count(row.destination ?? '', row.installation_id, -1);
  }

  /** Keeps a delivery to retry claimed, and attempts it again when due (or lets it go once stopping). */
  private async retryLater(row: Delivery): Promise<void> {
    if (!this.running) return this.letGo([row]);
    const timer = setTimeout(
      () => {
        if (this.retrying.delete(row.id)) this.launch(row);
      },
      Math.max(0, (row.next_attempt_at ?? 0) - this.now()),
    );
    this.retrying.set(row.id, { row, timer });
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
   * already: they never wait for a destination slot), then first attempts within the caps, and
   * (while running) first attempts over their caps into the hold. Answers whether another claim
   * may find more.
   */
  private async claimAndStart(): Promise<boolean> {
    const hold = this.running ? this.holdLimit : 0;
    const room = Math.max(0, this.concurrency - this.busy());
    const holdRoom = hold > 0 ? Math.max(0, this.holdTotal - this.held.total) : 0;
    if (room === 0 && holdRoom === 0) return false;
    const now = this.now();
    const postgres = this.ctx.dialect === 'postgres';
    const leftDuring = new Set<string>();
    this.leftDuringClaim = leftDuring;
    const claim = await this.ctx
      .write(async (trx) => {
        this.changedDuringClaim = undefined;
        // (Retries only: a first attempt whose lease ran out, its node gone, is admitted again.)
        const retries =
          room === 0
            ? []
            : await trx
                .selectFrom('deliveries')
                .selectAll()
                .where('status', '=', 'pending')
                .where('attempts', '>', 0)
                .where('next_attempt_at', '<=', now)
                .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
                .orderBy('next_attempt_at')
                .limit(room)
                .$if(postgres, (qb) => qb.forUpdate().skipLocked())
                .execute();
        const firsts =
          retries.length < room || holdRoom > 0
            ? await this.admit(trx, room - retries.length, hold, holdRoom, now)
            : undefined;
        const lease = now + this.leaseMs;
        // Each row carries its lease: results are written only while this node still holds it.
        const claim = async (rows: Delivery[], ahead: number) => {
          for (const row of rows) row.claimed_until = lease;
          for (let i = 0; i < rows.length; i += ID_CHUNK) {
            await trx
              .updateTable('deliveries')
              .set({ claimed_until: lease, claimed_ahead: ahead })
              .where(
                'id',
                'in',
                rows.slice(i, i + ID_CHUNK).map((r) => r.id),
              )
              .execute();
          }
        };
        await claim([...retries, ...(firsts?.start ?? [])], 0);
        await claim(firsts?.hold ?? [], 1);
        return { retries, firsts };
      })
      .catch((error) => {
        this.changedDuringClaim = undefined;
        throw error;
      })
      .finally(() => {
        this.leftDuringClaim = undefined;
      });
    const { retries, firsts } = claim;
    if (firsts) {
      const changed = this.changedDuringClaim;
      this.changedDuringClaim = undefined;
      for (const [destination, n] of changed?.destination ?? []) firsts.underWay.destination.add(destination, n);
      for (const [installation, n] of changed?.installation ?? []) firsts.underWay.installation.add(installation, n);
      this.underWay = firsts.underWay;
      // Rows left behind wait for room: they are known, and offers do not overtake them. A claim
      // that saw every claimable row also learnt that the others it knew of have gone.
      const stillFull = [...this.leftWaiting].filter((id) => firsts.full.has(id));
      this.leftWaiting = new Set([
        ...(firsts.complete ? stillFull : this.leftWaiting),
        ...firsts.skipped,
        ...leftDuring,
      ]);
      this.unknownWaiting = !firsts.complete;
    }
    for (const row of [...retries, ...(firsts?.start ?? [])]) this.launch(row);
    if (firsts && firsts.hold.length > 0) this.hold(firsts.hold);
    // The counts are the database's now (they may have dropped): held rows start where they fit.
    else if (firsts) this.startHeld();
    const taken = retries.length + (firsts ? firsts.start.length + firsts.hold.length : 0);
    return taken > 0 && (firsts === undefined || !firsts.complete);
  }

  /**
   * Due first attempts: up to `room` within the caps of deliveries under way per destination and
   * per installation (counted in the database, so every node's share counts), and up to
   * `holdRoom` over them to hold, at most `hold` per installation; one installation after another
   * so none crowds out the rest.
   */
  private async admit(
    trx: Transaction<Database>,
    room: number,
    hold: number,
    holdRoom: number,
    now: number,
  ): Promise<Admitted> {
    const postgres = this.ctx.dialect === 'postgres';
    // Handed over, their inserts committed or not: under way all the same. The count leaves them
    // out and they are added once: an insert may have committed before the count read (in the
    // same transaction on SQLite, or just before on PostgreSQL) or after it.
    const reserved = [...this.reservations];
    const started: DeliveryTarget[] = [];
    this.startedDuringCount = started;
    let counted: { destination: string | null; installation_id: string; n: number }[];
    try {
      counted = await trx
        .selectFrom('deliveries')
        .select(['destination', 'installation_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', '=', 'pending')
        // (The first condition is the index's; the second leaves out leases that ran out, and rows
        // claimed ahead: they wait in their node's memory, not under way yet.)
        .where((eb) => eb.or([eb('attempts', '>', 0), eb('claimed_until', 'is not', null)]))
        .where((eb) =>
          eb.or([eb('attempts', '>', 0), eb.and([eb('claimed_until', '>=', now), eb('claimed_ahead', '=', 0)])]),
        )
        .$if(reserved.length > 0, (qb) =>
          qb.where(
            'id',
            'not in',
            reserved.map((r) => r.deliveryId),
          ),
        )
        .groupBy(['destination', 'installation_id'])
        .execute();
    } finally {
      this.startedDuringCount = undefined;
    }
    // What this node changes from now on goes on top of what the database said.
    this.changedDuringClaim = { destination: new Changes(), installation: new Changes() };
    const underWay: UnderWay = { destination: new Counts(), installation: new Counts() };
    for (const { destination, installation_id, n } of counted) {
      underWay.destination.add(destination ?? '', Number(n));
      underWay.installation.add(installation_id, Number(n));
    }
    // (Those the count left out are reservations still, or started while it ran; cancelled ones are
    // gone. Held rows being started are in the database already: their writes went before this one.)
    for (const { destination, installationId } of [...this.reservations, ...started]) {
      underWay.destination.add(destination);
      underWay.installation.add(installationId);
    }
    const full = new Set(
      [...underWay.installation.keys(), ...this.held.installations()].filter((id) => this.full(id, underWay)),
    );
    // Without a hold, rows for a destination at its cap could only be left where they are.
    const fullDestinations =
      hold > 0 ? [] : [...underWay.destination].filter(([, n]) => n >= this.perDestination).map(([d]) => d);
    const limit = Math.min(CLAIM_LIMIT, room * 4 + holdRoom);
    const candidates = (lapsed: boolean) =>
      trx
        .selectFrom('deliveries')
        .selectAll()
        .where('status', '=', 'pending')
        .where('attempts', '=', 0)
        .$if(!lapsed, (qb) => qb.where('claimed_until', 'is', null))
        .$if(lapsed, (qb) =>
          qb
            .where((eb) => eb.or([eb('attempts', '>', 0), eb('claimed_until', 'is not', null)]))
            .where('claimed_until', '<', now),
        )
        .where('next_attempt_at', '<=', now)
        .$if(fullDestinations.length > 0, (qb) => qb.where('destination', 'not in', fullDestinations))
        .$if(full.size > 0, (qb) => qb.where('installation_id', 'not in', [...full]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .$if(postgres, (qb) => qb.forUpdate().skipLocked())
        .execute();
    // First attempts whose node let their lease run out, then those never claimed.
    const lapsed = await candidates(true);
    const waiting = await candidates(false);
    // Installations in turn, each in the order its deliveries became due. (A row held here whose
    // lease ran out, its renewal late, stays held: the renewal still finds it.)
    const heldHere = lapsed.length > 0 ? this.held.ids() : new Set<string>();
    const queues = new Map<string, Delivery[]>();
    for (const row of [...lapsed.filter((r) => !heldHere.has(r.id)), ...waiting]) {
      const queue = queues.get(row.installation_id) ?? [];
      queue.push(row);
      queues.set(row.installation_id, queue);
    }
    const admitted: Admitted = {
      start: [],
      hold: [],
      skipped: new Set(),
      full,
      complete: lapsed.length < limit && waiting.length < limit,
      underWay,
    };
    const ahead = new Counts();
    while (queues.size > 0) {
      for (const [installation, queue] of queues) {
        const row = queue.shift() as Delivery;
        if (queue.length === 0) queues.delete(installation);
        const destination = row.destination ?? '';
        if (
          admitted.start.length < room &&
          underWay.installation.of(installation) < this.perInstallation &&
          underWay.destination.of(destination) < this.perDestination
        ) {
          underWay.destination.add(destination);
          underWay.installation.add(installation);
          admitted.start.push(row);
        } else if (
          hold > 0 &&
          this.held.of(installation) + ahead.of(installation) < hold &&
          admitted.hold.length < holdRoom
        ) {
          ahead.add(installation);
          admitted.hold.push(row);
        } else {
          admitted.skipped.add(installation);
        }
      }
    }
    return admitted;
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
  private async attempt(row: Delivery, sealedSecrets: string[] = []): Promise<Delivery['status']> {
    const number = row.attempts + 1;
    const started = this.now();
    // Secrets read with the delivery's endpoint when it was asked for sign it; else they are read now.
    const secrets =
      sealedSecrets.length > 0
        ? sealedSecrets.map((secret) => this.ctx.box.open(secret))
        : await validSecrets(this.ctx, row.installation_id);
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
    // Unless the endpoint's health is written too, the result is one statement on PostgreSQL: it
    // then runs on its own, without a transaction (group-commit.ts).
    const standalone = !writesHealth(row.endpoint_id, outcome === 'delivered', finished);
    const { final, keep, next, lease } = await this.ctx.write(
      async (trx) => {
        const health = standalone
          ? { disabledReason: undefined, disabledNow: false }
          : await recordAttempt(
              trx,
              row.endpoint_id as string,
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
      },
      { standalone },
    );
    // Only now that the result is committed is the next attempt scheduled (a write may run twice,
    // so the row changes only after it).
    if (keep) {
      Object.assign(row, { attempts: number, next_attempt_at: next, claimed_until: lease });
      await this.retryLater(row);
    }
    return final;
  }
}
