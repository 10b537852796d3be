/**
 * Early-warning alerts, on SQLite and PostgreSQL with real receivers on 127.0.0.1: `endpoint.failing`
 * once an endpoint's failures in a row reach PORTICO_ENDPOINT_FAILING_AFTER (once per streak), and
 * `endpoint.recovered` when it answers again after such a streak; nothing below the threshold.
 * The hooks are called as the delivery engine calls them once an attempt's result is stored.
 */
import { describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import type { OperatorAlert } from './operator-alerts.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(backends)('early-warning alerts on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const alerts = new ScriptedReceiver();
  const world = webhookWorldFor(
    backend,
    { tuning: { endpointFailingAfter: 3 }, settings: () => ({ alertUrl: `${alerts.url}/alerts` }) },
    [receiver, alerts],
  );
  const received = () => alerts.at('/alerts').map((r) => JSON.parse(r.body) as OperatorAlert);

  it('endpoint.failing at the threshold, once; endpoint.recovered after a reported streak only', async () => {
    const url = receiver.script('/flaky', [200]);
    const deliver = client(world.platform.url, world.spaceToken);
    await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
      url,
      eventId: 'warn-1',
      type: 'space_content_updated',
      payload: { eventId: 'warn-1' },
    });
    const [endpoint] = await until('the endpoint', async () => {
      const list = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body;
      return list.length > 0 ? list : undefined;
    });
    const hooks = world.platform.ctx.alerts;
    expect(hooks?.endpointFailed).toBeDefined();

    hooks?.endpointFailed?.(world.space, endpoint.id, 2, 'the receiver answered 500');
    hooks?.endpointAnswered?.(world.space, endpoint.id, 2);
    hooks?.endpointFailed?.(world.space, endpoint.id, 3, 'the receiver answered 503');
    hooks?.endpointFailed?.(world.space, endpoint.id, 4, 'the receiver answered 503');
    const failing = await until('endpoint.failing', () => received().find((a) => a.type === 'endpoint.failing'));
    expect(failing).toEqual({
      eventId: expect.stringMatching(new RegExp(`^endpoint\\.failing:${endpoint.id}:\\d+$`)),
      type: 'endpoint.failing',
      occurredAt: expect.any(String),
      installation: {
        id: world.space,
        integration: 'webhook',
        organizationId: 'acme',
        target: { type: 'space', id: 'docs' },
      },
      endpoint: { id: endpoint.id, url, disabledReason: null },
      event: null,
      delivery: null,
      circuit: null,
      lastError: 'the receiver answered 503',
    });

    hooks?.endpointAnswered?.(world.space, endpoint.id, 4);
    const recovered = await until('endpoint.recovered', () => received().find((a) => a.type === 'endpoint.recovered'));
    expect(recovered).toMatchObject({
      type: 'endpoint.recovered',
      endpoint: { id: endpoint.id, url },
      lastError: expect.stringMatching(/^answered after 4 failed attempts in a row/),
    });
    // Nothing more: below the threshold and past it, no alert of their own.
    await sleep(300);
    expect(received().map((a) => a.type)).toEqual(['endpoint.failing', 'endpoint.recovered']);
  }, 60_000);
});
