import { describe, expect, it } from 'vitest';
import { backends, migratedDatabaseFor } from '../test-support/backends.js';
import { insertThenUpdate } from './insert-then-update.js';

describe.each(backends)('insertThenUpdate on $name', (backend) => {
  const database = migratedDatabaseFor(backend, [
    { id: 'acme', title: 'Acme', created_at: 1 },
    { id: 'globex', title: 'Globex', created_at: 2 },
  ]);

  /** Logs an event and renames an organization where its id and created_at are as given. */
  const logAndRename = (eventId: string, title: string, where: { id: string | null; created_at?: number }) =>
    database.db
      .transaction()
      .execute((trx) =>
        insertThenUpdate(
          trx,
          database.dialect,
          { into: 'events', values: { event_id: eventId, type: 't', payload: '{}', received_at: 5, routed_at: null } },
          { table: 'organizations', set: { title }, where },
        ),
      );
  const titles = async () =>
    (await database.db.selectFrom('organizations').select(['id', 'title']).orderBy('id').execute()).map(
      (o) => `${o.id}:${o.title}`,
    );
  const events = async () =>
    (await database.db.selectFrom('events').select('event_id').orderBy('event_id').execute()).map((e) => e.event_id);

  it('inserts, updates the rows every condition matches, and answers 0 when none; each call with its own values', async () => {
    expect(await logAndRename('e1', 'Acme Corp', { id: 'acme', created_at: 1 })).toBe(1);
    // The same shape again (built once): other values.
    expect(await logAndRename('e2', 'Globex Inc', { id: 'globex', created_at: 2 })).toBe(1);
    // A condition that does not hold: nothing updated; on PostgreSQL nothing inserted either (one
    // statement), on SQLite the insert stays unless the caller throws and so rolls it back.
    expect(await logAndRename('e3', 'Nobody', { id: 'acme', created_at: 99 })).toBe(0);
    expect(await titles()).toEqual(['acme:Acme Corp', 'globex:Globex Inc']);
    expect(await events()).toEqual(database.dialect === 'postgres' ? ['e1', 'e2'] : ['e1', 'e2', 'e3']);
  });

  it('matches nothing where a condition’s value is null, and leaves out conditions that are undefined', async () => {
    expect(await logAndRename('e4', 'Lost', { id: null })).toBe(0);
    expect(await logAndRename('e5', 'Acme', { id: 'acme', created_at: undefined })).toBe(1);
    expect(await titles()).toEqual(['acme:Acme', 'globex:Globex Inc']);
  });
});
