/**
 * GET /readyz on the real server, on SQLite and PostgreSQL: ready once the database answers with
 * every migration applied and both engines run; 503 with the reason when a migration is missing,
 * when an engine is stopped, when PostgreSQL refuses connections, and while the server drains.
 * /healthz answers as before throughout.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { loadMigrations } from '../storage/migrate.js';
import { backends, postgresUrl } from '../test-support/backends.js';
import { until, webhookWorldFor } from '../test-support/webhook-world.js';

interface ReadyzBody {
  ready?: true;
  error?: { code: string; message: string };
}

async function readyz(url: string): Promise<{ status: number; body: ReadyzBody }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as ReadyzBody };
}

describe.each(backends)('readiness on $name', (backend) => {
  const world = webhookWorldFor(backend);

  it('answers 200 { ready: true } while everything runs, and /healthz stays { ok: true }', async () => {
    expect(await readyz(world.platform.url)).toEqual({ status: 200, body: { ready: true } });
    const health = await fetch(`${world.platform.url}/healthz`);
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { ok: true } });
  });

  it('answers 503 migrations_pending, naming it, while a migration this version knows is not applied', async () => {
    const { db, dialect } = world.platform.ctx;
    const last = loadMigrations(dialect).at(-1) as { id: number; name: string };
    const row = (
      await sql<{
        id: number;
        name: string;
        applied_at: number;
      }>`select * from portico_migrations where id = ${last.id}`.execute(db)
    ).rows[0];
    await sql`delete from portico_migrations where id = ${last.id}`.execute(db);
    try {
      const answer = await readyz(world.platform.url);
      expect(answer.status).toBe(503);
      expect(answer.body.error).toEqual({ code: 'migrations_pending', message: expect.stringContaining(last.name) });
    } finally {
      await sql`insert into portico_migrations (id, name, applied_at) values (${row?.id}, ${row?.name}, ${row?.applied_at})`.execute(
        db,
      );
    }
    expect((await readyz(world.platform.url)).status).toBe(200);
  });

  it('answers 503 engine_stopped, naming the engine, while the delivery engine is stopped', async () => {
    await world.platform.deliveries.stop();
    try {
      const answer = await readyz(world.platform.url);
      expect(answer.status).toBe(503);
      expect(answer.body.error).toEqual({
        code: 'engine_stopped',
        message: expect.stringContaining('the delivery engine'),
      });
      expect(answer.body.error?.message).not.toContain('dispatcher');
    } finally {
      world.platform.deliveries.start();
    }
    expect((await readyz(world.platform.url)).status).toBe(200);
  });

  it('answers 503 draining once the server is stopping, while it still serves other requests for its drain time', async () => {
    const { config, cleanup } = await backend.fresh();
    let platform: RunningPlatform | undefined = await startPlatform({ ...config, tuning: { drainMs: 1500 } });
    try {
      expect((await readyz(platform.url)).status).toBe(200);
      const closed = platform.close();
      const answer = await readyz(platform.url);
      expect(answer).toEqual({
        status: 503,
        body: { error: { code: 'draining', message: expect.stringContaining('stopping') } },
      });
      expect((await fetch(`${platform.url}/healthz`)).status).toBe(200);
      const { url } = platform;
      await closed;
      platform = undefined;
      // Stopped: nothing listens any more.
      await expect(fetch(`${url}/readyz`)).rejects.toThrow();
    } finally {
      await platform?.close();
      await cleanup();
    }
  });
});

describe.skipIf(!postgresUrl)('readiness when PostgreSQL refuses connections', () => {
  const backend = backends.find((b) => b.name === 'postgres');
  if (backend === undefined) return;
  const world = webhookWorldFor(backend);
  const admin = new pg.Client({ connectionString: postgresUrl });
  afterAll(() => admin.end());

  it('answers 503 database_unavailable while the database takes no connections, and 200 once it does again', async () => {
    await admin.connect();
    const name = new URL(world.config.databaseUrl as string).pathname.slice(1);
    await admin.query(`alter database ${name} allow_connections false`);
    try {
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      const answer = await readyz(world.platform.url);
      expect(answer.status).toBe(503);
      expect(answer.body.error).toEqual({
        code: 'database_unavailable',
        message: expect.stringMatching(/^the database does not answer: .+/),
      });
      // Liveness does not ask the database.
      expect((await fetch(`${world.platform.url}/healthz`)).status).toBe(200);
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
    }
    await until('the node to be ready again', async () =>
      (await readyz(world.platform.url)).status === 200 ? true : undefined,
    );
  });
});
