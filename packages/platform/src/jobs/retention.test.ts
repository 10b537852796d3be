/**
 * The retention pruner against both back ends, on a controllable clock: what it removes and what
 * it must keep, batches of bounded size that leave other connections writing, two pruners on one
 * PostgreSQL database, the indexes its statements use, and its place in the running platform.
 */
import { Writable } from 'node:stream';
import {
  CompiledQuery,
  DeleteQueryNode,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresQueryCompiler,
  type QueryResult,
  type RootOperationNode,
  SqliteQueryCompiler,
  sql,
  type UnknownRow,
} from 'kysely';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startPlatform } from '../server.js';
import { type OpenDatabase, openDatabase } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';
import type { Database } from '../storage/schema.js';
import { type Backend, backends, postgresUrl } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';
import { type PruneCounts, type RetentionOptions, RetentionPruner } from './retention.js';

const DAY = 24 * 60 * 60 * 1000;
const RETENTION = 30 * DAY;
/** The test's clock: a fixed instant, moved by hand. */
const NOW = Date.UTC(2030, 0, 15);
const OLD = NOW - RETENTION - DAY;
const RECENT = NOW - RETENTION + DAY;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Records every DELETE the pruner runs: its table, the rows it removed, and its SQL. */
class DeleteLog implements KyselyPlugin {
  readonly deletes: { table: string; rows: number; sql: string; parameters: readonly unknown[] }[] = [];
  private readonly pending = new Map<unknown, { table: string; sql: string; parameters: readonly unknown[] }>();
  private readonly compiler: PostgresQueryCompiler | SqliteQueryCompiler;

  constructor(dialect: OpenDatabase['dialect']) {
    this.compiler = dialect === 'postgres' ? new PostgresQueryCompiler() : new SqliteQueryCompiler();
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (DeleteQueryNode.is(node)) {
      const from = node.from.froms[0] as { table?: { identifier?: { name?: string } } };
      const compiled = this.compiler.compileQuery(node, queryId);
      this.pending.set(queryId, {
        table: from.table?.identifier?.name ?? '?',
        sql: compiled.sql,
        parameters: compiled.parameters,
      });
    }
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const statement = this.pending.get(queryId);
    if (statement !== undefined) {
      this.pending.delete(queryId);
      this.deletes.push({ ...statement, rows: Number(result.numAffectedRows ?? 0n) });
    }
    return result;
  }
}

