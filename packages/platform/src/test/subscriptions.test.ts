/**
 * Webhook subscriptions, fanned out when the event is accepted (DESIGN.md "The pipeline's shape"),
 * on SQLite and PostgreSQL: the configuration is the first subscription, written with it; the API
 * adds, changes, switches off and removes others, admins only; each event becomes one delivery per
 * subscription that selected its type, in the event's own write, with no outbox row, no dispatch
 * and no dispatch-log line; a redelivery after a URL change reaches the new URL under the same
 * webhook-id; a paused installation's events are recorded as missed.
 */
import { describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

describe.each(backends)('webhook subscriptions on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);
  let sequence = 0;

  const send = async (spaceId = 'docs') => {
    const eventId = `evt_sub_${backend.name}_${++sequence}`;
    const answer = await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      eventId,
      spaceId,
      revisionId: `rev_${sequence}`,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return eventId;
  };
  const endpoints = async () => {
    const answer = await world.ada('GET', `/v1/installations/${world.space}/endpoints`);
    expect(answer.status).toBe(200);
    return answer.body as {
      id: string;
      url: string;
      subscribed: boolean;
      fromConfiguration: boolean;
      eventTypes: string[];
      headers: Record<string, string>;
      policy: string | null;
      enabled: boolean;
      state: string;
    }[];
  };
  const deliveriesOf = async (eventId: string) =>
    (await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=${eventId}`)).body as {
      id: string;
      url: string;
      status: string;
      endpointId: string;
    }[];

  it('makes the configuration its first subscription, in the same write, and delivers with no dispatch', async () => {
    const url = receiver.script('/first', [200]);
    const saved = await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
      url,
      space_content_updated: true,
      headers: 'X-Team: docs',
      delivery_policy: 'extended',
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.status).toBe('active');
    const [first, ...others] = await endpoints();
    expect(others).toEqual([]);
    expect(first).toMatchObject({
      url,
      subscribed: true,
      fromConfiguration: true,
      eventTypes: ['space_content_updated'],
      headers: { 'X-Team': 'docs' },
      policy: 'extended',
      enabled: true,
      state: 'healthy',
    });

    const eventId = await send();
    const [request] = await until('the delivery', () =>
      receiver.at('/first').length ? receiver.at('/first') : undefined,
    );
    expect(JSON.parse(request?.body ?? '')).toEqual({
      eventId,
      type: 'space_content_updated',
      spaceId: 'docs',
      installationId: world.space,
      revisionId: `rev_${sequence}`,
    });
    expect(request?.headers['x-team']).toBe('docs');
    const [delivery] = await deliveriesOf(eventId);
    expect(delivery).toMatchObject({ url, endpointId: first?.id, policy: 'extended' });
    // The delivery is the record: no outbox row, no dispatch, no dispatch-log line, no setup event.
    const { db } = world.platform.ctx;
    expect(await db.selectFrom('outbox').select('id').where('installation_id', '=', world.space).execute()).toEqual([]);
    expect(await db.selectFrom('dispatches').select('id').where('installation_id', '=', world.space).execute()).toEqual(
      [],
    );
  });

  it('adds, changes, switches off and removes more subscriptions through the API; each gets its own delivery', async () => {
    const second = receiver.script('/second', [200]);
    const created = await world.ada('POST', `/v1/installations/${world.space}/endpoints`, {
      url: second,
      eventTypes: ['space_content_updated'],
      headers: { Authorization: 'Bearer abc' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ subscribed: true, fromConfiguration: false, policy: null, enabled: true });
    const id = created.body.id as string;
    expect((await endpoints()).map((e) => e.url)).toEqual([receiver.url + '/first', second]);

    const both = await send();
    await until('both deliveries', async () => {
      const rows = await deliveriesOf(both);
      return rows.length === 2 && rows.every((row) => row.status === 'delivered') ? rows : undefined;
    });
    expect(receiver.at('/second').at(-1)?.headers.authorization).toBe('Bearer abc');

    const off = await world.ada('PATCH', `/v1/installations/${world.space}/endpoints/${id}`, { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    const oneOnly = await send();
    await until('the configured one', async () =>
      (await deliveriesOf(oneOnly)).some((row) => row.status === 'delivered') ? true : undefined,
    );
    expect((await deliveriesOf(oneOnly)).map((row) => row.url)).toEqual([receiver.url + '/first']);

    const third = receiver.script('/third', [200]);
    const moved = await world.ada('PATCH', `/v1/installations/${world.space}/endpoints/${id}`, {
      url: third,
      enabled: true,
    });
    expect(moved.body).toMatchObject({ id, url: third, enabled: true });
    const removed = await world.ada('DELETE', `/v1/installations/${world.space}/endpoints/${id}`);
    expect(removed.status).toBe(204);
    expect((await endpoints()).map((e) => e.id)).not.toContain(id);
    const afterRemoval = await send();
    await until('the configured one', async () =>
      (await deliveriesOf(afterRemoval)).some((row) => row.status === 'delivered') ? true : undefined,
    );
    expect((await deliveriesOf(afterRemoval)).map((row) => row.url)).toEqual([receiver.url + '/first']);
    expect(receiver.at('/third')).toEqual([]);
  });

  it('refuses what it cannot keep, saying what to fix, and changes nothing', async () => {
    const before = await endpoints();
    const post = (body: unknown) => world.ada('POST', `/v1/installations/${world.space}/endpoints`, body);
    const bad = await post({ url: 'ftp://example.com/x', eventTypes: ['site_view'], policy: 'forever' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_subscription');
    expect(bad.body.error.message).toContain('url: ');
    expect(bad.body.error.message).toContain(
      'eventTypes: site_view cannot be selected by a space installation (it can select space_content_updated)',
    );
    expect(bad.body.error.message).toContain('policy');
    const none = await post({ url: `${receiver.url}/none`, eventTypes: [] });
    expect(none.body.error.message).toContain('eventTypes: select at least one of space_content_updated');
    const headers = await post({
      url: `${receiver.url}/h`,
      eventTypes: ['space_content_updated'],
      headers: { 'Webhook-Id': 'x' },
    });
    expect(headers.status).toBe(400);
    expect(headers.body.error.message).toMatch(/^not saved: headers: /);
    const taken = await post({ url: `${receiver.url}/first`, eventTypes: ['space_content_updated'] });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('endpoint_exists');
    const configured = before.find((e) => e.fromConfiguration);
    const edit = await world.ada('PATCH', `/v1/installations/${world.space}/endpoints/${configured?.id}`, {
      enabled: false,
    });
    expect(edit.status).toBe(409);
    expect(edit.body.error.message).toContain(`PATCH /v1/installations/${world.space}/configuration`);
    const org = await world.ada('POST', `/v1/installations/${world.orgInstallation}/endpoints`, {
      url: `${receiver.url}/org`,
      eventTypes: ['space_content_updated'],
    });
    expect(org.status).toBe(400);
    expect(org.body.error.code).toBe('not_a_webhook_installation');
    // A member sees the subscriptions but may not change them.
    const token = (await world.admin('POST', '/v1/users', { id: `bob_${backend.name}`, name: 'Bob' })).body.token;
    await world.admin('PUT', `/v1/orgs/acme/members/bob_${backend.name}`, { role: 'member' });
    const bob = client(world.platform.url, token);
    expect((await bob('GET', `/v1/installations/${world.space}/endpoints`)).status).toBe(200);
    const refused = await bob('POST', `/v1/installations/${world.space}/endpoints`, {
      url: `${receiver.url}/bob`,
      eventTypes: ['space_content_updated'],
    });
    expect(refused.status).toBe(403);
    expect(await endpoints()).toEqual(before);
  });

  it('redelivers to the URL as it is now, under the same webhook-id; the original keeps where it went', async () => {
    const wrong = receiver.script('/wrong-path', [400]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url: wrong });
    const eventId = await send();
    const [failed] = await until('the failure', async () => {
      const rows = await deliveriesOf(eventId);
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    const fixed = receiver.script('/fixed', [200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url: fixed });
    const again = await world.ada('POST', `/v1/deliveries/${failed?.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.url).toBe(fixed);
    const [arrived] = await until('the redelivery', () =>
      receiver.at('/fixed').length ? receiver.at('/fixed') : undefined,
    );
    expect(arrived?.headers['webhook-id']).toBe(receiver.at('/wrong-path')[0]?.headers['webhook-id']);
    expect(receiver.at('/wrong-path')).toHaveLength(1);
    const rows = await deliveriesOf(eventId);
    expect(rows.map((row) => row.url)).toEqual([fixed, wrong]);
    expect(rows[0]?.endpointId).toBe(rows[1]?.endpointId);
  });

  it('records the events a paused installation misses, and delivers nothing to a disabled subscription but a failed row', async () => {
    const url = receiver.script('/paused', [200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url });
    expect((await world.ada('POST', `/v1/installations/${world.space}/pause`)).status).toBe(200);
    const missed = await send();
    const { db } = world.platform.ctx;
    const line = await until('the missed line', () =>
      db
        .selectFrom('dispatches')
        .select(['event_id', 'skipped'])
        .where('installation_id', '=', world.space)
        .where('event_id', '=', missed)
        .executeTakeFirst(),
    );
    expect(line.skipped).toBe('paused');
    expect(await deliveriesOf(missed)).toEqual([]);
    expect((await world.ada('POST', `/v1/installations/${world.space}/resume`)).status).toBe(200);

    const [configured] = await endpoints();
    await db
      .updateTable('endpoints')
      .set({ disabled_at: Date.now(), disabled_reason: 'disabled: it answered 410 Gone' })
      .where('id', '=', configured?.id as string)
      .execute();
    const refused = await send();
    const [row] = await until('the failed row', async () => {
      const rows = await deliveriesOf(refused);
      return rows.length ? rows : undefined;
    });
    expect(row).toMatchObject({ status: 'failed', lastError: 'disabled: it answered 410 Gone' });
    expect(receiver.at('/paused')).toEqual([]);
    const metrics = await fetch(`${world.platform.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/portico_deliveries_total\{outcome="failed"\} [1-9]/);
  });

  it('shows each event in the Events log with its delivery, beside the lines of dispatches, paged without gaps', async () => {
    type Line = {
      id: number;
      eventId: string | null;
      host: string;
      skipped: string | null;
      delivery: { id: string; status: string; attempts: number } | null;
    };
    const all = (await world.ada('GET', `/v1/installations/${world.space}/dispatches?limit=200`)).body as Line[];
    const deliveries = (await world.ada('GET', `/v1/installations/${world.space}/deliveries?limit=200`)).body as {
      id: string;
      redeliveryOf: string | null;
      attempts: unknown[];
      status: string;
    }[];
    const firsts = deliveries.filter((d) => d.redeliveryOf === null);
    expect(
      all
        .filter((line) => line.delivery)
        .map((line) => line.delivery?.id)
        .sort(),
    ).toEqual(firsts.map((d) => d.id).sort());
    for (const line of all.filter((l) => l.delivery)) {
      const delivery = firsts.find((d) => d.id === line.delivery?.id);
      expect(line).toMatchObject({
        id: 0,
        host: 'delivery',
        delivery: { status: delivery?.status, attempts: delivery?.attempts.length },
      });
    }
    // The missed event (paused) is a line of its own, among them.
    expect(all.filter((line) => line.skipped === 'paused')).toHaveLength(1);
    // One line a page, following the cursors: the same lines, in the same order, none twice.
    const walked: Line[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < all.length + 2; page++) {
      const answer: Response = await fetch(
        `${world.platform.url}/v1/installations/${world.space}/dispatches?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: { authorization: `Bearer ${world.platform.adminToken}` } },
      );
      walked.push(...((await answer.json()) as Line[]));
      cursor = answer.headers.get('x-next-cursor');
      if (cursor === null) break;
    }
    expect(walked).toEqual(all);
  });
});
