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
 * A migrated database of its own on `backend` for the tests of a describe block (`beforeAll`),
 * with organizations already in it; `close` closes and removes it (`afterAll`).
 */
export async function migratedDatabase(
  backend: Backend,
  organizations: { id: string; title: string; created_at: number }[] = [],
): Promise<{ database: OpenDatabase; close(): Promise<void> }> {
  const fresh = await backend.fresh();
  const database = openDatabase({ url: fresh.config.databaseUrl, sqliteFile: `${fresh.config.dataDir}/portico.db` });
  await migrate(database);
  if (organizations.length > 0) {
    await database.db
      .insertInto('organizations')
      .values(organizations.map((o) => ({ ...o, subdomain: null })))
      .execute();
  }
  return {
    database,
    close: async () => {
      await database.close();
      await fresh.cleanup();
    },
  };
}
