/**
 * Per-endpoint rate limits (issue 42), on SQLite and PostgreSQL: a subscription may say how many
 * deliveries per second it takes; the engine starts no more (bursts of one second's worth), while
 * an endpoint without a limit beside it is not held back. The configured endpoint takes a rate
 * limit through the API (the configuration does not hold one) and keeps it across configuration
 * edits; a wrong limit is refused, naming the field, and changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

describe.each(backends)('endpoint rate limits on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);
  let sequence = 0;

  const send = async () => {
    const eventId = `evt_rate_${backend.name}_${++sequence}`;
    const answer = await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      eventId,
      spaceId: 'docs',
      revisionId: `rev_${sequence}`,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  };
  const endpointsPath = () => `/v1/installations/${world.space}/endpoints`;

  it('paces a limited endpoint to its rate while the one beside it runs free', async () => {
    const free = receiver.script('/free', Array(8).fill(200));
    const saved = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      url: free,
      space_content_updated: true,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const limited = receiver.script('/limited', Array(8).fill(200));
    const created = await world.ada('POST', endpointsPath(), {
      url: limited,
      eventTypes: ['space_content_updated'],
      rateLimit: 2,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.rateLimit).toBe(2);

    for (let i = 0; i < 8; i++) await send();
    const times: number[] = await until(
      'every delivery to the limited endpoint',
      () => (receiver.at('/limited').length === 8 ? receiver.at('/limited').map((r) => r.at) : undefined),
      30_000,
    );
    // Two at once (one second's worth), then one every 500 ms: any n + 2 of them start at least
    // n × 500 ms apart. Receipt times carry the network's jitter (the first attempt also opens the
    // connection), hence 250 ms of allowance; a loaded machine only spreads them further.
    const at = (i: number) => times[i] as number;
    expect(at(7) - at(0)).toBeGreaterThanOrEqual(3_000 - 250);
    for (let i = 4; i < 8; i++) expect(at(i) - at(i - 4)).toBeGreaterThanOrEqual(1_500 - 250);
    // The free endpoint got every event long before.
    const freeTimes = receiver.at('/free').map((r) => r.at);
    expect(freeTimes).toHaveLength(8);
    expect(Math.max(...freeTimes)).toBeLessThan(at(7));
  });

  it('sets the configured endpoint’s limit through the API, keeps it across configuration edits, and refuses wrong ones', async () => {
    const list = async () =>
      (await world.ada('GET', endpointsPath())).body as {
        id: string;
        fromConfiguration: boolean;
        rateLimit: number | null;
      }[];
    const configured = (await list()).find((e) => e.fromConfiguration);
    if (!configured) throw new Error('no configured endpoint');
    const path = `${endpointsPath()}/${configured.id}`;
    const set = await world.ada('PATCH', path, { rateLimit: 5 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.rateLimit).toBe(5);
    // Anything the configuration holds is still refused here, with the limit or without.
    const mixed = await world.ada('PATCH', path, { rateLimit: 6, enabled: false });
    expect(mixed.status).toBe(409);
    expect(mixed.body.error.code).toBe('configured_endpoint');
    const edit = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      url: receiver.script('/moved', [200]),
    });
    expect(edit.status).toBe(200);
    expect((await list()).find((e) => e.id === configured.id)?.rateLimit).toBe(5);

    const before = await list();
    for (const rateLimit of [0, 1.5, 20_000, -3]) {
      const wrong = await world.ada('PATCH', path, { rateLimit });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.code).toBe('invalid_subscription');
      expect(wrong.body.error.message).toContain(
        `rateLimit: ${rateLimit} is not a whole number of deliveries per second from 1 to 10000; null removes the limit`,
      );
    }
    expect(await list()).toEqual(before);
    const removed = await world.ada('PATCH', path, { rateLimit: null });
    expect(removed.body.rateLimit).toBeNull();
  });
});
