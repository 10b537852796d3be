/**
 * Events an installation misses while it is paused, on the real server, on SQLite and PostgreSQL
 * (issue 24): the integration is not called and the event is not kept for later, but the
 * installation's dispatch log lists it (`skipped: 'paused'`, written by the platform) and the
 * event's trace counts it (`skipped: paused`). Pausing the organization installation does the same
 * for its space installations. After Resume, new events go out again and the missed ones do not.
 */
import { createIntegration, type Integration } from '@portico/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';

const manifest = (name: string) => `name: ${name}
title: Counts events
description: Answers every content event with 200 and remembers its id
organization: acme
visibility: private
scopes: [space:content:read]
`;

/** Handles `space_content_updated` and remembers each event id it was sent. */
function counting(seen: string[]): Integration {
  return createIntegration({
    events: {
      space_content_updated: (event) => {
        seen.push(event.eventId);
      },
    },
  });
}

describe.each(backends)('events skipped while paused, on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let admin: ReturnType<typeof client>;
  let ada: ReturnType<typeof client>;
  let org: string;
  let space: string;
  const seen: string[] = [];

  const send = async (eventId: string) => {
    const sent = await admin('POST', '/v1/events', {
      type: 'space_content_updated',
      eventId,
      spaceId: 's1',
      revisionId: 'r1',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  };
  /** The event's trace once its dispatch to the space installation has ended. */
  const ended = (eventId: string) =>
    until(`the event ${eventId} to end`, async () => {
      const { body } = await admin('GET', `/v1/events/${eventId}`);
      const mine = (body.installations ?? []).find((i: { installationId: string }) => i.installationId === space);
      return mine?.outcome && !/^(retrying|waiting)/.test(mine.outcome) ? body : undefined;
    });

  /** `portico_dispatches_total{outcome="skipped"}` as /metrics says it. */
  const skippedCount = async () => {
    const text = await (await fetch(`${platform.url}/metrics`)).text();
    return Number(/^portico_dispatches_total\{outcome="skipped"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  };

  beforeAll(async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config, { inProcess: new Map([['counts', counting(seen)]]) });
    admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 's1', title: 'Space one' });
    const token = (await admin('POST', '/v1/users', { id: 'ada', name: 'Ada' })).body.token;
    await admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
    ada = client(platform.url, token);
    const published = await ada('POST', '/v1/integrations', { manifest: manifest('counts'), script: '// in-process' });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'counts' })).body.id;
    const installed = await ada('POST', `/v1/installations/${org}/spaces/s1`);
    expect(installed.body.status, JSON.stringify(installed.body)).toBe('active');
    space = installed.body.id;
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
  });

  it('lists an event sent while paused in the dispatch log and the trace, and does not send it after Resume', async () => {
    await send('evt_before');
    expect((await ended('evt_before')).installations[0].outcome).toBe('delivered');

    expect((await ada('POST', `/v1/installations/${space}/pause`)).body.status).toBe('paused');
    await send('evt_while_paused');
    const trace = await ended('evt_while_paused');
    expect(trace.installations).toEqual([
      { installationId: space, outcome: 'skipped: paused', dispatchedAt: expect.any(String) },
    ]);
    expect(trace.dispatches).toEqual([
      expect.objectContaining({
        installationId: space,
        eventId: 'evt_while_paused',
        type: 'space_content_updated',
        host: 'platform',
        status: 0,
        error: null,
        skipped: 'paused',
      }),
    ]);

    // Counted as a settled dispatch, as one skipped by the dispatcher is.
    expect(await skippedCount()).toBe(1);

    expect((await ada('POST', `/v1/installations/${space}/resume`)).body.status).toBe('active');
    await send('evt_after');
    expect((await ended('evt_after')).installations[0].outcome).toBe('delivered');
    // The missed event was never sent, before or after Resume.
    expect(seen).toEqual(['evt_before', 'evt_after']);

    const log = await ada('GET', `/v1/installations/${space}/dispatches`);
    const lines = (log.body as { eventId: string; skipped: string | null; status: number }[])
      .filter((line) => line.eventId?.startsWith('evt_'))
      .map((line) => [line.eventId, line.skipped, line.status]);
    expect(lines).toEqual([
      ['evt_after', null, 204],
      ['evt_while_paused', 'paused', 0],
      ['evt_before', null, 204],
    ]);
  });

  it('records what a space installation misses while its organization installation is paused, a batch at a time', async () => {
    expect((await ada('POST', `/v1/installations/${org}/pause`)).body.status).toBe('paused');
    const ids = ['evt_batch_1', 'evt_batch_2', 'evt_batch_3'];
    const batch = await admin('POST', '/v1/events/batch', {
      events: ids.map((eventId) => ({ type: 'space_content_updated', eventId, spaceId: 's1', revisionId: 'r2' })),
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    for (const id of ids) expect((await ended(id)).installations[0].outcome).toBe('skipped: paused');
    const log = await ada('GET', `/v1/installations/${space}/dispatches`);
    const skipped = (log.body as { eventId: string; skipped: string | null }[])
      .filter((line) => line.skipped === 'paused')
      .map((line) => line.eventId);
    expect(skipped).toEqual(['evt_batch_3', 'evt_batch_2', 'evt_batch_1', 'evt_while_paused']);
    expect((await ada('POST', `/v1/installations/${org}/resume`)).body.status).toBe('active');
    await send('evt_resumed');
    await ended('evt_resumed');
    expect(seen).toEqual(['evt_before', 'evt_after', 'evt_resumed']);
  });

  it('records every event of a batch too large for one statement (PostgreSQL: the transaction path)', async () => {
    expect((await ada('POST', `/v1/installations/${space}/pause`)).body.status).toBe('paused');
    const ids = Array.from({ length: 201 }, (_, i) => `evt_large_${i}`);
    const batch = await admin('POST', '/v1/events/batch', {
      events: ids.map((eventId) => ({ type: 'space_content_updated', eventId, spaceId: 's1', revisionId: 'r4' })),
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const skipped = await until('every line of the batch', async () => {
      const first = await fetch(`${platform.url}/v1/installations/${space}/dispatches?limit=200&system=false`, {
        headers: { authorization: `Bearer ${platform.adminToken}` },
      });
      const cursor = first.headers.get('x-next-cursor');
      const rest = cursor
        ? (await admin('GET', `/v1/installations/${space}/dispatches?limit=200&system=false&cursor=${cursor}`)).body
        : [];
      const lines = [...((await first.json()) as { eventId: string; skipped: string | null }[]), ...rest];
      const large = lines.filter((line: { eventId: string }) => line.eventId.startsWith('evt_large_'));
      return large.length === ids.length ? large : undefined;
    });
    expect(new Set(skipped.map((line: { skipped: string | null }) => line.skipped))).toEqual(new Set(['paused']));
    expect((await ended('evt_large_200')).installations[0].outcome).toBe('skipped: paused');
    expect((await ada('POST', `/v1/installations/${space}/resume`)).body.status).toBe('active');
    expect(seen.some((id) => id.startsWith('evt_large_'))).toBe(false);
  });

  it('records it too for an event stored unrouted and routed later by the dispatcher’s loop', async () => {
    expect((await ada('POST', `/v1/installations/${space}/pause`)).body.status).toBe('paused');
    const event = { type: 'space_content_updated', eventId: 'evt_routed_later', spaceId: 's1', revisionId: 'r3' };
    // As ingest stores an event while no dispatcher runs on its node: unrouted, for the loop.
    await platform.ctx.write((trx) =>
      trx
        .insertInto('events')
        .values({
          event_id: event.eventId,
          type: event.type,
          payload: JSON.stringify(event),
          received_at: Date.now(),
          routed_at: null,
        })
        .execute(),
    );
    platform.ctx.wake('events');
    const trace = await ended('evt_routed_later');
    expect(trace.installations).toEqual([
      { installationId: space, outcome: 'skipped: paused', dispatchedAt: expect.any(String) },
    ]);
    expect(trace.dispatches).toEqual([expect.objectContaining({ host: 'platform', skipped: 'paused' })]);
    expect((await ada('POST', `/v1/installations/${space}/resume`)).body.status).toBe('active');
    expect(seen).not.toContain('evt_routed_later');
  });

  it('records nothing for an event the paused installation would not have received', async () => {
    await ada('POST', `/v1/installations/${space}/pause`);
    // The integration handles only space_content_updated: it was never owed this one.
    const sent = await admin('POST', '/v1/events', {
      type: 'space_visibility_updated',
      eventId: 'evt_unhandled',
      spaceId: 's1',
      visibility: 'public',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const trace = await until('the event to be routed', async () => {
      const { body } = await admin('GET', '/v1/events/evt_unhandled');
      return body.routedAt ? body : undefined;
    });
    expect(trace).toMatchObject({ installations: [], dispatches: [] });
    await ada('POST', `/v1/installations/${space}/resume`);
  });
});

describe.each(backends)('an event still waiting when its installation is paused, on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  const seen: string[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });

  afterAll(async () => {
    release();
    await platform?.close();
    await cleanup?.();
  });

  it('is skipped when its turn comes, with its line in the dispatch log', async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    // One dispatch at a time per installation: the second event waits behind the first, held.
    const gated = createIntegration({
      events: {
        space_content_updated: async (event) => {
          seen.push(event.eventId);
          if (event.eventId === 'evt_holds') await held;
        },
      },
    });
    platform = await startPlatform(
      { ...fresh.config, tuning: { ...fresh.config.tuning, dispatchPerInstallation: 1 } },
      { inProcess: new Map([['gated', gated]]) },
    );
    const admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 's1', title: 'Space one' });
    const token = (await admin('POST', '/v1/users', { id: 'ada', name: 'Ada' })).body.token;
    await admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
    const ada = client(platform.url, token);
    await ada('POST', '/v1/integrations', { manifest: manifest('gated'), script: '// in-process' });
    const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'gated' })).body.id;
    const space = (await ada('POST', `/v1/installations/${org}/spaces/s1`)).body.id;
    const send = (eventId: string) =>
      admin('POST', '/v1/events', { type: 'space_content_updated', eventId, spaceId: 's1', revisionId: 'r' });

    await send('evt_holds');
    await until('the first event to be in its handler', async () => (seen.includes('evt_holds') ? true : undefined));
    await send('evt_waits');
    const waiting = await until('the second event to be owed', async () => {
      const { body } = await admin('GET', '/v1/events/evt_waits');
      return body.installations?.length === 1 ? body.installations[0] : undefined;
    });
    expect(waiting).toMatchObject({ installationId: space, dispatchedAt: null });
    expect((await ada('POST', `/v1/installations/${space}/pause`)).body.status).toBe('paused');
    release();

    const trace = await until('the second event to end', async () => {
      const { body } = await admin('GET', '/v1/events/evt_waits');
      return body.installations?.[0]?.dispatchedAt ? body : undefined;
    });
    expect(trace.installations[0].outcome).toBe('skipped: paused');
    expect(trace.dispatches).toEqual([
      expect.objectContaining({ installationId: space, host: 'platform', status: 0, skipped: 'paused' }),
    ]);
    expect(seen).toEqual(['evt_holds']);
  }, 60_000);
});
