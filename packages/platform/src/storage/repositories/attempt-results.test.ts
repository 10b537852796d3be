/**
 * On PostgreSQL the results of attempts that end together are written in one statement
 * (combined-writes.ts): each delivery whose lease is still the one given gets its new state and
 * its attempt's line; one whose lease was lost gets neither, and its write answers 0.
 */
import { describe, expect, it } from 'vitest';
import { newEndpoint } from '../../delivery/endpoints.js';
import { backends, migratedDatabaseFor } from '../../test-support/backends.js';
import { seedInstallation } from '../../test-support/seed-installation.js';
import type { Database } from '../schema.js';
import { type AttemptState, writeAttempt } from './delivery-queue.js';

const postgres = backends.find((backend) => backend.name === 'postgres');
const LEASE = 50_000;

describe.skipIf(!postgres)('attempt results on PostgreSQL', () => {
  const database = migratedDatabaseFor(postgres as NonNullable<typeof postgres>, [
    { id: 'acme', title: 'Acme', created_at: 1 },
  ]);

  const delivery = (i: number, claimedUntil: number | null): Database['deliveries'] => ({
    id: `dlv_${i}`,
    installation_id: 'inst',
    event_id: `evt_${i}`,
    type: 'space_content_updated',
    url: 'https://example.com/hook',
    body: '{}',
    status: 'pending',
    attempts: 0,
    next_attempt_at: 1,
    claimed_until: claimedUntil,
    last_error: null,
    redelivery_of: null,
    endpoint_id: 'ep',
    destination: 'https://example.com:443',
    headers: null,
    policy: 'standard',
    created_at: 1,
    updated_at: 1,
  });

  it('writes each result whose lease holds, and answers 0 for one whose lease was lost, in one go', async () => {
    await database.db.transaction().execute(async (trx) => {
      await seedInstallation(trx);
      await trx
        .insertInto('endpoints')
        .values(newEndpoint('ep', 'inst', 'https://example.com/hook', 1))
        .execute();
      // Deliveries 2 and 4 were taken over by another node (a newer lease).
      await trx
        .insertInto('deliveries')
        .values([1, 2, 3, 4, 5].map((i) => delivery(i, i % 2 === 0 ? LEASE + 1 : LEASE)))
        .execute();
    });
    const state = (i: number): AttemptState => ({
      attempts: 1,
      status: i === 3 ? 'pending' : 'delivered',
      next_attempt_at: i === 3 ? 90_000 : null,
      claimed_until: i === 3 ? 120_000 : null,
      last_error: i === 3 ? 'HTTP 503' : null,
      updated_at: 20_000 + i,
    });
    // Written together: asked in the same turn, outside a transaction (as group-commit.ts runs them).
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        writeAttempt(
          database.db as never,
          'postgres',
          { id: `dlv_${i}`, claimed_until: LEASE },
          {
            number: 1,
            at: 10_000 + i,
            status: i === 3 ? 503 : 200,
            duration_ms: i,
            error: i === 3 ? 'HTTP 503' : null,
            response_excerpt: i === 3 ? 'busy' : null,
          },
          state(i),
        ),
      ),
    );
    expect(answers).toEqual([1, 0, 1, 0, 1]);

    const deliveries = await database.db
      .selectFrom('deliveries')
      .select(['id', 'attempts', 'status', 'next_attempt_at', 'claimed_until', 'last_error', 'updated_at'])
      .orderBy('id')
      .execute();
    // Those taken over are as the other node left them.
    const untouched = (i: number) => pick(delivery(i, LEASE + 1));
    expect(deliveries).toEqual(
      [state(1), untouched(2), state(3), untouched(4), state(5)].map((row, i) => ({ id: `dlv_${i + 1}`, ...row })),
    );

    const lines = await database.db
      .selectFrom('delivery_attempts')
      .select(['delivery_id', 'number', 'at', 'status', 'duration_ms', 'error', 'response_excerpt'])
      .orderBy('delivery_id')
      .execute();
    expect(lines).toEqual([
      { delivery_id: 'dlv_1', number: 1, at: 10_001, status: 200, duration_ms: 1, error: null, response_excerpt: null },
      {
        delivery_id: 'dlv_3',
        number: 1,
        at: 10_003,
        status: 503,
        duration_ms: 3,
        error: 'HTTP 503',
        response_excerpt: 'busy',
      },
      { delivery_id: 'dlv_5', number: 1, at: 10_005, status: 200, duration_ms: 5, error: null, response_excerpt: null },
    ]);
  });
});

/** The columns an attempt would set, as a row has them. */
function pick(row: Database['deliveries']): AttemptState {
  const { attempts, status, next_attempt_at, claimed_until, last_error, updated_at } = row;
  return { attempts, status, next_attempt_at, claimed_until, last_error, updated_at };
}
