/**
 * The server as a process: two nodes starting at once on one PostgreSQL database, a kill -9 in
 * the middle of a stream of configuration edits, and a clean shutdown that finishes requests.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../storage/database.js';
import { loadMigrations } from '../storage/migrate.js';
import { client } from '../test-support/api.js';
import { ADMIN_TOKEN, backends, postgresUrl, SECRET_KEY } from '../test-support/backends.js';
import { type ServeProcess, spawnServe } from '../test-support/serve-process.js';

const running: ServeProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function environmentFor(backendName: 'sqlite' | 'postgres'): Promise<Record<string, string>> {
  const backend = backends.find((b) => b.name === backendName);
  if (!backend) throw new Error(`${backendName} is not configured`);
  const { config, cleanup } = await backend.fresh();
  cleanups.push(cleanup);
  return {
    PORTICO_DATA_DIR: config.dataDir,
    PORTICO_ADMIN_TOKEN: ADMIN_TOKEN,
    PORTICO_SECRET_KEY: SECRET_KEY,
    PORTICO_LOG_LEVEL: 'warn',
    ...(config.databaseUrl ? { PORTICO_DATABASE_URL: config.databaseUrl } : {}),
  };
}

async function serve(env: Record<string, string>) {
  const p = await spawnServe(env);
  running.push(p);
  return p;
}

describe.skipIf(!postgresUrl)('two nodes on one PostgreSQL database', () => {
  it('start at the same moment, both healthy, with the schema applied once', async () => {
    const env = await environmentFor('postgres');
    const [a, b] = await Promise.all([serve(env), serve(env)]);
    for (const node of [a, b])
      expect(await client(node.url)('GET', '/healthz')).toEqual({ status: 200, body: { ok: true } });
    const db = new pg.Client({ connectionString: env.PORTICO_DATABASE_URL });
    await db.connect();
    const rows = (await db.query('select id, name from portico_migrations order by id')).rows;
    await db.end();
    expect(rows.map((r) => r.name)).toEqual(loadMigrations('postgres').map((m) => m.name));
    // Both serve the same data.
    expect((await client(a.url, ADMIN_TOKEN)('POST', '/v1/orgs', { id: 'shared', title: 'Shared' })).status).toBe(201);
    expect((await client(b.url, ADMIN_TOKEN)('POST', '/v1/orgs', { id: 'shared', title: 'Again' })).status).toBe(409);
  }, 60_000);
});

const WRITERS = [0, 1, 2, 3];

describe.each(backends.map((b) => b.name))('a crash on %s', (backendName) => {
  it('kill -9 during a stream of edits loses no acknowledged edit and leaves the data consistent', async () => {
    const env = await environmentFor(backendName);
    const first = await serve(env);
    const admin = client(first.url, ADMIN_TOKEN);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    // One number per writer: a writer's edits are sequential, so the value stored is its last committed edit.
    const properties = WRITERS.map((w) => `      w${w}:\n        type: number\n`).join('');
    const crashy = `name: crashy\ntitle: crashy\ndescription: test\norganization: acme\nvisibility: private\nscopes: []\nconfigurations:\n  account:\n    properties:\n${properties}      after_restart:\n        type: boolean\n`;
    await admin('POST', '/v1/integrations', { manifest: crashy, script: 'export default {}' });
    const installation = (await admin('POST', '/v1/orgs/acme/installations', { integration: 'crashy' })).body
      .id as string;

    // Four writers send edits as fast as they are answered (edit i sets w<writer> to i); the
    // server is killed mid-stream.
    const acknowledged = new Map<string, number>();
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop && i < 5000; i++) {
        try {
          const answer = await client(first.url, ADMIN_TOKEN)(
            'PATCH',
            `/v1/installations/${installation}/configuration`,
            { [`w${w}`]: i },
          );
          if (answer.status !== 200) throw new Error(`edit ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
          acknowledged.set(`w${w}`, i);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('edit ')) throw error;
          return; // the connection died with the server
        }
      }
    };
    const writers = WRITERS.map(writer);
    const total = () => [...acknowledged.values()].reduce((sum, i) => sum + i + 1, 0);
    while (total() < 40) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    stop = true;
    await Promise.all(writers);

    const second = await serve(env);
    const after = await client(second.url, ADMIN_TOKEN)('GET', `/v1/installations/${installation}`);
    expect(after.status).toBe(200);
    const stored = after.body.configuration as Record<string, number>;
    // Each writer's last acknowledged edit is there, or a later one that committed unanswered.
    const lost = [...acknowledged].filter(([key, i]) => !((stored[key] ?? -1) >= i));
    expect(lost).toEqual([]);
    const committed = Object.values(stored).reduce((sum, i) => sum + i + 1, 0);
    const check = await client(second.url, ADMIN_TOKEN)('PATCH', `/v1/installations/${installation}/configuration`, {
      after_restart: true,
    });
    expect(check.body.configuration).toEqual({ ...stored, after_restart: true });
    second.child.kill('SIGTERM');
    await second.exited;

    // Consistent: each stored edit committed with the setup event it owes (one outbox row per
    // edit, plus the install and the edit after the restart), and SQLite's own checks pass.
    const database = openDatabase({
      url: env.PORTICO_DATABASE_URL,
      sqliteFile: join(env.PORTICO_DATA_DIR as string, 'portico.db'),
    });
    try {
      const owed = await database.db
        .selectFrom('outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('installation_id', '=', installation)
        .executeTakeFirstOrThrow();
      expect(Number(owed.n)).toBe(committed + 2);
      if (backendName === 'sqlite') {
        expect((await sql<{ integrity_check: string }>`pragma integrity_check`.execute(database.db)).rows).toEqual([
          { integrity_check: 'ok' },
        ]);
      }
    } finally {
      await database.close();
    }
  }, 90_000);
});

describe('shutdown', () => {
  it('on SIGTERM stops taking connections but finishes the request in flight, then exits 0', async () => {
    const env = { ...(await environmentFor('sqlite')), PORTICO_LOG_LEVEL: 'info' };
    const server = await serve(env);
    const url = new URL('/v1/orgs', server.url);
    const body = JSON.stringify({ id: 'late', title: 'Arrives during shutdown' });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      // The request is in flight (half its body sent) when the signal arrives.
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    expect(await answer).toEqual({
      status: 201,
      text: JSON.stringify({ id: 'late', title: 'Arrives during shutdown', subdomain: null }),
    });
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toMatch(/shutting down: finishing requests in flight/);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  }, 30_000);
});

describe('first start', () => {
  it('generates the admin token into the data directory (0600), prints it once, and keeps it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-first-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await serve({ PORTICO_DATA_DIR: dataDir, PORTICO_LOG_LEVEL: 'warn' });
    const token = /Admin token \(shown once; kept in .*admin-token\): (pta_\S+)/.exec(first.stderr())?.[1];
    expect(token).toBeDefined();
    const { statSync } = await import('node:fs');
    expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect((await client(first.url, token)('POST', '/v1/orgs', { id: 'a', title: 'A' })).status).toBe(201);
    first.child.kill('SIGTERM');
    await first.exited;
    const second = await serve({ PORTICO_DATA_DIR: dataDir, PORTICO_LOG_LEVEL: 'warn' });
    expect(second.stderr()).not.toMatch(/pta_/);
    expect(second.stderr()).toMatch(/Admin token: in .*admin-token/);
    expect((await client(second.url, token)('POST', '/v1/orgs', { id: 'b', title: 'B' })).status).toBe(201);
  }, 30_000);

  it('refuses PostgreSQL without shared secrets, and a bad port, with a clear message', async () => {
    const { spawnSync } = await import('node:child_process');
    const bin = new URL('../../../cli/dist/bin.js', import.meta.url).pathname;
    const pgRun = spawnSync(process.execPath, [bin, 'serve'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORTICO_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
        PORTICO_DATA_DIR: tmpdir(),
      },
      encoding: 'utf8',
    });
    expect(pgRun.status).toBe(1);
    expect(pgRun.stderr).toMatch(/set PORTICO_SECRET_KEY .* and PORTICO_ADMIN_TOKEN/);
    const portRun = spawnSync(process.execPath, [bin, 'serve', '--port', 'eighty'], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(portRun.status).toBe(1);
    expect(portRun.stderr).toMatch(/--port must be a port number/);
  });
});
