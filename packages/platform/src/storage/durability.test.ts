/** The SQLite write-ahead log synced off the event loop: only when something was written, many commits per sync. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { openDatabase } from './database.js';
import type { WalSync } from './durability.js';
import { GroupCommit, groupCommitOptions } from './group-commit.js';
import { migrate } from './migrate.js';

const cleanups: (() => Promise<void> | void)[] = [];
const organization = (id: string) => ({ id, title: 'o', subdomain: null, created_at: 0 });
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'portico-durability-'));
  const database = openDatabase({ sqliteFile: join(dir, 'portico.db') });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => database.close(),
  );
  await migrate(database);
  const sync = database.durability as WalSync;
  return { database, sync };
}

describe('durability on SQLite', () => {
  it('waits for nothing when nothing was written since the mark', async () => {
    const { database, sync } = await sqlite();
    const mark = sync.mark();
    await database.db.selectFrom('organizations').selectAll().execute();
    const before = sync.syncs;
    await sync.after(mark);
    expect(sync.syncs).toBe(before);
  });

  it('syncs the log after a write, and one sync serves every commit made before it started', async () => {
    const { database, sync } = await sqlite();
    const before = sync.syncs;
    const waits = [];
    for (let i = 0; i < 50; i++) {
      const mark = sync.mark();
      await database.db
        .insertInto('organizations')
        .values(organization(`org-${i}`))
        .execute();
      waits.push(sync.after(mark));
    }
    await Promise.all(waits);
    // The first sync starts at once; every later commit waits for the one after it, shared.
    expect(sync.syncs - before).toBeGreaterThanOrEqual(1);
    expect(sync.syncs - before).toBeLessThanOrEqual(2);
    // Everything written before is synced now: nothing more to wait for.
    await sync.after(0);
    expect(sync.syncs - before).toBeLessThanOrEqual(2);
  });
});

describe('what a sync covers on SQLite', () => {
  it("counts a transaction's writes at its commit: a sync that started before the commit does not cover them", async () => {
    const { database, sync } = await sqlite();
    await database.db.insertInto('organizations').values(organization('before')).execute();
    const mark = sync.mark();
    let early: Promise<void> | undefined;
    await database.db.transaction().execute(async (trx) => {
      await trx.insertInto('organizations').values(organization('inside')).execute();
      // Not committed yet: its frames are not in the log, so nothing counts it...
      expect(sync.mark()).toBe(mark);
      // ...and a sync another request starts now (for the write before) cannot hold them.
      early = sync.after(mark - 1);
    });
    await early;
    expect(sync.mark()).toBe(mark + 1);
    const before = sync.syncs;
    await sync.after(mark);
    expect(sync.syncs).toBe(before + 1);
  });

  it('holds a write that arrives while a sync is under way until the sync ends, then commits it', async () => {
    const { database, sync } = await sqlite();
    const writes = new GroupCommit(database.db, {
      ...groupCommitOptions('sqlite'),
      beforeWrites: database.beforeWrites,
    });
    const mark = sync.mark();
    await writes.run((trx) => trx.insertInto('organizations').values(organization('first')).execute());
    const order: string[] = [];
    const synced = sync.after(mark).then(() => order.push('synced'));
    expect(database.beforeWrites?.()).toBeDefined();
    const written = writes
      .run((trx) => trx.insertInto('organizations').values(organization('second')).execute())
      .then(() => order.push('written'));
    await Promise.all([synced, written]);
    expect(order).toEqual(['synced', 'written']);
    // Nothing under way now: writes commit at once.
    expect(database.beforeWrites?.()).toBeUndefined();
  });
});

describe('a request whose writes cannot be synced', () => {
  it('answers 503 not_durable saying what happened and what to check', async () => {
    const { config, cleanup } = await (backends[0] as (typeof backends)[number]).fresh();
    const platform = await startPlatform(config);
    cleanups.push(cleanup, () => platform.close());
    const failing = platform.ctx.durability;
    platform.ctx.durability = { ...failing, mark: () => -1, after: () => Promise.reject(new Error('EIO: i/o error')) };
    const answer = await client(platform.url, platform.adminToken)('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('not_durable');
    expect(answer.body.error.message).toContain('EIO: i/o error');
    expect(answer.body.error.message).toContain('Check the disk');
    platform.ctx.durability = failing;
  });
});
