/**
 * The two storage back ends every platform test runs against: SQLite in a fresh temporary
 * directory, and PostgreSQL in a fresh database on the server named by PORTICO_TEST_DATABASE_URL
 * (.ci/run sets it). Without that variable the PostgreSQL half is skipped, and says so.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { PlatformConfig } from '../config.js';
import { type OpenDatabase, openDatabase } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';

export const postgresUrl = process.env.PORTICO_TEST_DATABASE_URL;

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A config for a fresh, empty store; `cleanup` removes it. */
  fresh(): Promise<{ config: PlatformConfig; cleanup(): Promise<void> }>;
}

export const SECRET_KEY = randomBytes(32).toString('base64');
export const ADMIN_TOKEN = `pta_test_${randomBytes(16).toString('hex')}`;

const sqlite: Backend = {
  name: 'sqlite',
  async fresh() {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-platform-'));
    return {
      config: { port: 0, host: '127.0.0.1', dataDir, allowPrivateNetwork: false },
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  },
};

const postgres: Backend = {
  name: 'postgres',
  async fresh() {
    const name = `portico_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(postgresUrl as string);
    url.pathname = `/${name}`;
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-platform-'));
    return {
      config: {
        port: 0,
        host: '127.0.0.1',
        dataDir,
        databaseUrl: url.toString(),
        secretKey: SECRET_KEY,
        adminToken: ADMIN_TOKEN,
        allowPrivateNetwork: false,
      },
      async cleanup() {
        await rm(dataDir, { recursive: true, force: true });
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
      },
    };
  },
};

if (!postgresUrl) {
  console.warn(
    'PORTICO_TEST_DATABASE_URL is not set: the PostgreSQL half of the platform tests is skipped (.ci/run sets it).',
  );
}

/** The back ends to run: both when PostgreSQL is configured, SQLite alone otherwise. */
export const backends: Backend[] = postgresUrl ? [sqlite, postgres] : [sqlite];

/**
 * A migrated database of its own on `backend` for one describe block, with organizations already
 * in it: opened before the block's tests and closed and removed after them; the answer stands for
 * the database once opened (as `webhookWorldFor` does for a webhook world).
 */
export function migratedDatabaseFor(
  backend: Backend,
  organizations: { id: string; title: string; created_at: number }[] = [],
): OpenDatabase {
  let database: OpenDatabase | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    database = openDatabase({ url: fresh.config.databaseUrl, sqliteFile: `${fresh.config.dataDir}/portico.db` });
    await migrate(database);
    if (organizations.length > 0) {
      await database.db
        .insertInto('organizations')
        .values(organizations.map((o) => ({ ...o, subdomain: null })))
        .execute();
    }
  });
  afterAll(async () => {
    await database?.close();
    await cleanup?.();
  });
  return new Proxy({} as OpenDatabase, {
    get(_, key) {
      if (database === undefined) throw new Error('the database is used before its beforeAll opened it');
      return database[key as keyof OpenDatabase];
    },
  });
}
