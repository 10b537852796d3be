/**
 * Dispatch: sending envelopes to integrations, and the durable loop that works through what is
 * owed (DESIGN.md "Routing and selection", "Isolation").
 *
 * Routing: a space or site event goes once per integration, to its installation in that place,
 * when that installation is active (and its organization installation is not paused), its scopes
 * allow the event and its integration handles it. On SQLite, while a dispatcher runs, events are
 * routed as they are stored: their outbox rows are written in the transaction that stores them
 * (`ServiceContext.routeOnIngest`). Other events (on PostgreSQL, or stored while no dispatcher
 * ran) are routed here afterwards, in batches: one transaction marks a batch routed and writes its
 * outbox rows. Routing reads what a version handles from the database: it never waits on a worker.
 *
 * Dispatch is a continuous pool: whenever a slot frees, the next owed row starts. Rows are
 * claimed with a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL), skipping installations and
 * integrations that already have their cap in flight, so a flood or a slow integration holds its
 * share of the pool and never the rest. An installation's setup events go out one at a time and
 * in order, and nothing overtakes them; its platform events go out side by side. An integration
 * whose worker keeps timing out or crashing is backed off by a circuit breaker: its owed rows wait
 * with growing delay (written to the rows, so every node sees it, and to the dispatch log).
 * Other failures are retried with backoff; every dispatch is recorded with its host, status,
 * duration, error and the integration's logs.
 *
 * Work routed on this node skips the claim (decision 013): a row that would be taken at once
 * (room, caps, breaker closed, no setup event of its installation owed, none of its rows waiting
 * unclaimed) is written already claimed by this node and started when its routing commits. A row
 * over its caps is claimed all the same and held in memory, up to `hold` per installation, and
 * starts when a slot of its installation frees, without another trip to the database (decision
 * 015); held rows are released when the node stops, and their lease is renewed should they wait
 * long. Claims find the rest: setup events, rows beyond the hold, retries, and what another node
 * left when its lease ran out; they run when rows are known to wait, and every `pollMs` otherwise.
 */
