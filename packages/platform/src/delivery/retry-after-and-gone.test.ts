/**
 * What a receiver says about retries: `Retry-After` on 429 and 503 is honoured up to 60 s (checked
 * on a controllable clock, as the retry windows are), and `410 Gone` disables the endpoint at once
 * with that reason. Both on SQLite and PostgreSQL: the clock is the engine's `now`, and the times it
 * stores are numbers on both back ends.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import { DeliveryEngine } from './delivery-engine.js';

/** Answers each request with the next of `answers`: a status and its Retry-After, if any. */
function retryAfterReceiver(answers: { status: number; retryAfter?: string }[]) {
  const seen: number[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(Date.now());
      const answer = answers.shift() ?? { status: 200 };
      res.writeHead(answer.status, answer.retryAfter === undefined ? {} : { 'retry-after': answer.retryAfter });
      res.end('{}');
    });
  });
  return { server, seen };
}

describe.each(backends)('Retry-After on a controllable clock on $name', (backend) => {
  const world = webhookWorldFor(backend, { ownEngine: true });
  let clock = Date.now() + 60_000;
  const { server, seen } = retryAfterReceiver([
    { status: 503, retryAfter: '30' },
    { status: 429, retryAfter: '600' },
    { status: 503, retryAfter: new Date(clock - 3_600_000).toUTCString() },
    { status: 200 },
  ]);
  beforeAll(() => new Promise<void>((r) => server.listen(0, '127.0.0.1', r)));
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('waits 30 s when asked, 60 s at most when asked for 10 min, and the schedule for a date already past', async () => {
    const engine = new DeliveryEngine({
      ctx: world.platform.ctx,
      allowPrivateNetwork: true,
      userAgent: 'test',
      timeoutMs: 1000,
      now: () => clock,
      random: () => 0.5,
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/retry-after`;
    const { body } = await client(world.platform.url, world.spaceToken)(
      'POST',
      `/v1/installations/${world.space}/deliveries`,
      { url, eventId: 'evt_retry_after', type: 'test', payload: { eventId: 'evt_retry_after' } },
    );
    const row = () =>
      world.platform.ctx.db.selectFrom('deliveries').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();

    expect(await engine.runDue()).toBe(1);
    for (const delay of [30_000, 60_000, 4200]) {
      const due = (await row()).next_attempt_at as number;
      expect(due - clock).toBe(delay);
      clock = due - 1;
      expect(await engine.runDue()).toBe(0); // one millisecond early: nothing
      clock = due;
      expect(await engine.runDue()).toBe(1);
    }
    expect(await row()).toMatchObject({ status: 'delivered', attempts: 4 });
    expect(seen).toHaveLength(4);
  });
});

describe.each(backends)('410 Gone on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  it('disables the endpoint at once with that reason; what is asked for it afterwards fails at once', async () => {
    const url = receiver.script('/gone', [410]);
    const ask = (eventId: string) =>
      client(world.platform.url, world.spaceToken)('POST', `/v1/installations/${world.space}/deliveries`, {
        url,
        eventId,
        type: 'test',
        payload: { eventId },
      });
    expect((await ask('evt_gone')).status).toBe(202);
    const failed = await until('the delivery to fail', async () => {
      const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=evt_gone`);
      return body[0]?.status === 'failed' ? body[0] : undefined;
    });
    expect(failed.attempts).toHaveLength(1);
    expect(failed.lastError).toMatch(/^disabled: .*\/gone answered 410 Gone at .*; enable the endpoint again/);
    const endpoints = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body;
    const endpoint = endpoints.find((e: { url: string }) => e.url === url);
    expect(endpoint).toMatchObject({ state: 'disabled', disabledReason: failed.lastError });

    expect((await ask('evt_after_gone')).status).toBe(202);
    const after = (await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=evt_after_gone`)).body;
    expect(after[0]).toMatchObject({ status: 'failed', lastError: failed.lastError, attempts: [] });
    expect(receiver.at('/gone')).toHaveLength(1);
    // Another 4xx fails the delivery but leaves its endpoint enabled.
    const other = receiver.script('/not-found', [404]);
    await client(world.platform.url, world.spaceToken)('POST', `/v1/installations/${world.space}/deliveries`, {
      url: other,
      eventId: 'evt_404',
      type: 'test',
      payload: {},
    });
    await until('the 404', () => (receiver.at('/not-found').length ? true : undefined));
    const all = await until('the endpoint of the 404', async () => {
      const list = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body;
      const found = list.find((e: { url: string; lastError: string | null }) => e.url === other && e.lastError);
      return found;
    });
    expect(all.state).toBe('failing');
  }, 30_000);
});
