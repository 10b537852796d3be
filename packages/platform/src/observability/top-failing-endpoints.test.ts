/**
 * `portico_top_failing_endpoints` on the real server, on SQLite and PostgreSQL: the endpoints (not
 * disabled) with the most failures in a row, at most TOP_FAILING_ENDPOINTS of them, by endpoint and
 * installation id; none for an endpoint that does not fail or is disabled.
 */
import { describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import { TOP_FAILING_ENDPOINTS } from './metrics.js';

describe.each(backends)('top failing endpoints on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  it('names the ones failing most, at most ten, leaving out the disabled and the healthy', async () => {
    const deliver = client(world.platform.url, world.spaceToken);
    const count = TOP_FAILING_ENDPOINTS + 4;
    for (let i = 0; i < count; i++) {
      const answer = await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
        url: receiver.script(`/top-${i}`, [200]),
        eventId: `top-${i}`,
        type: 'space_content_updated',
        payload: { eventId: `top-${i}` },
      });
      expect(answer.status).toBeLessThan(300);
    }
    const endpoints: { id: string; url: string }[] = await until('every endpoint', async () => {
      const list = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body;
      return list.length >= count ? list : undefined;
    });
    await until('every delivery done', () => (receiver.received.length >= count ? true : undefined));
    const { db } = world.platform.ctx;
    const numberOf = (url: string) => Number(/\/top-(\d+)$/.exec(url)?.[1]);
    // Endpoint i has failed i times in a row; the one with the most is disabled.
    for (const endpoint of endpoints) {
      const i = numberOf(endpoint.url);
      await db
        .updateTable('endpoints')
        .set({ consecutive_failures: i, ...(i === count - 1 ? { disabled_at: Date.now() } : {}) })
        .where('id', '=', endpoint.id)
        .execute();
    }
    const text = await (await fetch(`${world.platform.url}/metrics`)).text();
    const series = [
      ...text.matchAll(/^portico_top_failing_endpoints\{endpoint="([^"]+)",installation="([^"]+)"\} (\d+)$/gm),
    ];
    expect(series).toHaveLength(TOP_FAILING_ENDPOINTS);
    const byId = new Map(endpoints.map((e) => [e.id, numberOf(e.url)]));
    const shown = series.map(([, id, installation, value]) => {
      expect(installation).toBe(world.space);
      expect(Number(value)).toBe(byId.get(id as string));
      return Number(value);
    });
    // count - 1 is disabled: the ten below it, most first.
    expect(shown.sort((a, b) => b - a)).toEqual(Array.from({ length: TOP_FAILING_ENDPOINTS }, (_, k) => count - 2 - k));
  }, 60_000);
});
