/**
 * Degraded, not hung (DESIGN's contract): while the database does not answer, a request that
 * needs it is answered 503 `database_unavailable` with `Retry-After` within 5 s, never a 500 and
 * never an acknowledgement; a full disk is 507 `storage_full` and makes `/readyz` 503; `/healthz`
 * and `/metrics` answer within 1 s throughout. Once the database is back, so is the node.
 *
 * PostgreSQL runs behind a TCP proxy this test controls (test-support/fault-proxy.ts): it holds
 * every byte (a hanging database) or resets every connection (a cut one). SQLite has no network:
 * there another process's connection holds the file's write lock, and the database is limited to
 * the pages it has (`max_page_count`), which SQLite answers SQLITE_FULL as it would a full disk.
 * PostgreSQL's disk_full comes from the server itself, raised by a trigger on the events table.
 */
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { ADMIN_TOKEN, backends, postgresUrl, SECRET_KEY } from '../test-support/backends.js';
import { FaultProxy } from '../test-support/fault-proxy.js';
import { type ServeProcess, spawnServe } from '../test-support/serve-process.js';
import { until } from '../test-support/webhook-world.js';

interface Timed {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const started = performance.now();
  // (Bounded: a request that hangs fails the test instead of holding it.)
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let body: Timed['body'] = {};
  try {
    body = JSON.parse(text);
  } catch {}
  return {
    status: response.status,
    ms: performance.now() - started,
    retryAfter: response.headers.get('retry-after'),
    body,
  };
}

/** The organization and space the events are about. */
async function seedSpace(platform: RunningPlatform): Promise<void> {
  const headers = { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' };
  for (const [path, body] of [
    ['/v1/orgs', { id: 'org-faults', title: 'Faults' }],
    ['/v1/orgs/org-faults/spaces', { id: 'space-faults', title: 'Faults' }],
  ] as const) {
    const response = await fetch(`${platform.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(response.status).toBeLessThan(300);
  }
}

let sequence = 0;
function ingest(platform: RunningPlatform, extra: Record<string, unknown> = {}): Promise<Timed> {
  sequence++;
  return timed(`${platform.url}/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'space_content_updated',
      spaceId: 'space-faults',
      revisionId: `r${sequence}`,
      eventId: `evt_fault_${sequence}_${Date.now()}`,
      ...extra,
    }),
  });
}

/** `/healthz` and `/metrics`: answered, in time, without the database. */
async function expectOperationsAnswer(platform: RunningPlatform): Promise<void> {
  const [health, metrics] = await Promise.all([timed(`${platform.url}/healthz`), timed(`${platform.url}/metrics`)]);
  expect({ health: health.status, metrics: metrics.status }).toEqual({ health: 200, metrics: 200 });
  expect(health.ms).toBeLessThan(1000);
  expect(metrics.ms).toBeLessThan(1000);
}

function expectUnavailable(answer: Timed): void {
  expect(answer.status).toBe(503);
  expect(answer.body.error?.code).toBe('database_unavailable');
  expect(answer.body.error?.message).toMatch(/Retry-After/);
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  expect(answer.ms).toBeLessThan(5000);
}

const pgBackend = backends.find((b) => b.name === 'postgres');

