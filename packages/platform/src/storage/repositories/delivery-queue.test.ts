/**
 * The delivery queue's claims (and the other reads of pending deliveries) use their indexes, not the
 * whole table: on PostgreSQL also with the one plan a prepared statement may keep for every run
 * (made without its parameters' values). A claim of one endpoint's first attempts reads no row of
 * another endpoint.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { newEndpoint } from '../../delivery/endpoints.js';
import { backends, migratedDatabaseFor } from '../../test-support/backends.js';
import { seedInstallation } from '../../test-support/seed-installation.js';
import type { Database } from '../schema.js';
import { dueDeliveries, nextRetryDue, waitingFor } from './delivery-queue.js';
import { failOwed } from './endpoints.js';
import { pendingDeliveries } from './owed-counts.js';

const NOW = 10_000;

describe.each(backends)('the delivery queue on $name', (backend) => {
  const database = migratedDatabaseFor(backend, [{ id: 'acme', title: 'Acme', created_at: 1 }]);

  const delivery = (i: number, endpoint: string, status: 'pending' | 'delivered'): Database['deliveries'] => ({
    id: `dlv_${endpoint}_${String(i).padStart(5, '0')}`,
    installation_id: 'inst',
    event_id: `evt_${endpoint}_${i}`,
    type: 'space_content_updated',
    url: `https://example.com/${endpoint}`,
    body: '{}',
    status,
    attempts: status === 'pending' ? 0 : 1,
    next_attempt_at: status === 'pending' ? i : null,
    claimed_until: null,
    last_error: null,
    redelivery_of: null,
    endpoint_id: endpoint,
    destination: 'https://example.com:443',
    headers: null,
    policy: 'standard',
    created_at: i,
    updated_at: i,
  });

  beforeAll(() =>
    database.db.transaction().execute(async (trx) => {
      await seedInstallation(trx);
      for (const endpoint of ['old', 'a', 'b'])
        await trx
          .insertInto('endpoints')
          .values(newEndpoint(endpoint, 'inst', `https://example.com/${endpoint}`, 1))
          .execute();
      // Many ended deliveries, a few of endpoint a waiting, many of endpoint b waiting.
      const rows = [
        ...Array.from({ length: 2_000 }, (_, i) => delivery(i, 'old', 'delivered')),
        ...Array.from({ length: 5 }, (_, i) => delivery(i, 'a', 'pending')),
        ...Array.from({ length: 500 }, (_, i) => delivery(i, 'b', 'pending')),
      ];
      for (let i = 0; i < rows.length; i += 100)
        await trx
          .insertInto('deliveries')
          .values(rows.slice(i, i + 100))
          .execute();
    }),
  );

  it('claims an endpoint’s first attempts, oldest first, up to its room, and no other endpoint’s', async () => {
    const rows = await database.db
      .transaction()
      .execute((trx) => waitingFor(trx, database.dialect, { now: NOW, endpointId: 'a', limit: 3 }));
    expect(rows.map((row) => row.id)).toEqual(['dlv_a_00000', 'dlv_a_00001', 'dlv_a_00002']);
  });

  // A plan kept for every run cannot know that `status = $1` means pending: with the conditions
  // as parameters, PostgreSQL's generic plan read the whole table for each claim.
  it.runIf(backend.name === 'postgres')(
    'reads from the indexes, also with a plan made without the parameters’ values',
    async () => {
      const scans = await database.db.transaction().execute(async (trx) => {
        await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
        const read = async () =>
          (
            await sql<{ seq: number; idx: number }>`select seq_scan as seq, idx_scan as idx
              from pg_stat_xact_user_tables where relname = 'deliveries'`.execute(trx)
          ).rows[0];
        const before = await read();
        for (let i = 0; i < 3; i++) {
          await waitingFor(trx, database.dialect, { now: NOW, endpointId: 'a', limit: 3 });
          await dueDeliveries(trx, database.dialect, { now: NOW, retries: 10, firsts: 10, leaveOut: [] });
          await nextRetryDue(trx, NOW);
          // The pending count of every /metrics scrape, and what a disabled endpoint is still owed.
          await pendingDeliveries(trx);
          await failOwed(trx, 'old', 'disabled', NOW);
        }
        const after = await read();
        return { seq: Number(after?.seq) - Number(before?.seq), idx: Number(after?.idx) - Number(before?.idx) };
      });
      expect(scans.seq).toBe(0);
      expect(scans.idx).toBeGreaterThanOrEqual(18);
    },
  );
});
