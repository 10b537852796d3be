/** Group commit on SQLite and PostgreSQL: shared transactions, failures kept apart, acknowledged after commit. */
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { openDatabase } from './database.js';
import { GroupCommit, groupCommitOptions } from './group-commit.js';
import { migrate } from './migrate.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(backends)('group commit on $name', (backend) => {
  async function fresh() {
    const { config, cleanup } = await backend.fresh();
    const database = openDatabase({ url: config.databaseUrl, sqliteFile: `${config.dataDir}/portico.db` });
    cleanups.push(cleanup, () => database.close());
    await migrate(database);
    /** Organization ids another connection sees: what is committed. */
    const committed = async (): Promise<string[]> => {
      if (config.databaseUrl) {
        const client = new pg.Client({ connectionString: config.databaseUrl });
        await client.connect();
        const { rows } = await client.query('select id from organizations order by id');
        await client.end();
        return rows.map((r) => r.id);
      }
      const other = new SQLite(`${config.dataDir}/portico.db`, { readonly: true });
      const rows = other.prepare('select id from organizations order by id').all() as { id: string }[];
      other.close();
      return rows.map((r) => r.id);
    };
    const options = { ...groupCommitOptions(database.dialect), engineDb: database.engineDb };
    return { database, committed, writes: new GroupCommit(database.db, options) };
  }

  const org = (id: string) => ({ id, title: id, subdomain: null, created_at: 0 });

  it('lets writes that arrive together share a transaction; each is committed when it resolves', async () => {
    const { database, committed, writes } = await fresh();
    const ids = Array.from({ length: 200 }, (_, i) => `org-${String(i).padStart(3, '0')}`);
    const seenAtResolve: boolean[] = [];
    await Promise.all(
      ids.map((id) =>
        writes
          .run((trx) => trx.insertInto('organizations').values(org(id)).execute())
          .then(async () => {
            const row = await database.db
              .selectFrom('organizations')
              .select('id')
              .where('id', '=', id)
              .executeTakeFirst();
            seenAtResolve.push(row !== undefined);
          }),
      ),
    );
    expect(seenAtResolve.every(Boolean)).toBe(true);
    expect(await committed()).toEqual(ids);
    expect(writes.transactions).toBeLessThan(20);
  });

  it('rolls back a failing write alone; the others in its transaction commit', async () => {
    const { committed, writes } = await fresh();
    await writes.run((trx) => trx.insertInto('organizations').values(org('taken')).execute());
    const results = await Promise.allSettled(
      ['a', 'taken', 'b'].map((id) =>
        writes.run(async (trx) => {
          await trx
            .insertInto('organizations')
            .values(org(`${id}-first`))
            .execute();
          await trx.insertInto('organizations').values(org(id)).execute();
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The failing write's first insert went with it.
    expect(await committed()).toEqual(['a', 'a-first', 'b', 'b-first', 'taken']);
  });

  it('rejects a lone failing write and stores none of it', async () => {
    const { committed, writes } = await fresh();
    await expect(
      writes.run(async (trx) => {
        await trx.insertInto('organizations').values(org('half')).execute();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await committed()).toEqual([]);
  });

  it('runs standalone writes each without a transaction on PostgreSQL, and in a batch elsewhere', async () => {
    const { database, committed, writes } = await fresh();
    // Alone: on PostgreSQL its statement commits by itself, so what it wrote stays when it throws
    // afterwards (a standalone write must not throw after writing); elsewhere it is rolled back.
    await expect(
      writes.run(
        async (trx) => {
          await trx.insertInto('organizations').values(org('alone')).execute();
          throw new Error('after the statement');
        },
        { standalone: true },
      ),
    ).rejects.toThrow('after the statement');
    expect(await committed()).toEqual(database.dialect === 'postgres' ? ['alone'] : []);
    // With others: on PostgreSQL each still on its own (what the failing one wrote stays); else
    // one transaction, the failing write rolled back alone as always.
    const results = await Promise.allSettled(
      ['a', 'b'].map((id) =>
        writes.run(
          async (trx) => {
            await trx.insertInto('organizations').values(org(id)).execute();
            if (id === 'b') throw new Error('b failed');
          },
          { standalone: true },
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(await committed()).toEqual(database.dialect === 'postgres' ? ['a', 'alone', 'b'] : ['a']);
  });

  it.runIf(backend.name === 'postgres')(
    'runs standalone engine writes on connections that do not wait for the flush, and every other write on ones that do',
    async () => {
      const { writes } = await fresh();
      const setting = (options?: { standalone?: boolean; engine?: boolean }) =>
        writes.run(async (trx) => {
          const { rows } = await sql<{ value: string }>`select current_setting('synchronous_commit') as value`.execute(
            trx,
          );
          return rows[0]?.value;
        }, options);
      expect(await setting({ standalone: true, engine: true })).toBe('off');
      expect(await setting({ standalone: true })).toBe('on');
      expect(await setting({ engine: true })).toBe('on');
      expect(await setting()).toBe('on');
    },
  );

  it('waits in drain for every write under way, standalone ones too', async () => {
    const { committed, writes } = await fresh();
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const write = writes.run(
      async (trx) => {
        await gate;
        await trx.insertInto('organizations').values(org('late')).execute();
      },
      { standalone: true },
    );
    let drained = false;
    const draining = writes.drain().then(() => {
      drained = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drained).toBe(false);
    open();
    await draining;
    await write;
    expect(await committed()).toEqual(['late']);
  });

  it('undoes a write that throws after writing, alone, whichever way its batch runs', async () => {
    const { committed, writes } = await fresh();
    const runs = new Map<string, number>();
    const results = await Promise.allSettled(
      ['a', 'half', 'b', 'c'].map((id) =>
        writes.run(async (trx) => {
          runs.set(id, (runs.get(id) ?? 0) + 1);
          await trx.insertInto('organizations').values(org(id)).execute();
          if (id === 'half') throw new Error('lease lost');
          return id;
        }),
      ),
    );
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      'lease lost',
      'b',
      'c',
    ]);
    expect(await committed()).toEqual(['a', 'b', 'c']);
    // Tried whole without savepoints first, up to the failing write, then again with them.
    expect(writes.rerun).toBe(1);
    expect([...runs.values()]).toEqual([2, 2, 1, 1]);
  });
});