describe.skipIf(!pgBackend)('PostgreSQL behind a proxy that hangs or cuts connections', () => {
  let platform: RunningPlatform;
  let proxy: FaultProxy;
  let cleanup: () => Promise<void>;
  let databaseUrl: string;

  beforeAll(async () => {
    const fresh = await (pgBackend as NonNullable<typeof pgBackend>).fresh();
    cleanup = fresh.cleanup;
    databaseUrl = fresh.config.databaseUrl as string;
    const target = new URL(databaseUrl);
    proxy = await FaultProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    platform = await startPlatform({ ...fresh.config, databaseUrl: proxy.through(databaseUrl) });
    await seedSpace(platform);
  });
  afterEach(() => proxy.heal());
  afterAll(async () => {
    proxy?.heal();
    await platform?.close();
    await proxy?.close();
    await cleanup?.();
  });

  it('answers ingest 503 database_unavailable with Retry-After within 5 s while the database hangs, /metrics and /healthz within 1 s, and recovers', async () => {
    expect((await ingest(platform)).status).toBe(202);
    proxy.hang();
    // Several at once: on connections the pool holds, and on new ones it tries to open.
    const answers = await Promise.all([ingest(platform), ingest(platform), ingest(platform), ingest(platform)]);
    for (const answer of answers) expectUnavailable(answer);
    await expectOperationsAnswer(platform);
    // A second scrape while the first one's readings are still out answers in time too.
    await expectOperationsAnswer(platform);
    expect((await timed(`${platform.url}/readyz`)).status).toBe(503);

    proxy.heal();
    const back = await until('ingest to be acknowledged again', async () => {
      const answer = await ingest(platform);
      return answer.status === 202 ? answer : undefined;
    });
    expect(back.body).toEqual({ eventId: expect.any(String), duplicate: false });
  }, 60_000);

  it('answers 503 database_unavailable, never 500, when the connections are cut, and recovers', async () => {
    expect((await ingest(platform)).status).toBe(202);
    proxy.cut();
    const answers = await Promise.all([ingest(platform), ingest(platform), ingest(platform)]);
    for (const answer of answers) expectUnavailable(answer);
    // A read that needs the database: the same answer.
    const read = await timed(`${platform.url}/v1/installations/nothing-here`, {
      headers: { authorization: `Bearer ${platform.adminToken}` },
    });
    expectUnavailable(read);
    await expectOperationsAnswer(platform);

    proxy.heal();
    await until('ingest to be acknowledged again', async () =>
      (await ingest(platform)).status === 202 ? true : undefined,
    );
  }, 60_000);

  it('answers 507 storage_full when PostgreSQL reports disk_full, and /readyz 503 storage_full', async () => {
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      await admin.query(`create function portico_test_disk_full() returns trigger language plpgsql as $$
        begin raise exception 'could not extend file: No space left on device' using errcode = 'disk_full'; end $$`);
      await admin.query(
        'create trigger portico_test_disk_full before insert on events for each row execute function portico_test_disk_full()',
      );
      const full = await ingest(platform);
      expect(full.status).toBe(507);
      expect(full.body.error?.code).toBe('storage_full');
      expect(Number(full.retryAfter)).toBeGreaterThan(0);
      const readyz = await timed(`${platform.url}/readyz`);
      expect({ status: readyz.status, code: readyz.body.error?.code }).toEqual({ status: 503, code: 'storage_full' });
    } finally {
      await admin.query('drop trigger if exists portico_test_disk_full on events');
      await admin.query('drop function if exists portico_test_disk_full()');
      await admin.end();
    }
    expect((await ingest(platform)).status).toBe(202);
  }, 60_000);
});

describe.skipIf(!postgresUrl)('the fault proxy itself', () => {
  it('passes, holds and resets connections to PostgreSQL as told', async () => {
    const target = new URL(postgresUrl as string);
    const proxy = await FaultProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const client = new pg.Client({ connectionString: proxy.through(postgresUrl as string) });
    client.on('error', () => {});
    try {
      await client.connect();
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      proxy.hang();
      const held = client.query('select 2 as two');
      const late = await Promise.race([
        held.then(() => 'answered'),
        new Promise((r) => setTimeout(() => r('held'), 300)),
      ]);
      expect(late).toBe('held');
      proxy.heal();
      expect((await held).rows).toEqual([{ two: 2 }]);
      proxy.cut();
      await expect(client.query('select 3')).rejects.toThrow();
    } finally {
      proxy.heal();
      await client.end().catch(() => {});
      await proxy.close();
    }
  });
});

