import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenDatabase, openDatabase } from './database.js';
import { GroupCommit, groupCommitOptions } from './group-commit.js';
import { migrate } from './migrate.js';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SQLite checkpoints on their own thread', () => {
  let database: OpenDatabase | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await database?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('never checkpoint in a commit, and keep the log from growing while writes go on', async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-wal-'));
    const file = join(dir, 'portico.db');
    database = openDatabase({ sqliteFile: file });
    await migrate(database);
    // The writing connection leaves checkpoints to the thread.
    expect(database.sqlite?.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // About 8 MB in 40 commits over about 2 s; the log would hold all of it without checkpoints.
    const payload = 'x'.repeat(2000);
    for (let commit = 0; commit < 40; commit++) {
      await database.db
        .insertInto('events')
        .values(
          Array.from({ length: 100 }, (_, i) => ({
            event_id: `e${commit}_${i}`,
            type: 't',
            payload,
            received_at: commit,
            routed_at: null,
          })),
        )
        .execute();
      await sleep(50);
    }
    expect(statSync(`${file}-wal`).size).toBeLessThan(4 * 1024 * 1024);
    expect(
      await database.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst(),
    ).toEqual({
      n: 4000,
    });
  });

  it('tells when its thread fails (the database then checkpoints in its commits again)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-wal-'));
    // A database file in a directory that does not exist: the thread cannot open it.
    let checkpointer: WalCheckpointer | undefined;
    const failure = await new Promise<Error>((resolve) => {
      checkpointer = startWalCheckpointer(join(dir as string, 'missing', 'portico.db'), resolve);
    });
    await checkpointer?.close();
    expect(failure.message).toMatch(/directory does not exist/);
  });

  /** The log's largest size while four writers commit back to back for `ms`, through group commit. */
  async function largestLog(bounded: boolean, ms: number): Promise<number> {
    dir = await mkdtemp(join(tmpdir(), 'portico-wal-'));
    const file = join(dir, 'portico.db');
    database = openDatabase({ sqliteFile: file, walLimitBytes: 1024 * 1024 });
    await migrate(database);
    const writes = new GroupCommit(database.db, {
      ...groupCommitOptions('sqlite'),
      beforeWrites: bounded ? database.beforeWrites : undefined,
    });
    const payload = 'x'.repeat(2000);
    const until = performance.now() + ms;
    let largest = 0;
    let n = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (performance.now() < until) {
          const rows = Array.from({ length: 10 }, () => ({
            event_id: `e${n++}`,
            type: 't',
            payload,
            received_at: 0,
            routed_at: null,
          }));
          await writes.run((trx) => trx.insertInto('events').values(rows).execute());
          largest = Math.max(largest, statSync(`${file}-wal`).size);
        }
      }),
    );
    expect(
      await database.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst(),
    ).toEqual({ n });
    return largest;
  }

  it('grows while checkpoints never catch up, and stays bounded when the writes wait for one past the limit', async () => {
    // Without waiting, commits go on while every checkpoint runs: the log only grows.
    expect(await largestLog(false, 1500)).toBeGreaterThan(8 * 1024 * 1024);
    await database?.close();
    database = undefined;
    await rm(dir as string, { recursive: true, force: true });
    // Waiting: past 1 MiB the writes pause for a checkpoint that copies the whole log, the next
    // commit starts it again, and the file is cut back to the limit.
    expect(await largestLog(true, 1500)).toBeLessThan(8 * 1024 * 1024);
  }, 20_000);
});