import type { Manifest } from '@portico/manifest';
import type { IntegrationDescriptor, PlatformEvent } from '@portico/runtime';
import type { Insertable, Selectable, Transaction, Updateable, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { Logger } from 'pino';
import { LeaseLost } from '../errors.js';
import type { Host, HostKind, HostResponse, IntegrationBundle } from '../hosts/host.js';
import { HostError } from '../hosts/host.js';
import type { InProcessHost } from '../hosts/in-process-host.js';
import { Counts } from '../queue/counts.js';
import { HeldRows } from '../queue/held-rows.js';
import { WakeLoop } from '../queue/wake-loop.js';
import { insertThenUpdate } from '../storage/insert-then-update.js';
import { prepared } from '../storage/prepared.js';
import { idsByLease } from '../storage/repositories/leases.js';
import type { Database } from '../storage/schema.js';
import { CircuitBreakers } from './circuit-breaker.js';
import type { DispatchGrant, EventRouting, RoutableEvent, ServiceContext } from './context.js';
import { loadDispatchContext } from './dispatch-context.js';
import { buildEnvironment, type KnownForEnvironment } from './environment.js';
import { type GitBookFacts, readGitBookFacts } from './gitbook-dialect.js';
import { DELETED_EVENTS } from './installations.js';
import { latestVersion } from './integrations.js';

type InstallationRow = Database['installations'];
/** An installation routing may hand an event to, with its integration's latest version. */
type Installed = InstallationRow & { latest_version: number };

/**
 * The installations in one place that can receive its events: active, below an organization
 * installation that is not paused; with their integration's latest version (read here, so routing
 * asks no second question per event).
 */
const installedIn = prepared((db, kind: string, placeId: string) =>
  db
    .selectFrom('installations as i')
    .innerJoin('installations as parent', 'parent.id', 'i.parent_id')
    .innerJoin('integrations as g', 'g.name', 'i.integration_name')
    .selectAll('i')
    .select('g.latest_version')
    .where('i.target_type', '=', kind as 'space' | 'site')
    .where('i.target_id', '=', placeId)
    .where('i.uninstalled_at', 'is', null)
    .where('i.status', '=', 'active')
    .where('parent.status', '!=', 'paused')
    .orderBy('i.created_at'),
);
type OutboxRow = Selectable<Database['outbox']>;

/** The scope an integration needs to receive each platform event (DESIGN.md). */
export const REQUIRED_SCOPE: Record<string, string> = {
  space_content_updated: 'space:content:read',
  space_view: 'space:content:read',
  space_visibility_updated: 'space:metadata:read',
  space_gitsync_started: 'space:git:sync',
  space_gitsync_completed: 'space:git:sync',
  site_view: 'site:views:read',
  page_feedback: 'site:views:read',
};
export const SITE_EVENTS = new Set(['site_view', 'page_feedback']);

/** Host failures that say the worker itself is in trouble: they count towards its circuit breaker. */
const WORKER_FAILURES = new Set(['timeout', 'crashed', 'memory', 'startup', 'unreachable']);
const ROUTE_BATCH = 200;
/** After asking a version what it handles got no answer, the next question waits this long. */
const DESCRIBE_RETRY_MS = 30_000;
const INSERT_CHUNK = 200;
/** Most rows one claim looks at. */
const CLAIM_LIMIT = 256;
/** Rows held in memory on one node, whatever the installations (times `hold`). */
const HOLD_INSTALLATIONS = 16;

export interface Hosts {
  workerd: Host;
  inProcess: InProcessHost;
  remote: Host;
}

interface LoadedBundle extends IntegrationBundle {
  manifest: Manifest;
  secrets: string | null;
  descriptor: IntegrationDescriptor | undefined;
  gitbook: GitBookFacts | undefined;
}

export interface DispatcherOptions {
  ctx: ServiceContext;
  hosts: Hosts;
  logger?: Logger | undefined;
  /** How often other nodes' work and retries are looked for (default 500 ms). */
  pollMs?: number;
  /** How long a claimed row stays with this node (default 30 s). */
  leaseMs?: number;
  /** Attempts before a dispatch is given up (default 5). */
  maxAttempts?: number;
  /** Dispatches in flight on this node (default 64). */
  concurrency?: number;
  /** Dispatches in flight per integration (default 16). */
  perIntegration?: number;
  /** Dispatches in flight per installation (default 8). */
  perInstallation?: number;
  /**
   * Owed rows over their caps that this node claims ahead and holds in memory, per installation
   * (default 64; 0 claims only what can start at once).
   */
  hold?: number;
  /** Circuit breaker: timeouts or crashes in a row before an integration is backed off (default 3). */
  breakerThreshold?: number;
  /** Circuit breaker: the first wait, doubled at each failed probe (default 1 s, at most 5 min). */
  breakerDelayMs?: number;
  /**
   * The `env` of an integration that runs in this process, for an event dispatch: service bindings
   * that act with the dispatch's grant (no token lookup per API call). Without it, or for a
   * dispatch that read no token scopes, the in-process host's own bindings are used.
   */
  bindingsFor?: (grant: DispatchGrant) => Record<string, unknown>;
}

/** Rows a claim or routing takes: those that start at once, and those held until a slot frees. */
interface Handed<Row> {
  start: Row[];
  hold: Row[];
}

export class Dispatcher {
  private readonly ctx: ServiceContext;
  private readonly bundles = new Map<string, Promise<LoadedBundle>>();
  private readonly describing = new Map<string, Promise<IntegrationDescriptor | undefined>>();
  private readonly loop: WakeLoop;
  private readonly breakers: CircuitBreakers;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perInstallation = new Counts();
  private readonly perIntegration = new Counts();
  private readonly limits: {
    concurrency: number;
    integration: number;
    installation: number;
    hold: number;
    /** Rows held on the node, whatever the installations. */
    holdTotal: number;
  };
  private readonly leaseMs: number;
  private running = false;
  /** Rows written claimed by routing whose commit has not happened yet (they hold their slots). */
  private reserved = 0;
  /** Claimed rows waiting in memory for a slot (see `hold`), and places for those routing will hold once it commits. */
  private readonly held = new HeldRows<OutboxRow>();
  /**
   * Installations with owed rows this node left unclaimed for want of room: routing hands none of
   * theirs over (it would overtake them) until a claim has taken them.
   */
  private leftWaiting = new Set<string>();
  /** Whether owed rows this node knows nothing of may wait unclaimed (retries, setup events, other nodes'). */
  private unknownWaiting = true;
  private lastFill = 0;

  constructor(private readonly options: DispatcherOptions) {
    this.ctx = options.ctx;
    this.limits = {
      concurrency: options.concurrency ?? 64,
      integration: options.perIntegration ?? 16,
      installation: options.perInstallation ?? 8,
      hold: options.hold ?? 64,
      holdTotal: (options.hold ?? 64) * HOLD_INSTALLATIONS,
    };
    this.leaseMs = options.leaseMs ?? 30_000;
    this.breakers = new CircuitBreakers({
      now: () => this.ctx.now(),
      ...(options.breakerThreshold !== undefined ? { threshold: options.breakerThreshold } : {}),
      ...(options.breakerDelayMs !== undefined ? { baseDelayMs: options.breakerDelayMs } : {}),
    });
    this.loop = new WakeLoop(
      async () => {
        while ((await this.routeEvents()) === ROUTE_BATCH && !this.loop.isStopped) {}
        if (!this.claimWorthwhile() && performance.now() - this.lastFill < (options.pollMs ?? 500)) return;
        this.lastFill = performance.now();
        while ((await this.fill()) && !this.loop.isStopped) {}
      },
      () => options.pollMs ?? 500,
      (error) => options.logger?.error({ err: error }, 'dispatch pass failed'),
    );
  }

  start(): void {
    this.running = true;
    this.ctx.wake = (what) => {
      if (what !== 'events') this.unknownWaiting = true;
      this.loop.wake();
    };
    // On SQLite a transaction costs more than a statement: events are routed in the one that stores
    // them. On PostgreSQL each statement is a round trip, and the loop routes many events with a
    // few (decision 027).
    if (this.ctx.dialect === 'sqlite') this.ctx.routeOnIngest = (events, now) => this.routing(events, now);
    this.loop.start();
  }

  /**
   * Stops claiming and waits for the dispatches in flight, at most `graceMs` (then the caller
   * closes the hosts, which ends the rest; their rows stay owed and go out again).
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.running = false;
    this.ctx.wake = () => {};
    this.ctx.routeOnIngest = undefined;
    await this.loop.stop();
    // Held rows go back to the database at once (other nodes, or the next start, take them).
    const held = this.held.take(() => true);
    if (held.length > 0) {
      await this.ctx
        .write((trx) => this.releaseIn(trx, held))
        .catch((error) =>
          this.options.logger?.warn(
            { err: error },
            'could not release held rows; they come back when their lease ends',
          ),
        );
    }
    const deadline = performance.now() + graceMs;
    while (this.inFlight.size > 0 && performance.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inFlight]),
        new Promise((r) => {
          timer = setTimeout(r, Math.min(deadline - performance.now(), 2 ** 31 - 1));
        }),
      ]);
      clearTimeout(timer);
    }
  }

  /** Runs a pass now (or right after the one running). */
  wake(): void {
    this.loop.wake();
  }

  /** Routes waiting events, starts what is owed, and waits for it (tests drive the dispatcher with this). */
  async pass(): Promise<number> {
    const routed = await this.routeEvents();
    const before = new Set(this.inFlight);
    while (await this.fill()) {}
    const started = [...this.inFlight].filter((dispatch) => !before.has(dispatch));
    await Promise.allSettled(started);
    return routed + started.length;
  }

  /** Sends one event to one installation now, records the dispatch, and answers the integration's response. */
  async send(
    installation: InstallationRow,
    event: PlatformEvent,
    body?: Uint8Array,
  ): Promise<HostResponse & { host: HostKind }> {
    const { host, response } = await this.call(installation, event, body);
    await this.ctx.write((trx) => trx.insertInto('dispatches').values(response.record).execute());
    if (response.error !== undefined) throw response.error;
    return { ...response.answer, host };
  }

  /**
   * What the integration handles (`GET /v1`), learned once per version and kept in the database.
   * One question per version at a time; after one that got no answer, the next waits
   * `DESCRIBE_RETRY_MS` (a worker that does not answer is not asked once per event).
   */
  describe(bundle: LoadedBundle): Promise<IntegrationDescriptor | undefined> {
    if (bundle.descriptor !== undefined) return Promise.resolve(bundle.descriptor);
    const key = `${bundle.name}@${bundle.version}`;
    let asking = this.describing.get(key);
    if (asking === undefined) {
      asking = this.learnDescriptor(bundle).catch((error) => {
        this.options.logger?.warn({ err: error, integration: key }, 'could not learn what the integration handles');
        return undefined;
      });
      this.describing.set(key, asking);
      void asking.then((descriptor) => {
        if (descriptor !== undefined) this.describing.delete(key);
        else setTimeout(() => this.describing.delete(key), DESCRIBE_RETRY_MS).unref();
      });
    }
    return asking;
  }

  private async learnDescriptor(bundle: LoadedBundle): Promise<IntegrationDescriptor | undefined> {
    const builtin = this.options.hosts.inProcess.descriptorOf(bundle.name);
    const descriptor =
      builtin ??
      (await this.hostFor(bundle)
        .dispatch(bundle, { method: 'GET' })
        .then((response) =>
          response.status === 200
            ? (JSON.parse(new TextDecoder().decode(response.body)) as IntegrationDescriptor)
            : undefined,
        )
        .catch(() => undefined));
    if (descriptor === undefined) return undefined;
    bundle.descriptor = descriptor;
    await this.ctx.db
      .updateTable('integration_versions')
      .set({ descriptor: JSON.stringify(descriptor) })
      .where('integration_name', '=', bundle.name)
      .where('version', '=', bundle.version)
      .execute();
    return descriptor;
  }

  /** A published version of an integration (the latest when `version` is not given), cached by version. */
  async bundle(name: string, version?: number): Promise<LoadedBundle> {
    const latest = version ?? (await latestVersion(this.ctx, name));
    const key = `${name}@${latest}`;
    let bundle = this.bundles.get(key);
    if (bundle === undefined) {
      bundle = this.ctx.db
        .selectFrom('integration_versions')
        .selectAll()
        .where('integration_name', '=', name)
        .where('version', '=', latest)
        .executeTakeFirstOrThrow()
        .then((row) => ({
          name,
          version: latest,
          script: row.script,
          endpoint: row.endpoint,
          manifest: JSON.parse(row.manifest) as Manifest,
          secrets: row.secrets,
          descriptor: row.descriptor === null ? undefined : (JSON.parse(row.descriptor) as IntegrationDescriptor),
          gitbook: readGitBookFacts(row.gitbook),
        }));
      this.bundles.set(key, bundle);
      bundle.catch(() => this.bundles.delete(key));
    }
    return bundle;
  }

  hostFor(bundle: IntegrationBundle): Host {
    if (this.options.hosts.inProcess.has(bundle.name)) return this.options.hosts.inProcess;
    if (bundle.endpoint) return this.options.hosts.remote;
    return this.options.hosts.workerd;
  }

  /** Dispatches and builds the dispatch-log row, without writing it (the caller writes it with its own changes). */
  private async call(
    installation: InstallationRow,
    event: PlatformEvent,
    body?: Uint8Array,
    known?: KnownForEnvironment & { latestVersion: number; tokenScopes?: string[] | null },
  ) {
    const bundle = await this.bundle(installation.integration_name, known?.latestVersion);
    const host = this.hostFor(bundle);
    const record = (status: number, durationMs: number, error: string | null, logs: string[]) => ({
      installation_id: installation.id,
      event_id: event.type === 'fetch' || event.type === 'ui_render' ? null : event.eventId,
      event_type: event.type,
      host: host.kind,
      status,
      duration_ms: Math.round(durationMs),
      error,
      logs: JSON.stringify(logs.slice(0, 200)),
      at: this.ctx.now(),
    });
    const started = performance.now();
    try {
      const environment = await buildEnvironment(this.ctx, installation, bundle, known);
      const scopes = known?.tokenScopes;
      const bindings =
        host.kind === 'in-process' && this.options.bindingsFor && scopes && installation.uninstalled_at === null
          ? this.options.bindingsFor({
              token: environment.apiTokens.installation,
              principal: { kind: 'installation', installationId: installation.id, scopes, installation },
            })
          : undefined;
      const answer = await host.dispatch(bundle, {
        method: 'POST',
        envelope: { event, environment, ...(body ? { body } : {}) },
        installationId: installation.id,
        ...(bindings ? { bindings } : {}),
      });
      return {
        host: host.kind,
        response: { answer, error: undefined, record: record(answer.status, answer.durationMs, null, answer.logs) },
      };
    } catch (error) {
      const message = error instanceof HostError ? error.message : `dispatch failed: ${(error as Error).message}`;
      return {
        host: host.kind,
        response: {
          answer: undefined,
          error: error as Error,
          record: record(0, performance.now() - started, message, []),
        },
      };
    }
  }

  /** Routes a batch of waiting events (stored while no dispatcher ran here, or by a node that did not route them); answers how many it looked at. */
  private async routeEvents(): Promise<number> {
    const events = await this.ctx.db
      .selectFrom('events')
      .select(['event_id', 'type', 'payload'])
      .where('routed_at', 'is', null)
      .orderBy('received_at')
      .limit(ROUTE_BATCH)
      .execute();
    if (events.length === 0) return 0;
    const now = this.ctx.now();
    const routing = await this.routing(events, now);
    try {
      await this.ctx.write(async (trx) => {
        // Another node may have routed some of them meanwhile: only those this one marks are written.
        const marked = await trx
          .updateTable('events')
          .set({ routed_at: now })
          .where(
            'event_id',
            'in',
            events.map((e) => e.event_id),
          )
          .where('routed_at', 'is', null)
          .returning('event_id')
          .execute();
        await routing.write(trx, new Set(marked.map((m) => m.event_id)));
      });
    } catch (error) {
      routing.failed();
      throw error;
    }
    routing.committed();
    return events.length;
  }

  /**
   * Decides the outbox rows of events (read-only); the caller has them written in the transaction
   * that stores the events (`ServiceContext.routeOnIngest`) or marks them routed (`routeEvents`),
   * then says how that transaction ended, and what this node took starts.
   */
  private async routing(events: RoutableEvent[], now: number): Promise<EventRouting> {
    const places = new Map<string, Promise<Installed[]>>();
    const owed: { eventId: string; rows: Insertable<Database['outbox']>[] }[] = [];
    for (const event of events) {
      const payload = JSON.parse(event.payload) as Record<string, unknown> & { type: string; eventId: string };
      const site = SITE_EVENTS.has(event.type);
      const place = `${site ? 'site' : 'space'}:${String(site ? payload.siteId : payload.spaceId)}`;
      let installed = places.get(place);
      if (installed === undefined) {
        installed = installedIn.all(
          this.ctx.db,
          site ? 'site' : 'space',
          String(site ? payload.siteId : payload.spaceId),
        );
        places.set(place, installed);
      }
      const rows: Insertable<Database['outbox']>[] = [];
      for (const installation of await installed) {
        if (!(await this.receives(installation, event.type))) continue;
        rows.push({
          installation_id: installation.id,
          integration_name: installation.integration_name,
          event_id: event.event_id,
          event_type: event.type,
          event: JSON.stringify({ ...payload, installationId: installation.id }),
          created_at: now,
          dispatched_at: null,
          claimed_until: null,
          outcome: null,
        });
      }
      owed.push({ eventId: event.event_id, rows });
    }
    let handed: Handed<Insertable<Database['outbox']>> = { start: [], hold: [] };
    /** The written rows' ids, by installation and event (the order of RETURNING is not promised). */
    let ids = new Map<string, number>();
    const key = (row: { installation_id: string; event_id?: string | null }) =>
      `${row.installation_id} ${row.event_id}`;
    const withId = (row: Insertable<Database['outbox']>) =>
      ({ ...row, id: ids.get(key(row)), attempts: 0, available_at: 0 }) as OutboxRow;
    let left = false;
    /** Gives back the slots and hold places `handOver` reserved (the write failed, or runs again). */
    const unreserve = () => {
      this.reserved -= handed.start.length;
      for (const row of handed.start) this.count(row, -1);
      for (const row of handed.hold) this.held.unreserve(row.installation_id);
      handed = { start: [], hold: [] };
    };
    return {
      write: async (trx, stored) => {
        unreserve();
        // (An event given twice is stored once, as first given.)
        const seen = new Set<string>();
        const rows = owed
          .filter((o) => stored.has(o.eventId) && !seen.has(o.eventId) && seen.add(o.eventId))
          .flatMap((o) => o.rows);
        handed = await this.handOver(trx, rows, now);
        left = handed.start.length + handed.hold.length < rows.length;
        ids = new Map();
        for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
          const inserted = await trx
            .insertInto('outbox')
            .values(rows.slice(i, i + INSERT_CHUNK))
            .returning(['id', 'installation_id', 'event_id'])
            .execute();
          for (const row of inserted) ids.set(key(row), row.id);
        }
      },
      failed: unreserve,
      committed: () => {
        this.reserved -= handed.start.length;
        for (const row of handed.start) this.launch(withId(row));
        for (const row of handed.hold) this.held.unreserve(row.installation_id);
        this.hold(handed.hold.map(withId));
        // Rows left for a claim: the loop claims them (routing through the loop does so anyway).
        if (left) this.loop.wake();
      },
    };
  }

  /**
   * Marks the routed rows this node takes (claimed: `claimed_until` set): those that start at once
   * (their slots reserved until the routing commits) and those it holds until a slot frees. The
   * others are left for a claim.
   */
  private async handOver(
    trx: Transaction<Database>,
    rows: Insertable<Database['outbox']>[],
    now: number,
  ): Promise<Handed<Insertable<Database['outbox']>>> {
    const handed: Handed<Insertable<Database['outbox']>> = { start: [], hold: [] };
    // (A write may run twice: what an earlier run marked is unmarked first.)
    for (const row of rows) row.claimed_until = null;
    if (!this.running || rows.length === 0) return handed;
    // Nothing overtakes an installation's owed setup events.
    const setupOwed = new Set(
      (
        await trx
          .selectFrom('outbox')
          .select('installation_id')
          .where('dispatched_at', 'is', null)
          .where('event_id', 'is', null)
          .where('installation_id', 'in', [...new Set(rows.map((r) => r.installation_id))])
          .execute()
      ).map((r) => r.installation_id),
    );
    const lease = now + this.leaseMs;
    for (const row of rows) {
      const id = row.installation_id;
      if (this.leftWaiting.has(id) || setupOwed.has(id) || this.breakers.state(row.integration_name) !== 'closed') {
        this.leftWaiting.add(id);
        continue;
      }
      if (this.held.of(id) === 0 && this.fits(row)) {
        this.reserved++;
        this.count(row, 1);
        handed.start.push(row);
      } else if (this.canHold(id)) {
        this.held.reserve(id);
        handed.hold.push(row);
      } else {
        this.leftWaiting.add(id);
        continue;
      }
      row.claimed_until = lease;
    }
    return handed;
  }

  /** Whether a row may start now: room on this node, its installation and integration under their caps, breaker closed. */
  private fits(row: Pick<OutboxRow, 'installation_id' | 'integration_name'>): boolean {
    return (
      this.inFlight.size + this.reserved < this.limits.concurrency &&
      this.perInstallation.of(row.installation_id) < this.limits.installation &&
      this.perIntegration.of(row.integration_name) < this.limits.integration &&
      this.breakers.state(row.integration_name) === 'closed'
    );
  }

  private canHold(installationId: string): boolean {
    return this.running && this.held.of(installationId) < this.limits.hold && this.held.total < this.limits.holdTotal;
  }

  /**
   * Whether an installation can take no more claimed rows now: it has no room to start one, and
   * its hold is over half full (so a claim for it waits until the hold has drained that far).
   */
  private full(installationId: string): boolean {
    if (this.held.of(installationId) === 0 && this.perInstallation.of(installationId) < this.limits.installation)
      return false;
    if (!this.running || this.limits.hold === 0) return true;
    return this.held.of(installationId) > this.limits.hold / 2 || this.held.total >= this.limits.holdTotal;
  }

  /** Whether a claim could take rows now: rows wait that this node knows nothing of, or for an installation with room. */
  private claimWorthwhile(): boolean {
    if (this.unknownWaiting) return true;
    for (const id of this.leftWaiting) if (!this.full(id)) return true;
    return false;
  }

  /** Puts claimed rows (committed) in their installations' holds, and starts what fits. */
  private hold(rows: OutboxRow[]): void {
    this.held.put(rows);
    if (rows.length > 0) this.startHeld();
  }

  /** Starts held rows while they fit, the installations taking turns at the free slots. */
  private startHeld(): void {
    if (!this.running) return;
    this.held.startWhile((row) => {
      if (this.inFlight.size + this.reserved >= this.limits.concurrency) return 'stop';
      if (!this.fits(row)) return 'next';
      this.count(row, 1);
      this.launch(row);
      return 'started';
    });
  }

  /** Gives rows back unclaimed, where this node still holds their lease. */
  private async releaseIn(trx: Transaction<Database>, rows: OutboxRow[]): Promise<void> {
    for (const [lease, ids] of idsByLease(rows, INSERT_CHUNK)) {
      await trx
        .updateTable('outbox')
        .set({ claimed_until: null })
        .where('id', 'in', ids)
        .where('claimed_until', '=', lease)
        .execute();
    }
  }

  private count(row: Pick<OutboxRow, 'installation_id' | 'integration_name'>, by: number): void {
    this.perInstallation.add(row.installation_id, by);
    this.perIntegration.add(row.integration_name, by);
  }

  /** Whether the installation's integration may receive (scope) and handles (descriptor) the event. */
  private async receives(installation: Installed, type: string): Promise<boolean> {
    const bundle = await this.bundle(installation.integration_name, installation.latest_version);
    const scope = REQUIRED_SCOPE[type];
    if (scope !== undefined && !(bundle.manifest.scopes as string[]).includes(scope)) return false;
    if (bundle.descriptor === undefined) {
      // Not learned yet: learn it in the background; meanwhile the integration itself says.
      void this.describe(bundle);
      return true;
    }
    return bundle.descriptor.events.includes(type);
  }

  /**
   * Claims owed rows for the free slots and starts them, and (while running) claims rows over
   * their caps into the hold; answers whether another claim may find more.
   */
  private async fill(): Promise<boolean> {
    const hold = this.running ? this.limits.hold : 0;
    const room = Math.max(0, this.limits.concurrency - this.inFlight.size - this.reserved);
    const holdRoom = hold > 0 ? Math.max(0, this.limits.holdTotal - this.held.total) : 0;
    if (room === 0 && holdRoom === 0) return false;
    const now = this.ctx.now();
    const full = new Set([...this.perInstallation.keys(), ...this.held.installations()].filter((id) => this.full(id)));
    const probing = new Map<string, number>();
    // While holding, rows over their integration's cap are claimed into the hold.
    const skipIntegrations = new Set(
      hold > 0 ? [] : [...this.perIntegration].filter(([, n]) => n >= this.limits.integration).map(([name]) => name),
    );
    for (const [name, state] of this.breakers.tripped()) {
      if (state === 'open' || this.perIntegration.of(name) >= 1) skipIntegrations.add(name);
      else probing.set(name, 1);
    }
    const limit = Math.min(CLAIM_LIMIT, room * 2 + 1 + holdRoom);
    const postgres = this.ctx.dialect === 'postgres';
    const claim = await this.ctx.write(async (trx) => {
      const candidates = await trx
        .selectFrom('outbox as o')
        .selectAll('o')
        .where('o.dispatched_at', 'is', null)
        .where('o.available_at', '<=', now)
        .where((eb) => eb.or([eb('o.claimed_until', 'is', null), eb('o.claimed_until', '<', now)]))
        .$if(full.size > 0, (qb) => qb.where('o.installation_id', 'not in', [...full]))
        .$if(skipIntegrations.size > 0, (qb) => qb.where('o.integration_name', 'not in', [...skipIntegrations]))
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('outbox as earlier')
                .select('earlier.id')
                .whereRef('earlier.installation_id', '=', 'o.installation_id')
                .where('earlier.dispatched_at', 'is', null)
                .where('earlier.event_id', 'is', null)
                .whereRef('earlier.id', '<', 'o.id'),
            ),
          ),
        )
        .orderBy('o.id')
        .limit(limit)
        .$if(postgres, (qb) => qb.forUpdate().skipLocked())
        .execute();
      // Within the caps: count what this claim starts and holds on top of what is in flight and held.
      const taken: Handed<OutboxRow> = { start: [], hold: [] };
      const byInstallation = new Counts(this.perInstallation);
      const byIntegration = new Counts(this.perIntegration);
      const ahead = new Counts();
      const skipped = new Set<string>();
      for (const row of candidates) {
        const id = row.installation_id;
        const probe = probing.get(row.integration_name);
        const queued = this.held.of(id) + ahead.of(id);
        if (
          taken.start.length < room &&
          queued === 0 &&
          byInstallation.of(id) < this.limits.installation &&
          byIntegration.of(row.integration_name) < (probe ?? this.limits.integration)
        ) {
          byInstallation.add(id);
          byIntegration.add(row.integration_name);
          taken.start.push(row);
        } else if (probe === undefined && queued < hold && taken.hold.length < holdRoom) {
          ahead.add(id);
          taken.hold.push(row);
        } else {
          skipped.add(id);
        }
      }
      const lease = now + this.leaseMs;
      // Each row carries its lease: results are written only while this node still holds it.
      const ids = [...taken.start, ...taken.hold].map((row) => {
        row.claimed_until = lease;
        return row.id;
      });
      if (ids.length > 0) {
        await trx.updateTable('outbox').set({ claimed_until: lease }).where('id', 'in', ids).execute();
      }
      return { ...taken, skipped, complete: candidates.length < limit };
    });
    // Rows left behind wait for room: they are known, and routing does not overtake them. A claim
    // that saw every claimable row also learnt that the others it knew of have gone.
    const stillFull = [...this.leftWaiting].filter((id) => full.has(id));
    this.leftWaiting = new Set([...(claim.complete ? stillFull : this.leftWaiting), ...claim.skipped]);
    this.unknownWaiting = !claim.complete;
    for (const row of claim.start) {
      this.count(row, 1);
      this.launch(row);
    }
    this.hold(claim.hold);
    return claim.start.length + claim.hold.length > 0 && !claim.complete;
  }

  /** Starts a claimed row whose slots are counted already. */
  private launch(row: OutboxRow) {
    const dispatch = this.dispatchRow(row)
      .catch((error) =>
        error instanceof LeaseLost
          ? this.options.logger?.warn({ outbox: row.id }, error.message)
          : this.options.logger?.error({ err: error, outbox: row.id }, 'dispatch failed'),
      )
      .finally(() => {
        this.inFlight.delete(dispatch);
        this.count(row, -1);
        // A slot is free: a held row takes it, and rows waiting unclaimed are claimed now.
        this.startHeld();
        if (this.claimWorthwhile()) this.loop.wake();
      });
    this.inFlight.add(dispatch);
  }

  private async dispatchRow(row: OutboxRow) {
    /** Writes the row's result only while this node still holds its lease. */
    const owned = async (update: UpdateQueryBuilder<Database, 'outbox', 'outbox', UpdateResult>) => {
      const result = await update.where('claimed_until', '=', row.claimed_until).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw new LeaseLost(`outbox row ${row.id}`);
    };
    /** The dispatch's log line and the row's new state, in one write (one statement on PostgreSQL, without a transaction). */
    const finish = (record: Insertable<Database['dispatches']>, set: Updateable<Database['outbox']>) =>
      this.ctx.write(
        async (trx) => {
          const updated = await insertThenUpdate(
            trx,
            this.ctx.dialect,
            { into: 'dispatches', values: record },
            { table: 'outbox', set, where: { id: row.id, claimed_until: row.claimed_until } },
          );
          if (updated === 0) throw new LeaseLost(`outbox row ${row.id}`);
        },
        { standalone: true },
      );
    const settle = (outcome: string, record?: Insertable<Database['dispatches']>) => {
      const set = { dispatched_at: this.ctx.now(), outcome, claimed_until: null };
      if (record) return finish(record, set);
      return this.ctx.write((trx) => owned(trx.updateTable('outbox').set(set).where('id', '=', row.id)));
    };
    if ((row.claimed_until as number) - this.ctx.now() < this.leaseMs / 2) {
      // Held long: the lease is renewed first, so no other node takes the row meanwhile.
      const lease = this.ctx.now() + this.leaseMs;
      await this.ctx.write((trx) =>
        owned(trx.updateTable('outbox').set({ claimed_until: lease }).where('id', '=', row.id)),
      );
      row.claimed_until = lease;
    }
    const context = await loadDispatchContext(this.ctx.db, row.installation_id);
    const installation = context?.installation;
    // An installation's deleted event goes out once it is removed, paused or not.
    const deleted = DELETED_EVENTS.has(row.event_type);
    if (!context || !installation || (installation.uninstalled_at !== null && !deleted))
      return settle('skipped: uninstalled');
    const owed = JSON.parse(row.event) as Record<string, unknown> & { type: string };
    const setup = row.event_id === null; // the installation's own events: setup and deleted
    if (installation.status === 'paused' && !deleted) return settle('skipped: paused');
    if (!setup && installation.status !== 'active') return settle(`skipped: ${installation.status}`);
    const { cause: _cause, ...fields } = owed;
    const event = (setup
      ? { ...fields, eventId: `${deleted ? 'deleted' : 'setup'}_${row.id}`, status: installation.status }
      : fields) as unknown as PlatformEvent;
    const { response } = await this.call(installation, event, undefined, context);
    const record = response.record;
    let failure: string;
    let waitUntil = 0;
    if (response.answer !== undefined) {
      this.breakers.succeeded(row.integration_name);
      const answer = response.answer;
      if (answer.status >= 200 && answer.status < 300) return settle('delivered', record);
      const text = new TextDecoder().decode(answer.body).slice(0, 500);
      const notHandled = (answer.status === 404 && text.includes('event_not_handled')) || answer.status === 406;
      if (notHandled) return settle('not_handled', record);
      if (answer.status < 500 && answer.status !== 429) return settle(`failed: ${answer.status} ${text}`, record);
      failure = `${answer.status} ${text}`;
    } else {
      const error = response.error;
      failure = error.message;
      if (error instanceof HostError && WORKER_FAILURES.has(error.failure)) {
        const opened = this.breakers.failed(row.integration_name);
        if (opened) {
          await this.backOff(row.integration_name, opened.until, opened.delayMs, opened.failures, failure);
          waitUntil = opened.until;
        }
      }
    }
    const attempts = row.attempts + 1;
    if (attempts >= (this.options.maxAttempts ?? 5)) {
      return settle(`failed after ${attempts} attempts: ${failure}`, record);
    }
    await finish(record, {
      attempts,
      available_at: Math.max(waitUntil, this.ctx.now() + 1000 * 2 ** (attempts - 1)),
      claimed_until: null,
      outcome: `retrying: ${failure}`,
    });
  }

  /**
   * The circuit breaker opened for `integration`: every row owed to it waits until `until` (on
   * every node, since the wait is written to the rows), and each installation that has rows
   * waiting gets a line in its dispatch log saying why.
   */
  private async backOff(integration: string, until: number, delayMs: number, failures: number, cause: string) {
    const now = this.ctx.now();
    const reason = `waiting: the worker of ${integration} failed ${failures} times in a row (last: ${cause}); its events wait ${delayMs / 1000} s, until ${new Date(until).toISOString()} (circuit breaker)`;
    this.options.logger?.warn({ integration, until, failures }, 'circuit breaker opened');
    const held = this.held.take((row) => row.integration_name === integration);
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.releaseIn(trx, held);
      const waiting = await trx
        .selectFrom('outbox')
        .select('installation_id')
        .distinct()
        .where('integration_name', '=', integration)
        .where('dispatched_at', 'is', null)
        .execute();
      for (let i = 0; i < waiting.length; i += INSERT_CHUNK) {
        await trx
          .insertInto('dispatches')
          .values(
            waiting.slice(i, i + INSERT_CHUNK).map(({ installation_id }) => ({
              installation_id,
              event_id: null,
              event_type: 'circuit_breaker',
              host: 'platform',
              status: 0,
              duration_ms: 0,
              error: reason,
              logs: '[]',
              at: now,
            })),
          )
          .execute();
      }
      await trx
        .updateTable('outbox')
        .set({ available_at: until, outcome: reason })
        .where('integration_name', '=', integration)
        .where('dispatched_at', 'is', null)
        .where('available_at', '<', until)
        .execute();
    });
  }
}