/** A fresh, migrated database with one installation to hang rows on, and helpers to fill it. */
async function fresh(backend: Backend) {
  const { config, cleanup } = await backend.fresh();
  const location = { url: config.databaseUrl, sqliteFile: `${config.dataDir}/portico.db` };
  const opened: OpenDatabase[] = [];
  cleanups.push(async () => {
    for (const database of opened) await database.close();
    await cleanup();
  });
  const open = () => {
    const database = openDatabase(location);
    opened.push(database);
    return database;
  };
  const database = open();
  await migrate(database);
  const db = database.db;
  const insert = async (table: keyof Database, rows: Record<string, unknown>[]) => {
    for (let i = 0; i < rows.length; i += 500) {
      await db
        .insertInto(table)
        .values(rows.slice(i, i + 500) as never)
        .execute();
    }
  };
  await insert('organizations', [{ id: 'acme', title: 'Acme', subdomain: null, created_at: OLD }]);
  await insert('integrations', [
    {
      name: 'probe',
      organization_id: 'acme',
      visibility: 'private',
      share_token: 'share',
      latest_version: 1,
      created_by: 'ada',
      created_at: OLD,
      updated_at: OLD,
    },
  ]);
  await insert(
    'installations',
    ['inst', 'inst2'].map((id) => ({
      id,
      integration_name: 'probe',
      organization_id: 'acme',
      target_type: 'organization',
      target_id: `place-${id}`,
      parent_id: null,
      status: 'active',
      configuration: '{}',
      installation_key: 'key',
      created_by: 'ada',
      created_at: OLD,
      updated_at: OLD,
      uninstalled_at: null,
    })),
  );
  let clock = NOW;
  const contextOf = (opened: OpenDatabase, db: Kysely<Database> = opened.db): RetentionOptions['ctx'] => ({
    db,
    dialect: opened.dialect,
    now: () => clock,
  });
  return {
    database,
    db,
    open,
    insert,
    contextOf,
    setClock(at: number) {
      clock = at;
    },
    /** A pruner on `on` (default: the first connection) whose deletes are logged. */
    pruner(options: { batchSize?: number; on?: OpenDatabase } = {}) {
      const on = options.on ?? database;
      const log = new DeleteLog(on.dialect);
      const pruner = new RetentionPruner({
        ctx: contextOf(on, on.db.withPlugin(log)),
        retentionMs: RETENTION,
        ...(options.batchSize ? { batchSize: options.batchSize } : {}),
      });
      return { pruner, log };
    },
    async count(table: keyof Database): Promise<number> {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async keys(table: 'events' | 'deliveries' | 'recoveries'): Promise<string[]> {
      const rows =
        table === 'events'
          ? await db.selectFrom('events').select('event_id as key').orderBy('event_id').execute()
          : await db.selectFrom(table).select('id as key').orderBy('id').execute();
      return rows.map((r) => r.key);
    },
  };
}

const event = (eventId: string, receivedAt: number, routedAt: number | null) => ({
  event_id: eventId,
  type: 'space_content_updated',
  payload: JSON.stringify({ type: 'space_content_updated', eventId, spaceId: 'docs' }),
  received_at: receivedAt,
  routed_at: routedAt,
});
const outbox = (eventId: string | null, createdAt: number, dispatchedAt: number | null) => ({
  installation_id: 'inst',
  event_id: eventId,
  event: JSON.stringify({ type: eventId === null ? 'installation_setup' : 'space_content_updated' }),
  created_at: createdAt,
  dispatched_at: dispatchedAt,
  outcome: dispatchedAt === null ? null : 'delivered',
});
const dispatch = (at: number) => ({
  installation_id: 'inst',
  event_id: null,
  event_type: 'space_content_updated',
  host: 'in-process',
  status: 200,
  duration_ms: 3,
  error: null,
  logs: '[]',
  at,
});
const egress = (at: number) => ({
  installation_id: 'inst',
  integration_name: 'probe',
  method: 'GET',
  url: 'https://example.com/',
  status: 200,
  refused: null,
  at,
});
const delivery = (id: string, status: 'pending' | 'delivered' | 'failed', updatedAt: number, attempts: number) => ({
  id,
  installation_id: 'inst',
  event_id: `evt_${id}`,
  type: 'space_content_updated',
  url: 'https://example.com/hook',
  body: '{}',
  status,
  attempts,
  next_attempt_at: status === 'pending' ? updatedAt + 1000 : null,
  claimed_until: null,
  last_error: status === 'failed' ? 'the receiver answered 500' : null,
  redelivery_of: null,
  created_at: updatedAt - 10_000,
  updated_at: updatedAt,
});
const recovery = (id: string, status: 'running' | 'done' | 'failed', at: number) => ({
  id,
  installation_id: 'inst',
  since: at - DAY,
  until: at,
  status,
  total: 1,
  done: status === 'running' ? 0 : 1,
  errors: 0,
  last_error: null,
  cursor_created_at: null,
  cursor_id: null,
  claimed_until: null,
  created_by: 'ada',
  created_at: at,
  updated_at: at,
  finished_at: status === 'running' ? null : at,
});
const attemptsOf = (deliveryId: string, count: number, at: number) =>
  Array.from({ length: count }, (_, i) => ({
    delivery_id: deliveryId,
    number: i + 1,
    at: at - (count - i) * 1000,
    status: 500,
    duration_ms: 12,
    error: null,
    response_excerpt: null,
  }));

const none: PruneCounts = {
  outbox: 0,
  events: 0,
  dispatches: 0,
  delivery_attempts: 0,
  deliveries: 0,
  egress: 0,
  recoveries: 0,
};

describe.each(backends)('retention on $name', (backend) => {
  it('removes finished rows older than the retention period from every table and keeps recent ones', async () => {
    const store = await fresh(backend);
    await store.insert('events', [
      event('evt_old', OLD - DAY, OLD - DAY),
      event('evt_recent', RECENT, RECENT),
      // Received long ago but routed within the period: received_at decides.
      event('evt_old_routed_late', OLD, RECENT),
    ]);
    await store.insert('outbox', [
      outbox('evt_old', OLD - DAY, OLD),
      outbox('evt_recent', RECENT, RECENT),
      // Created long ago, dispatched (after retries) within the period: dispatched_at decides.
      outbox('evt_old_routed_late', OLD, RECENT),
      outbox(null, OLD - DAY, OLD),
    ]);
    await store.insert('dispatches', [dispatch(OLD), dispatch(RECENT), dispatch(OLD - 300 * DAY)]);
    await store.insert('egress', [egress(OLD), egress(RECENT)]);
    await store.insert('deliveries', [
      delivery('dlv_old_delivered', 'delivered', OLD, 2),
      delivery('dlv_old_failed', 'failed', OLD, 4),
      // Created long ago, last changed within the period: updated_at decides.
      delivery('dlv_recent', 'delivered', RECENT, 1),
    ]);
    await store.insert('delivery_attempts', [
      ...attemptsOf('dlv_old_delivered', 2, OLD),
      ...attemptsOf('dlv_old_failed', 4, OLD),
      ...attemptsOf('dlv_recent', 1, RECENT),
    ]);

    await store.insert('recoveries', [
      recovery('rec_old_done', 'done', OLD),
      recovery('rec_old_failed', 'failed', OLD),
      recovery('rec_old_running', 'running', OLD),
      recovery('rec_recent', 'done', RECENT),
    ]);

    const { pruner } = store.pruner();
    expect(await pruner.pruneOnce()).toEqual({
      outbox: 2,
      events: 2,
      dispatches: 2,
      delivery_attempts: 6,
      deliveries: 2,
      egress: 1,
      recoveries: 2,
    });
    // A running job is never removed, however old; a finished one goes by when it finished.
    expect(await store.keys('recoveries')).toEqual(['rec_old_running', 'rec_recent']);
    expect(await store.keys('events')).toEqual(['evt_recent']);
    expect(
      (await store.db.selectFrom('outbox').select('event_id').orderBy('id').execute()).map((r) => r.event_id),
    ).toEqual(['evt_recent', 'evt_old_routed_late']);
    expect((await store.db.selectFrom('dispatches').select('at').execute()).map((r) => Number(r.at))).toEqual([RECENT]);
    expect((await store.db.selectFrom('egress').select('at').execute()).map((r) => Number(r.at))).toEqual([RECENT]);
    expect(await store.keys('deliveries')).toEqual(['dlv_recent']);
    expect(
      (await store.db.selectFrom('delivery_attempts').select('delivery_id').execute()).map((r) => r.delivery_id),
    ).toEqual(['dlv_recent']);

    // Nothing more is old now; two days later what was recent has aged out.
    expect(await pruner.pruneOnce()).toEqual(none);
    store.setClock(NOW + 2 * DAY);
    expect(await pruner.pruneOnce()).toEqual({
      outbox: 2,
      events: 1,
      dispatches: 1,
      delivery_attempts: 1,
      deliveries: 1,
      egress: 1,
      recoveries: 1,
    });
    for (const table of ['events', 'outbox', 'dispatches', 'egress', 'deliveries', 'delivery_attempts'] as const) {
      expect(await store.count(table)).toBe(0);
    }
  });

  it('never removes what is still owed, however old: pending outbox rows, unrouted events and events still owed, pending deliveries', async () => {
    const store = await fresh(backend);
    const ancient = NOW - 400 * DAY;
    await store.insert('events', [
      event('evt_unrouted', ancient, null),
      event('evt_owed', ancient, ancient),
      event('evt_done', ancient, ancient),
    ]);
    await store.insert('outbox', [
      outbox(null, ancient, null), // a setup event never dispatched
      outbox('evt_owed', ancient, null), // still owed to one installation…
      { ...outbox('evt_owed', ancient, ancient), installation_id: 'inst2' }, // …though done for another
      outbox('evt_done', ancient, ancient),
    ]);
    await store.insert('deliveries', [
      delivery('dlv_pending', 'pending', ancient, 3),
      delivery('dlv_never_tried', 'pending', ancient, 0),
    ]);
    await store.insert('delivery_attempts', attemptsOf('dlv_pending', 3, ancient));

    const { pruner } = store.pruner();
    expect(await pruner.pruneOnce()).toEqual({ ...none, outbox: 2, events: 1 });
    expect(await store.keys('events')).toEqual(['evt_owed', 'evt_unrouted']);
    expect(
      (await store.db.selectFrom('outbox').select(['event_id', 'dispatched_at']).orderBy('id').execute()).map(
        (r) => r.event_id,
      ),
    ).toEqual([null, 'evt_owed']);
    expect(await store.keys('deliveries')).toEqual(['dlv_never_tried', 'dlv_pending']);
    expect(await store.count('delivery_attempts')).toBe(3);

    // Once the work is done (and that is old too), it goes.
    await store.db.updateTable('outbox').set({ dispatched_at: ancient }).execute();
    await store.db.updateTable('events').set({ routed_at: ancient }).execute();
    await store.db
      .updateTable('deliveries')
      .set({ status: 'failed', next_attempt_at: null, updated_at: ancient })
      .execute();
    expect(await pruner.pruneOnce()).toEqual({
      ...none,
      outbox: 2,
      events: 2,
      deliveries: 2,
      delivery_attempts: 3,
    });
  });

  it('deletes in bounded batches, each committed on its own, while another connection keeps writing', async () => {
    const store = await fresh(backend);
    const many = 2000;
    const ids = Array.from({ length: many }, (_, i) => `evt_${String(i).padStart(5, '0')}`);
    await store.insert(
      'events',
      ids.map((id) => event(id, OLD, OLD)),
    );
    await store.insert(
      'outbox',
      ids.map((id) => outbox(id, OLD, OLD)),
    );
    await store.insert(
      'dispatches',
      ids.map(() => dispatch(OLD)),
    );
    const deliveryIds = Array.from({ length: 200 }, (_, i) => `dlv_${String(i).padStart(4, '0')}`);
    await store.insert(
      'deliveries',
      deliveryIds.map((id) => delivery(id, 'delivered', OLD, 2)),
    );
    await store.insert(
      'delivery_attempts',
      deliveryIds.flatMap((id) => attemptsOf(id, 2, OLD)),
    );

    const { pruner, log } = store.pruner({ batchSize: 100 });
    const other = store.open();
    let pruning = true;
    let written = 0;
    // What the other connection sees of the old dispatches as it goes.
    const seen = new Set<number>();
    const writer = (async () => {
      while (pruning) {
        const old = await other.db
          .selectFrom('dispatches')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('at', '<', NOW - RETENTION)
          .executeTakeFirstOrThrow();
        seen.add(Number(old.n));
        await other.db
          .insertInto('events')
          .values(event(`evt_new_${written}`, NOW, null))
          .execute();
        await other.db.insertInto('dispatches').values(dispatch(NOW)).execute();
        written += 1;
        // As requests do, each write arrives from the event loop (not as one endless chain of promises).
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const removed = await pruner.pruneOnce();
    const writtenWhilePruning = written;
    pruning = false;
    await writer;

    expect(removed).toEqual({
      outbox: many,
      events: many,
      dispatches: many,
      delivery_attempts: 400,
      deliveries: 200,
      egress: 0,
      recoveries: 0,
    });
    // Every statement removed at most one batch.
    for (const statement of log.deletes) expect(statement.rows).toBeLessThanOrEqual(100);
    const statements = (table: string) => log.deletes.filter((d) => d.table === table).length;
    expect(statements('dispatches')).toBeGreaterThanOrEqual(many / 100);
    expect(statements('events')).toBeGreaterThanOrEqual(many / 100);
    expect(statements('deliveries')).toBeGreaterThanOrEqual(200 / 100);
    expect(statements('delivery_attempts')).toBeGreaterThanOrEqual(400 / 100);
    // Each batch was committed on its own: the other connection saw the old rows go part by part.
    expect([...seen].some((n) => n > 0 && n < many && n % 100 === 0)).toBe(true);
    // The other connection went on writing, and what it wrote is recent: all of it is there.
    expect(writtenWhilePruning).toBeGreaterThan(0);
    expect(await store.count('events')).toBe(written);
    expect(await store.count('dispatches')).toBe(written);
    expect(await store.count('outbox')).toBe(0);
    expect(await store.count('deliveries')).toBe(0);
  });

  it('keeps a batch of attempts to the batch size when deliveries have dozens (the extended policy), and removes them all', async () => {
    const store = await fresh(backend);
    const deliveryIds = Array.from({ length: 10 }, (_, i) => `dlv_ext_${i}`);
    await store.insert(
      'deliveries',
      deliveryIds.map((id) => delivery(id, 'failed', OLD, 43)),
    );
    await store.insert(
      'delivery_attempts',
      deliveryIds.flatMap((id) => attemptsOf(id, 43, OLD)),
    );
    await store.insert('deliveries', [delivery('dlv_recent', 'failed', NOW, 43)]);
    await store.insert('delivery_attempts', attemptsOf('dlv_recent', 43, NOW));
    const { pruner, log } = store.pruner({ batchSize: 100 });
    const removed = await pruner.pruneOnce();
    expect(removed).toMatchObject({ delivery_attempts: 430, deliveries: 10 });
    const attemptStatements = log.deletes.filter((d) => d.table === 'delivery_attempts');
    for (const statement of attemptStatements) expect(statement.rows).toBeLessThanOrEqual(100);
    expect(attemptStatements.length).toBeGreaterThanOrEqual(5);
    expect(await store.keys('deliveries')).toEqual(['dlv_recent']);
    expect(await store.count('delivery_attempts')).toBe(43);
  });

  it('uses an index for every statement it runs, never a scan of a whole table', async () => {
    const store = await fresh(backend);
    await store.insert('events', [event('evt_1', OLD, OLD), event('evt_2', OLD, null)]);
    await store.insert('outbox', [outbox('evt_1', OLD, OLD), outbox('evt_2', OLD, null)]);
    await store.insert('dispatches', [dispatch(OLD), dispatch(NOW)]);
    await store.insert('egress', [egress(OLD), egress(NOW)]);
    await store.insert('deliveries', [delivery('dlv_1', 'delivered', OLD, 1), delivery('dlv_2', 'pending', NOW, 0)]);
    await store.insert('delivery_attempts', attemptsOf('dlv_1', 1, OLD));
    await store.insert('recoveries', [recovery('rec_1', 'done', OLD), recovery('rec_2', 'running', OLD)]);
    const { pruner, log } = store.pruner();
    await pruner.pruneOnce();
    expect(new Set(log.deletes.map((d) => d.table))).toEqual(
      new Set(['outbox', 'events', 'dispatches', 'delivery_attempts', 'deliveries', 'egress', 'recoveries']),
    );
    for (const statement of log.deletes) {
      const { scans, plan } = await fullScans(store.database, statement.sql, statement.parameters);
      expect(scans, `${statement.sql}\n${plan}`).toEqual([]);
    }
  });

  it('runs a pass when started, logs what it removed, and stops after the batch in flight', async () => {
    const store = await fresh(backend);
    await store.insert(
      'dispatches',
      Array.from({ length: 250 }, () => dispatch(OLD)),
    );
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    const started = new RetentionPruner({
      ctx: store.contextOf(store.database),
      retentionMs: RETENTION,
      batchSize: 100,
      logger,
      intervalMs: 60 * 60 * 1000,
    });
    started.start();
    const line = await until('the summary line', () => lines.find((l) => l.msg !== undefined));
    expect(line).toMatchObject({
      level: 30,
      removed: { ...none, dispatches: 250 },
      msg: 'retention: removed 250 rows older than the retention period',
    });
    await started.stop();

    // Stopping while a pass runs: the batch in flight finishes, and no other starts.
    await store.insert(
      'outbox',
      Array.from({ length: 250 }, () => outbox(null, OLD, OLD)),
    );
    const { pruner, log } = store.pruner({ batchSize: 100 });
    pruner.start();
    await pruner.stop();
    expect(log.deletes).toEqual([expect.objectContaining({ table: 'outbox', rows: 100 })]);
    await new Promise((r) => setImmediate(r));
    expect(log.deletes).toHaveLength(1);
    expect(await store.count('outbox')).toBe(150);
  });
});

describe.skipIf(!postgresUrl)('two pruners on one PostgreSQL database', () => {
  it('prune at once without failing, waiting for each other, or removing anything twice', async () => {
    const postgres = backends.find((b) => b.name === 'postgres') as Backend;
    const store = await fresh(postgres);
    const ids = Array.from({ length: 1500 }, (_, i) => `evt_${i}`);
    await store.insert(
      'events',
      ids.map((id) => event(id, OLD, OLD)),
    );
    await store.insert(
      'outbox',
      ids.map((id) => outbox(id, OLD, OLD)),
    );
    await store.insert(
      'dispatches',
      ids.map(() => dispatch(OLD)),
    );
    await store.insert(
      'egress',
      ids.map(() => egress(OLD)),
    );
    const deliveryIds = Array.from({ length: 300 }, (_, i) => `dlv_${i}`);
    await store.insert(
      'deliveries',
      deliveryIds.map((id) => delivery(id, 'failed', OLD, 4)),
    );
    await store.insert(
      'delivery_attempts',
      deliveryIds.flatMap((id) => attemptsOf(id, 4, OLD)),
    );

    const a = store.pruner({ batchSize: 40, on: store.open() });
    const b = store.pruner({ batchSize: 40, on: store.open() });
    const [first, second] = await Promise.all([a.pruner.pruneOnce(), b.pruner.pruneOnce()]);
    const total = Object.fromEntries(
      Object.keys(none).map((table) => [
        table,
        (first as PruneCounts)[table as keyof PruneCounts] + (second as PruneCounts)[table as keyof PruneCounts],
      ]),
    );
    expect(total).toEqual({
      outbox: 1500,
      events: 1500,
      dispatches: 1500,
      egress: 1500,
      deliveries: 300,
      delivery_attempts: 1200,
      recoveries: 0,
    });
    for (const table of ['events', 'outbox', 'dispatches', 'egress', 'deliveries', 'delivery_attempts'] as const) {
      expect(await store.count(table)).toBe(0);
    }
  });
});

describe.each(backends)('the platform on $name', (backend) => {
  it('starts the pruner with the retention setting and stops it on close', async () => {
    const { config, cleanup } = await backend.fresh();
    cleanups.push(cleanup);
    const platform = await startPlatform({ ...config, tuning: { retentionMs: 2 * DAY } });
    cleanups.push(() => platform.close());
    await platform.ctx.db
      .insertInto('egress')
      .values(
        [egress(Date.now() - 3 * DAY), egress(Date.now() - DAY)].map((row) => ({ ...row, installation_id: null })),
      )
      .execute();
    // The pass at start may have run already: run one more, as the hourly timer would.
    await platform.retention.stop();
    platform.retention.start();
    await until('the old egress row to go', async () => {
      const rows = await platform.ctx.db.selectFrom('egress').select('at').execute();
      return rows.length === 1 ? rows : undefined;
    });
    await platform.close();
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * The reads of a whole table (or a whole index) in the plan of one statement: SQLite's SCAN lines;
 * on PostgreSQL, sequential scans and index scans without a condition, with sequential scans,
 * hash and merge joins and materializing priced out (on tables this small the planner would rather
 * read them whole, so the question asked is whether an index can serve every access row by row,
 * as it must at scale).
 */
async function fullScans(
  database: OpenDatabase,
  text: string,
  parameters: readonly unknown[],
): Promise<{ scans: string[]; plan: string }> {
  if (database.dialect === 'sqlite') {
    const rows = database.sqlite?.prepare(`explain query plan ${text}`).all(...parameters) as { detail: string }[];
    const plan = rows.map((r) => r.detail);
    return { scans: plan.filter((line) => /\bSCAN\b/.test(line)), plan: plan.join('\n') };
  }
  const settings = ['enable_seqscan', 'enable_hashjoin', 'enable_mergejoin', 'enable_material'];
  return database.db.connection().execute(async (connection) => {
    for (const setting of settings) await sql`set ${sql.raw(setting)} = off`.execute(connection);
    try {
      const result = await connection.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(`explain (format json) ${text}`, [...parameters]),
      );
      const root = result.rows[0]?.['QUERY PLAN'][0].Plan as PlanNode;
      const scans: string[] = [];
      const walk = (node: PlanNode) => {
        const type = node['Node Type'];
        if (type === 'Seq Scan') scans.push(`Seq Scan on ${node['Relation Name']}`);
        if (/Index/.test(type) && node['Index Cond'] === undefined) scans.push(`${type} using ${node['Index Name']}`);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk(root);
      return { scans, plan: JSON.stringify(root, null, 1) };
    } finally {
      for (const setting of settings) await sql`reset ${sql.raw(setting)}`.execute(connection);
    }
  });
}
