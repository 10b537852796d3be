import { describe, expect, it } from 'vitest';
import { backends, migratedDatabaseFor } from '../test-support/backends.js';
import { prepared } from './prepared.js';

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
});
