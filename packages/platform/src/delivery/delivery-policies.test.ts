/**
 * Delivery policies per webhook installation (issue 25): chosen in its configuration, fixed on each
 * delivery when it is asked for, and honoured by the engine on a controllable clock: an `extended`
 * delivery keeps retrying past where a `standard` one has failed (on SQLite and PostgreSQL).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DELIVERY_POLICIES, policyRetryDelay } from '@portico/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import { HOLD_RETRIES_UP_TO_MS } from './attempt.js';
import { DeliveryEngine } from './delivery-engine.js';

describe.each(backends)('delivery policies on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, { ownEngine: true }, [receiver]);
  const configure = (body: Record<string, unknown>) =>
    world.ada('PATCH', `/v1/installations/${world.space}/configuration`, body);
  const deliveryOf = async (eventId: string) =>
    until(`the delivery of ${eventId}`, async () => {
      const [found] = (await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=${eventId}`)).body;
      return found as { id: string; policy: string } | undefined;
    });

  it('refuses a policy that is not one, naming the field and the choices, and stores nothing', async () => {
    const before = (await world.ada('GET', `/v1/installations/${world.space}`)).body.configuration;
    const refused = await configure({ url: `${receiver.url}/never`, delivery_policy: 'weekly' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_configuration');
    expect(refused.body.error.message).toMatch(/`delivery_policy` must be one of standard, extended/);
    expect((await world.ada('GET', `/v1/installations/${world.space}`)).body.configuration).toEqual(before);

    const asked = await client(world.platform.url, world.spaceToken)(
      'POST',
      `/v1/installations/${world.space}/deliveries`,
      { url: `${receiver.url}/never`, eventId: 'evt_bad_policy', type: 'test', payload: {}, policy: 'forever' },
    );
    expect(asked.status).toBe(400);
    expect(asked.body.error).toEqual({
      code: 'invalid_delivery_policy',
      message:
        '`policy` must be one of standard, extended (got "forever"): standard retries after 1, 2 and 4 s, extended over up to 3 days',
    });
    const rows = await world.platform.ctx.db
      .selectFrom('deliveries')
      .select('id')
      .where('event_id', '=', 'evt_bad_policy')
      .execute();
    expect(rows).toEqual([]);
  });

  it('retries an extended delivery past where a standard one failed, each in its windows; a change applies to new deliveries', async () => {
    let clock = Date.now() + 60_000;
    const engine = new DeliveryEngine({
      ctx: world.platform.ctx,
      allowPrivateNetwork: true,
      userAgent: 'test',
      timeoutMs: 1000,
      now: () => clock,
      random: () => 0.5,
    });
    const extended = DELIVERY_POLICIES.extended;
    // Down for 24 requests (4 of the standard delivery, 20 of the extended one), then back.
    const url = receiver.script('/down', [...Array.from({ length: 24 }, () => 503), 200]);
    const saved = await configure({ url, space_content_updated: true, delivery_policy: 'extended' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.configuration.delivery_policy).toBe('extended');
    const emit = (eventId: string) =>
      world.admin('POST', '/v1/events', { type: 'space_content_updated', eventId, spaceId: 'docs', revisionId: 'r1' });
    await emit('evt_extended');
    const long = await deliveryOf('evt_extended');
    expect(long.policy).toBe('extended');

    // The policy changes: what was asked for keeps its own; the next event's delivery is standard.
    expect((await configure({ delivery_policy: 'standard' })).status).toBe(200);
    await emit('evt_standard');
    const short = await deliveryOf('evt_standard');
    expect(short.policy).toBe('standard');
    expect((await deliveryOf('evt_extended')).policy).toBe('extended');

    const row = (id: string) =>
      world.platform.ctx.db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    // Both first attempts (503), then the standard delivery's three retries at 1050, 2100 and 4200 ms
    // after the attempt before (the extended one's first retry, 5250 ms, falls in between).
    expect(await engine.runDue()).toBe(2);
    const started = clock;
    const due = async (id: string) => (await row(id)).next_attempt_at as number;
    for (let attempt = 1; (await row(short.id)).status === 'pending'; attempt++) {
      expect(attempt).toBeLessThanOrEqual(4);
      const next = Math.min(await due(short.id), await due(long.id));
      clock = next;
      expect(await engine.runDue()).toBeGreaterThanOrEqual(1);
    }
    expect(await row(short.id)).toMatchObject({ status: 'failed', attempts: 4 });
    expect((await row(short.id)).last_error).toMatch(/^gave up after 4 attempts/);
    // The extended delivery is still pending: its waits so far were 5.25 s, 10.5 s, 21 s…
    const longRow = await row(long.id);
    expect(longRow.status).toBe('pending');
    expect(longRow.attempts).toBeLessThan(20);

    // From here, attempt by attempt: each exactly when its window opens, not a millisecond before.
    let attempts = longRow.attempts;
    let last = longRow.updated_at; // when its latest attempt was made
    while (attempts < 21) {
      const current = await row(long.id);
      expect(current.status).toBe('pending');
      const next = current.next_attempt_at as number;
      expect(next - last).toBe(policyRetryDelay(extended, attempts, () => 0.5));
      // A long wait frees its slots: the row waits unclaimed in the database until it is due.
      if (next - last > HOLD_RETRIES_UP_TO_MS) expect(current.claimed_until).toBeNull();
      clock = next - 1;
      expect(await engine.runDue()).toBe(0);
      clock = next;
      expect(await engine.runDue()).toBe(1);
      last = clock;
      attempts++;
    }
    expect(await row(long.id)).toMatchObject({ status: 'delivered', attempts: 21 });
    // 21 attempts, the last one hours after the standard delivery gave up.
    expect(clock - started).toBeGreaterThan(10 * 3_600_000);
    expect(receiver.at('/down')).toHaveLength(25);

    // A redelivery repeats the request as it was, policy included.
    const again = await world.ada('POST', `/v1/deliveries/${short.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.policy).toBe('standard');
    await engine.stop();
  }, 60_000);

  describe('a running engine', () => {
    // Answers 503 asking for 2 minutes the first time, then 200.
    const seen: number[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push(Date.now());
        if (seen.length === 1) res.writeHead(503, { 'retry-after': '120' }).end('{}');
        else res.writeHead(200).end('{}');
      });
    });
    beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', r)));
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('gives a long wait back unclaimed and attempts it again once a claim finds it due', async () => {
      let clock = Date.now() + 3_600_000;
      const engine = new DeliveryEngine({
        ctx: world.platform.ctx,
        allowPrivateNetwork: true,
        userAgent: 'test',
        timeoutMs: 1000,
        pollMs: 50,
        now: () => clock,
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/asks-for-two-minutes`;
      const { body } = await client(world.platform.url, world.spaceToken)(
        'POST',
        `/v1/installations/${world.space}/deliveries`,
        { url, eventId: 'evt_running', type: 'test', payload: { eventId: 'evt_running' }, policy: 'extended' },
      );
      const row = () =>
        world.platform.ctx.db.selectFrom('deliveries').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
      engine.start();
      try {
        const waiting = await until('the first attempt', async () => {
          const current = await row();
          return current.attempts === 1 ? current : undefined;
        });
        // Retry-After: 120 within the extended bound (2 h): the row waits unclaimed, holding no slot.
        expect(waiting).toMatchObject({ status: 'pending', claimed_until: null, next_attempt_at: clock + 120_000 });
        await until('nothing held in memory', () =>
          engine.held.waiting + engine.held.attempting === 0 ? true : undefined,
        );
        clock += 120_000;
        const delivered = await until('the retry', async () => {
          const current = await row();
          return current.status === 'delivered' ? current : undefined;
        });
        expect(delivered.attempts).toBe(2);
        expect(seen).toHaveLength(2);
      } finally {
        await engine.stop();
      }
    }, 30_000);
  });
});
