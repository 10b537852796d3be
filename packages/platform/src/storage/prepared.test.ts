import { describe, expect, it } from 'vitest';
import { backends, migratedDatabaseFor } from '../test-support/backends.js';
import { prepared, preparedInsert } from './prepared.js';

describe.each(backends)('prepared queries on $name', (backend) => {
  const database = migratedDatabaseFor(backend, [
    { id: 'acme', title: 'Acme', created_at: 1 },
    { id: 'globex', title: 'Globex', created_at: 2 },
    { id: 'initech', title: 'Initech', created_at: 3 },
  ]);

  it('puts each call’s arguments in their places, as often and in whatever order the query uses them', async () => {
    const query = prepared((db, after: number, id: string) =>
      db
        .selectFrom('organizations')
        .select(['id', 'title'])
        .where((eb) => eb.or([eb('id', '=', id), eb('created_at', '>', after)]))
        .where('title', '!=', 'Nobody')
        .orderBy('id'),
    );
    expect(await query.all(database.db, 2, 'acme')).toEqual([
      { id: 'acme', title: 'Acme' },
      { id: 'initech', title: 'Initech' },
    ]);
    expect(await query.all(database.db, 5, 'globex')).toEqual([{ id: 'globex', title: 'Globex' }]);
    expect(await query.first(database.db, 5, 'nobody')).toBeUndefined();
    expect(await query.first(database.db, 0, 'nobody')).toEqual({ id: 'acme', title: 'Acme' });
  });

  it('takes null for an argument (it matches nothing in a comparison)', async () => {
    const query = prepared((db, id: string) => db.selectFrom('organizations').select('id').where('id', '=', id));
    expect(await query.all(database.db, null as unknown as string)).toEqual([]);
    expect(await query.all(database.db, 'acme')).toEqual([{ id: 'acme' }]);
  });

  it('refuses a query that uses an argument for anything but a value', async () => {
    const query = prepared((db, column: string) =>
      db
        .selectFrom('organizations')
        .select('id')
        .where(column as 'id', '=', 'acme'),
    );
    await expect(query.all(database.db, 'id')).rejects.toThrow(/argument 0 is not used as a value/);
  });

  it('reads the last commit while a transaction is open, without waiting for it, and its writes once committed', async () => {
    const title = prepared((db, id: string) => db.selectFrom('organizations').select('title').where('id', '=', id));
    // Read before, so the statement is prepared where the reads run between transactions too.
    expect(await title.first(database.db, 'globex')).toEqual({ title: 'Globex' });
    let inside: unknown;
    await database.db.transaction().execute(async (trx) => {
      await trx.updateTable('organizations').set({ title: 'Globex (renamed)' }).where('id', '=', 'globex').execute();
      inside = await title.first(database.db, 'globex');
    });
    expect(inside).toEqual({ title: 'Globex' });
    expect(await title.first(database.db, 'globex')).toEqual({ title: 'Globex (renamed)' });
    await database.db.updateTable('organizations').set({ title: 'Globex' }).where('id', '=', 'globex').execute();
  });

  it.runIf(backend.name === 'sqlite')('refuses a prepared query that writes, saying so', async () => {
    const rename = prepared((db, id: string) =>
      db.updateTable('organizations').set({ title: 'Renamed' }).where('id', '=', id).returning('id'),
    );
    await expect(rename.all(database.db, 'acme')).rejects.toThrow(/a prepared query must only read/);
    expect(await database.db.selectFrom('organizations').select('title').where('id', '=', 'acme').execute()).toEqual([
      { title: 'Acme' },
    ]);
  });
});

describe.each(backends)('prepared inserts on $name', (backend) => {
  const database = migratedDatabaseFor(backend, []);
  let builds = 0;
  const insert = preparedInsert((db, rows: readonly { id: string; title: string; created_at: number }[]) => {
    builds++;
    return db
      .insertInto('organizations')
      .values(rows)
      .onConflict((oc) => oc.column('id').doNothing())
      .returning(['id', 'title']);
  });
  const titles = async () =>
    (await database.db.selectFrom('organizations').select(['id', 'title']).orderBy('id').execute()).map(
      (row) => `${row.id}:${row.title}`,
    );

  it('inserts each call’s rows, whatever their number, with the statement’s own clauses', async () => {
    const dialect = backend.name;
    expect(await insert.run(database.db, dialect, [{ id: 'a', title: 'A', created_at: 1 }])).toEqual([
      { id: 'a', title: 'A' },
    ]);
    // Same shape, other values: the compiled statement is reused with them.
    expect(await insert.run(database.db, dialect, [{ id: 'b', title: 'B', created_at: 2 }])).toEqual([
      { id: 'b', title: 'B' },
    ]);
    const two = await insert.run(database.db, dialect, [
      { id: 'a', title: 'Again', created_at: 3 },
      { id: 'c', title: 'C', created_at: 4 },
    ]);
    expect(two).toEqual([{ id: 'c', title: 'C' }]);
    expect(await titles()).toEqual(['a:A', 'b:B', 'c:C']);
    expect(builds).toBe(2); // one row, then two rows
  });

  it('runs in a transaction, whose rollback takes the rows back', async () => {
    const dialect = backend.name;
    await expect(
      database.db.transaction().execute(async (trx) => {
        await insert.run(trx, dialect, [{ id: 'd', title: 'D', created_at: 5 }]);
        expect(await trx.selectFrom('organizations').select('id').where('id', '=', 'd').execute()).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await titles()).not.toContain('d:D');
  });

  it('builds rows that set different columns as they are, each time', async () => {
    const dialect = backend.name;
    const rows = [
      { id: 'e', title: 'E', created_at: 6 },
      { id: 'f', title: 'F', created_at: 7, extra: undefined },
      { title: 'G', id: 'g', created_at: 8 },
    ];
    expect(await insert.run(database.db, dialect, rows)).toHaveLength(3);
    expect(await titles()).toEqual(expect.arrayContaining(['e:E', 'f:F', 'g:G']));
  });
});
