/**
 * The server's Prometheus metrics (`GET /metrics`), on a registry of its own (tests run several
 * servers in one process). Two kinds (docs/decisions/033-observability.md):
 *
 * - **Counted as it happens**, in memory: events ingested, dispatches settled, delivery attempts
 *   and deliveries ended, attempt latency, ingest → receipt, group-commit batch sizes, workerd
 *   stops. The pipeline calls the methods below; they touch no database and allocate little.
 * - **Read on scrape**: what is owed (one count query each), endpoints by health, live workerd
 *   workers and their memory, the database pool, what the delivery engine holds in memory.
 *
 * Labels come from small fixed sets (event type, outcome, outcome class, stop reason, state), never
 * an installation, endpoint, event or delivery id; the one exception, `portico_top_failing_endpoints`,
 * names at most TOP_FAILING_ENDPOINTS endpoints.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PostResult } from '../delivery/post-webhook.js';
import { type NewOutboxRow, settledAtRouting } from '../storage/repositories/outbox.js';
import * as owed from '../storage/repositories/owed-counts.js';
import type { Database } from '../storage/schema.js';
import { BoundedLabels } from './bounded-labels.js';
import { ReceiptClock } from './receipt-clock.js';

/** How a delivery attempt went, as a label: the answer's status class, or why there was none. */
export type AttemptClass = '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'network' | 'refused';

export function attemptClass(post: PostResult): AttemptClass {
  if (post.kind === 'refused') return 'refused';
  if (post.kind === 'network') return post.error.name === 'TimeoutError' ? 'timeout' : 'network';
  if (post.status >= 200 && post.status < 300) return '2xx';
  if (post.status >= 300 && post.status < 400) return '3xx';
  return post.status >= 500 ? '5xx' : '4xx';
}

/** A dispatch's settled outcome as a label (the outbox's `outcome` text starts with it). */
export function dispatchOutcome(outcome: string): string {
  if (outcome === 'delivered' || outcome === 'not_handled') return outcome;
  if (outcome.startsWith('skipped')) return 'skipped';
  if (outcome.startsWith('retrying')) return 'retried';
  return 'failed';
}

/** What the scrape reads from the running parts (server.ts gives them once they exist). */
export interface MetricSources {
  db: Kysely<Database>;
  /** Deliveries this node's engine holds in memory: waiting for a slot, and attempts in flight. */
  deliveriesHeld(): { waiting: number; attempting: number };
  /** Live workerd workers and the resident memory of their processes. */
  workers(): { live: number; memoryBytes: number };
  /** The PostgreSQL pool's connections (undefined on SQLite, which has none). */
  pool(): { total: number; idle: number; waiting: number; max: number } | undefined;
  logger?: Logger | undefined;
}

/**
 * How long a scrape waits for the database's readings (ms). `/metrics` never waits on the database
 * longer: a reading without an answer by then leaves its gauge without samples for that scrape, and
 * the next scrape does not ask again while it is still out (DESIGN: degraded, not hung).
 */
export const SCRAPE_DATABASE_BUDGET_MS = 500;

/**
 * Node's default gauges whose names end in `_total`, which Prometheus keeps for counters (promtool
 * refuses them): not exported. Their sums by type are (`nodejs_active_handles` and so on).
 */
const GAUGES_NAMED_AS_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * How many endpoints `portico_top_failing_endpoints` names: the one metric labelled by endpoint
 * and installation ids, bounded so that it never holds more series than this.
 */
export const TOP_FAILING_ENDPOINTS = 10;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const RECEIPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

export class PlatformMetrics {
  readonly registry = new Registry();
  private sources: MetricSources | undefined;
  private readonly types = new BoundedLabels();
  private readonly receipts = new ReceiptClock();

