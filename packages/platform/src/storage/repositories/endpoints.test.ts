/**
 * An endpoint's health updates commute: attempts that end together commit side by side (four
 * transactions at once on PostgreSQL, or on two nodes), in any order, and whichever attempt ended
 * last decides whether the endpoint is failing.
 */
import { describe, expect, it } from 'vitest';
import { newEndpoint } from '../../delivery/endpoints.js';
import { backends, migratedDatabaseFor } from '../../test-support/backends.js';
import { seedInstallation } from '../../test-support/seed-installation.js';
import { recordFailure, recordSuccess } from './endpoints.js';

type Outcome = { ok: boolean; at: number };

/** Every order of the outcomes. */
function orders(outcomes: Outcome[]): Outcome[][] {
  if (outcomes.length <= 1) return [outcomes];
  return outcomes.flatMap((first, i) => orders(outcomes.filter((_, j) => j !== i)).map((rest) => [first, ...rest]));
}

describe.each(backends)('endpoint health on $name', (backend) => {
  const database = migratedDatabaseFor(backend, [{ id: 'acme', title: 'Acme', created_at: 1 }]);
  let n = 0;

  /** A new endpoint with the outcomes written to it, in the order given, each in its transaction. */
  async function endpointAfter(outcomes: Outcome[]) {
    const id = `ep_${n++}`;
    await database.db.transaction().execute(async (trx) => {
      if (id === 'ep_0') await seedInstallation(trx);
      await trx
        .insertInto('endpoints')
        .values(newEndpoint(id, 'inst', `https://example.com/${id}`, 1))
        .execute();
    });
    for (const outcome of outcomes)
      await database.db
        .transaction()
        .execute((trx) =>
          outcome.ok
            ? recordSuccess(trx, id, outcome.at)
            : recordFailure(trx, id, outcome.at, `failed at ${outcome.at}`),
        );
    const row = await database.db
      .selectFrom('endpoints')
      .select(['consecutive_failures', 'failing_since', 'last_success_at', 'last_failure_at', 'last_error'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return {
      failing: row.failing_since !== null,
      failures: Number(row.consecutive_failures),
      lastSuccessAt: Number(row.last_success_at),
      lastFailureAt: Number(row.last_failure_at),
      lastError: row.last_error,
    };
  }

  it('ends failing when a failure ended last, whichever order the writes commit in', async () => {
    const outcomes = [
      { ok: false, at: 100 },
      { ok: true, at: 200 },
      { ok: false, at: 300 },
    ];
    // In the order the attempts ended: the success ended the first streak, one failure since.
    expect(await endpointAfter(outcomes)).toEqual({
      failing: true,
      failures: 1,
      lastSuccessAt: 200,
      lastFailureAt: 300,
      lastError: 'failed at 300',
    });
    for (const order of orders(outcomes)) {
      const after = await endpointAfter(order);
      expect({ order, ...after, failures: after.failures > 0 }).toEqual({
        order,
        failing: true,
        failures: true,
        lastSuccessAt: 200,
        lastFailureAt: 300,
        lastError: 'failed at 300',
      });
    }
  });

  it('ends healthy when a success ended last, whichever order the writes commit in; a tie counts the success', async () => {
    const outcomes = [
      { ok: true, at: 100 },
      { ok: false, at: 200 },
      { ok: false, at: 250 },
      { ok: true, at: 300 },
    ];
    for (const order of orders(outcomes))
      expect({ order, ...(await endpointAfter(order)) }).toEqual({
        order,
        failing: false,
        failures: 0,
        lastSuccessAt: 300,
        lastFailureAt: 250,
        lastError: 'failed at 250',
      });
    for (const order of orders([
      { ok: false, at: 400 },
      { ok: true, at: 400 },
    ]))
      expect({ order, ...(await endpointAfter(order)) }).toMatchObject({ order, failing: false, failures: 0 });
  });
});