describe('SQLite locked by another process, and out of space', () => {
  const sqlite = backends.find((b) => b.name === 'sqlite') as (typeof backends)[number];
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let file: string;

  beforeAll(async () => {
    const fresh = await sqlite.fresh();
    cleanup = fresh.cleanup;
    file = join(fresh.config.dataDir, 'portico.db');
    platform = await startPlatform({ ...fresh.config, adminToken: ADMIN_TOKEN });
    await seedSpace(platform);
  });
  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
  });

  it('answers ingest 503 database_unavailable with Retry-After within 5 s while another connection holds the write lock, and recovers', async () => {
    expect((await ingest(platform)).status).toBe(202);
    const other = new SQLite(file);
    other.pragma('busy_timeout = 0');
    other.exec('begin immediate');
    try {
      expectUnavailable(await ingest(platform));
      await expectOperationsAnswer(platform);
    } finally {
      other.exec('rollback');
      other.close();
    }
    expect((await ingest(platform)).status).toBe(202);
  }, 60_000);

  it('answers 507 storage_full when the database cannot grow (SQLITE_FULL), /readyz 503 storage_full, and stores again once it can', async () => {
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(platform.ctx.db)).rows[0]?.page_count;
    expect(pages).toBeGreaterThan(0);
    await sql.raw(`pragma max_page_count = ${pages}`).execute(platform.ctx.db);
    try {
      const full = await ingest(platform, { type: 'space_view', url: 'x'.repeat(200_000), revisionId: undefined });
      expect({ status: full.status, code: full.body.error?.code }).toEqual({ status: 507, code: 'storage_full' });
      expect(Number(full.retryAfter)).toBeGreaterThan(0);
      const readyz = await timed(`${platform.url}/readyz`);
      expect({ status: readyz.status, code: readyz.body.error?.code }).toEqual({ status: 503, code: 'storage_full' });
      await expectOperationsAnswer(platform);
    } finally {
      await sql.raw('pragma max_page_count = 1073741823').execute(platform.ctx.db);
    }
    expect(
      (await ingest(platform, { type: 'space_view', url: 'x'.repeat(200_000), revisionId: undefined })).status,
    ).toBe(202);
  }, 60_000);
});

describe.each(backends)('portico serve on $name, stopped with SIGTERM while the database hangs', (backend) => {
  const DRAIN_SECONDS = 1;
  let serve: ServeProcess | undefined;
  let proxy: FaultProxy | undefined;
  let other: SQLite.Database | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    if (serve?.child.exitCode === null) serve.child.kill('SIGKILL');
    if (other?.inTransaction) other.exec('rollback');
    other?.close();
    proxy?.heal();
    await proxy?.close();
    await cleanup?.();
  });

  it('stops within its drain time and 5 s, exit code 0, with a request in flight', async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    let databaseUrl: string | undefined;
    if (fresh.config.databaseUrl !== undefined) {
      const target = new URL(fresh.config.databaseUrl);
      proxy = await FaultProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      databaseUrl = proxy.through(fresh.config.databaseUrl);
    }
    serve = await spawnServe({
      PORTICO_DATA_DIR: fresh.config.dataDir,
      PORTICO_DRAIN_SECONDS: String(DRAIN_SECONDS),
      PORTICO_LOG_LEVEL: 'warn',
      PORTICO_SECRET_KEY: SECRET_KEY,
      PORTICO_ADMIN_TOKEN: ADMIN_TOKEN,
      ...(databaseUrl ? { PORTICO_DATABASE_URL: databaseUrl } : {}),
    });
    const platform = { url: serve.url, adminToken: ADMIN_TOKEN } as RunningPlatform;
    await seedSpace(platform);
    expect((await ingest(platform)).status).toBe(202);

    if (proxy) proxy.hang();
    else {
      other = new SQLite(join(fresh.config.dataDir, 'portico.db'));
      other.exec('begin immediate');
    }
    // Requests in flight while it stops (their answers do not matter here: 503, or the connection closed).
    const inFlight = [ingest(platform).catch(() => undefined), ingest(platform).catch(() => undefined)];
    await new Promise((resolve) => setTimeout(resolve, 100));
    const signalled = performance.now();
    serve.child.kill('SIGTERM');
    const exited = await Promise.race([
      serve.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 30_000)),
    ]);
    const seconds = (performance.now() - signalled) / 1000;
    expect(exited).toBe(0);
    expect(seconds).toBeLessThan(DRAIN_SECONDS + 5);
    await Promise.all(inFlight);
  }, 60_000);
});