  private readonly ingested = new Counter({
    name: 'portico_events_ingested_total',
    help: 'Events stored, by type (a repeated eventId is counted in portico_events_duplicate_total instead)',
    labelNames: ['type'],
    registers: [this.registry],
  });
  private readonly duplicates = new Counter({
    name: 'portico_events_duplicate_total',
    help: 'Events accepted as duplicates of an eventId seen before',
    registers: [this.registry],
  });
  private readonly dispatches = new Counter({
    name: 'portico_dispatches_total',
    help: 'Dispatches settled, by outcome: delivered, not_handled, skipped, retried (will be tried again), failed',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly attempts = new Counter({
    name: 'portico_delivery_attempts_total',
    help: 'Webhook delivery attempts, by outcome class: 2xx, 3xx, 4xx, 5xx, timeout, network, refused',
    labelNames: ['class'],
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: 'portico_deliveries_total',
    help: 'Webhook deliveries ended on this node, by outcome: delivered or failed',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly alertAttempts = new Counter({
    name: 'portico_alert_delivery_attempts_total',
    help: 'Operator alert delivery attempts (to PORTICO_ALERT_URL and organizations’ alert URLs), by outcome class; not in portico_delivery_attempts_total',
    labelNames: ['class'],
    registers: [this.registry],
  });
  private readonly alertDeliveries = new Counter({
    name: 'portico_alert_deliveries_total',
    help: 'Operator alert deliveries ended on this node, by outcome: delivered or failed; not in portico_deliveries_total',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'portico_delivery_attempt_duration_seconds',
    help: 'Time from sending a delivery attempt to its answer (or its failure), by outcome class',
    labelNames: ['class'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly receipt = new Histogram({
    name: 'portico_ingest_to_receipt_seconds',
    help: 'Time from an event stored to a receiver answering 2xx to its delivery (events ingested on this node)',
    buckets: RECEIPT_BUCKETS,
    registers: [this.registry],
  });
  private readonly batches = new Histogram({
    name: 'portico_group_commit_batch_size',
    help: 'Writes per shared transaction (storage/group-commit.ts)',
    buckets: BATCH_BUCKETS,
    registers: [this.registry],
  });
  private readonly workerStops = new Counter({
    name: 'portico_workerd_worker_stops_total',
    help: 'workerd workers stopped, by reason: idle, evicted, timeout, memory, too_large, crashed, startup, closed',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const name of GAUGES_NAMED_AS_COUNTERS) this.registry.removeSingleMetric(name);
    this.scraped('portico_outbox_owed', 'Outbox rows not dispatched yet (all nodes)', [], async (gauge, s) => {
      gauge.set(await owed.owedDispatches(s.db));
    });
    this.scraped('portico_events_unrouted', 'Events stored but not routed yet (all nodes)', [], async (gauge, s) => {
      gauge.set(await owed.unroutedEvents(s.db));
    });
    this.scraped(
      'portico_deliveries_pending',
      'Pending deliveries (all nodes), by state: first_attempt (not attempted yet) or retry_scheduled',
      ['state'],
      async (gauge, s) => {
        const pending = await owed.pendingDeliveries(s.db);
        gauge.set({ state: 'first_attempt' }, pending.first);
        gauge.set({ state: 'retry_scheduled' }, pending.retry);
      },
    );
    this.scraped('portico_endpoints', 'Delivery endpoints by health state', ['state'], async (gauge, s) => {
      for (const [state, n] of Object.entries(await owed.endpointsByHealth(s.db))) gauge.set({ state }, n);
    });
    this.scraped(
      'portico_top_failing_endpoints',
      `Failed attempts in a row of the ${TOP_FAILING_ENDPOINTS} endpoints (not disabled) that fail most, by endpoint and installation id (all nodes); at most ${TOP_FAILING_ENDPOINTS} series`,
      ['endpoint', 'installation'],
      async (gauge, s) => {
        for (const row of await owed.topFailingEndpoints(s.db, TOP_FAILING_ENDPOINTS))
          gauge.set({ endpoint: row.id, installation: row.installation_id }, Number(row.consecutive_failures));
      },
    );
    this.scraped(
      'portico_deliveries_held',
      "Deliveries this node's engine holds in memory, by state: waiting (for a slot) or attempting",
      ['state'],
      (gauge, s) => {
        const held = s.deliveriesHeld();
        gauge.set({ state: 'waiting' }, held.waiting);
        gauge.set({ state: 'attempting' }, held.attempting);
      },
    );
    this.scraped('portico_workerd_workers', 'Live workerd workers on this node', [], (gauge, s) => {
      gauge.set(s.workers().live);
    });
    this.scraped(
      'portico_workerd_memory_bytes',
      'Resident memory of the live workerd worker processes',
      [],
      (gauge, s) => {
        gauge.set(s.workers().memoryBytes);
      },
    );
    this.scraped(
      'portico_db_pool_connections',
      "PostgreSQL connections, the API's pool and the delivery engine's together, by state: idle, busy, waiting (requests waiting for one), max",
      ['state'],
      (gauge, s) => {
        const pool = s.pool();
        if (pool === undefined) return;
        gauge.set({ state: 'idle' }, pool.idle);
        gauge.set({ state: 'busy' }, pool.total - pool.idle);
        gauge.set({ state: 'waiting' }, pool.waiting);
        gauge.set({ state: 'max' }, pool.max);
      },
    );
  }

  /** Gives the scrape the parts it reads; until then those gauges have no samples. */
  watch(sources: MetricSources): void {
    this.sources = sources;
  }

  /** Events a write stored (`inserted`) out of those it was given; the others were duplicates. */
  eventsStored(rows: readonly { event_id: string; type: string }[], inserted: ReadonlySet<string>, at: number): void {
    const counted = new Set<string>();
    for (const row of rows) {
      if (inserted.has(row.event_id) && !counted.has(row.event_id)) {
        counted.add(row.event_id);
        this.ingested.inc({ type: this.types.of(row.type) });
        this.receipts.stored(row.event_id, at);
      } else this.duplicates.inc();
    }
  }

  dispatchSettled(outcome: string): void {
    this.dispatches.inc({ outcome: dispatchOutcome(outcome) });
  }

  /**
   * The rows routing wrote settled (an event a paused installation missed) end there: counted as
   * settled dispatches once the write that stored them committed, for the events it stored.
   */
  settledAtRouting(rows: readonly NewOutboxRow[], stored: ReadonlySet<string>): void {
    for (const row of rows) {
      if (settledAtRouting(row) && stored.has(row.event_id as string)) this.dispatchSettled(row.outcome as string);
    }
  }

  /** A delivery recorded failed without an attempt (its subscription is disabled). */
  deliveryFailedUnattempted(): void {
    this.deliveries.inc({ outcome: 'failed' });
  }

  /**
   * One delivery attempt whose result was written: `status` is the delivery's status after it.
   * `receiver` says whose it was: an operator alert's (an alerts installation's, see
   * `isAlertsInstallation`) is counted apart, so that alerts never read as customers' deliveries.
   */
  attempted(
    eventId: string,
    post: PostResult,
    status: 'pending' | 'delivered' | 'failed',
    at: number,
    receiver: 'customer' | 'alert' = 'customer',
  ): void {
    const kind = attemptClass(post);
    if (receiver === 'alert') {
      this.alertAttempts.inc({ class: kind });
      if (status !== 'pending') this.alertDeliveries.inc({ outcome: status });
      return;
    }
    this.attempts.inc({ class: kind });
    this.latency.observe({ class: kind }, post.durationMs / 1000);
    if (status === 'pending') return;
    this.deliveries.inc({ outcome: status });
    if (status !== 'delivered') return;
    const seconds = this.receipts.since(eventId, at);
    if (seconds !== undefined) this.receipt.observe(seconds);
  }

  batchCommitted(size: number): void {
    this.batches.observe(size);
  }

  workerStopped(reason: string): void {
    this.workerStops.inc({ reason });
  }

  /** When the readings of the scrape under way must be in (SCRAPE_DATABASE_BUDGET_MS). */
  private scrapeDeadline = 0;

  /** The exposition text and its content type. */
  async render(): Promise<{ text: string; contentType: string }> {
    this.scrapeDeadline = performance.now() + SCRAPE_DATABASE_BUDGET_MS;
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  /**
   * A gauge set when scraped. A reading that fails leaves the gauge without samples for that scrape
   * (no stale value is shown) and is logged; the other metrics are still answered.
   */
  private scraped(
    name: string,
    help: string,
    labelNames: string[],
    read: (gauge: Gauge<string>, sources: MetricSources) => Promise<void> | void,
  ): void {
    const metrics = this;
    /** A reading still out from an earlier scrape (the database did not answer it in time). */
    let outstanding: Promise<void> | undefined;
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        const sources = metrics.sources;
        if (sources === undefined || outstanding !== undefined) return;
        let timer: NodeJS.Timeout | undefined;
        try {
          const reading = read(this, sources);
          if (reading === undefined) return;
          outstanding = reading;
          const clear = () => {
            if (outstanding === reading) outstanding = undefined;
          };
          reading.then(clear, clear);
          const late = new Promise<'late'>((resolve) => {
            timer = setTimeout(() => resolve('late'), Math.max(0, metrics.scrapeDeadline - performance.now()));
          });
          if ((await Promise.race([reading, late])) === 'late') {
            this.reset();
            sources.logger?.warn(
              { metric: name },
              `the database did not answer a metric's reading within ${SCRAPE_DATABASE_BUDGET_MS} ms; it has no samples in this scrape`,
            );
          }
        } catch (error) {
          this.reset();
          sources.logger?.warn({ err: error, metric: name }, 'could not read a metric');
        } finally {
          clearTimeout(timer);
        }
      },
    });
  }
}
