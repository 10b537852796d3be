/**
 * GET /v1/installations/{id}/dispatches a page at a time, on the real server, on SQLite and
 * PostgreSQL (issue 24): newest first by the time each line records, `limit` rows, the next page's cursor in X-Next-Cursor (none
 * on the last page, an exactly full one included), pages that stay as they were when dispatches
 * are recorded between them, `system=false` leaving out renders and setup events on the server,
 * and clear 400s for a cursor, limit or filter the API did not give.
 */
import { createIntegration } from '@portico/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';

const manifest = `name: pages
title: Pages
description: Handles content events
organization: acme
visibility: private
scopes: [space:content:read]
`;

interface Line {
  eventId: string | null;
  type: string;
}

describe.each(backends)('the dispatch log in pages, on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let admin: ReturnType<typeof client>;
  let org: string;
  let space: string;
  let token: string;

  /** One page: the ids of the events this test sent (the type for the others) and the next cursor. */
  const page = async (id: string, query: string) => {
    const answer = await fetch(`${platform.url}/v1/installations/${id}/dispatches${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await answer.json()) as Line[];
    expect(answer.status, JSON.stringify(body)).toBe(200);
    return {
      lines: body.map((line) => (/^e\d+$/.test(line.eventId ?? '') ? line.eventId : line.type)),
      next: answer.headers.get('x-next-cursor'),
    };
  };
  const send = async (eventId: string) => {
    const sent = await admin('POST', '/v1/events', {
      type: 'space_content_updated',
      eventId,
      spaceId: 's1',
      revisionId: 'r',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    await until(`the dispatch of ${eventId}`, async () =>
      (await page(space, '?system=false')).lines.includes(eventId) ? true : undefined,
    );
  };

  beforeAll(async () => {
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config, {
      inProcess: new Map([['pages', createIntegration({ events: { space_content_updated: () => {} } })]]),
    });
    admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 's1', title: 'Space one' });
    token = (await admin('POST', '/v1/users', { id: 'ada', name: 'Ada' })).body.token;
    await admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
    const ada = client(platform.url, token);
    expect((await ada('POST', '/v1/integrations', { manifest, script: '// in-process' })).status).toBe(201);
    org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'pages' })).body.id;
    space = (await ada('POST', `/v1/installations/${org}/spaces/s1`)).body.id;
    await until('the setup events', async () =>
      (await page(space, '')).lines.includes('space_installation_setup') &&
      (await page(org, '')).lines.includes('installation_setup')
        ? true
        : undefined,
    );
    for (const id of ['e1', 'e2', 'e3', 'e4']) await send(id);
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
  });

  it('answers every dispatch, newest first, to a caller that passes nothing', async () => {
    expect(await page(space, '')).toEqual({ lines: ['e4', 'e3', 'e2', 'e1', 'space_installation_setup'], next: null });
  });

  it('pages newest first; the last page has no cursor, an exactly full one included', async () => {
    const first = await page(space, '?system=false&limit=2');
    expect(first.lines).toEqual(['e4', 'e3']);
    expect(first.next).toBeTruthy();
    expect(await page(space, `?system=false&limit=2&cursor=${first.next}`)).toEqual({
      lines: ['e2', 'e1'],
      next: null,
    });
    expect(await page(space, '?system=false&limit=4')).toEqual({ lines: ['e4', 'e3', 'e2', 'e1'], next: null });

    const all1 = await page(space, '?limit=2');
    const all2 = await page(space, `?limit=2&cursor=${all1.next}`);
    const all3 = await page(space, `?limit=2&cursor=${all2.next}`);
    expect([all1.lines, all2.lines, all3]).toEqual([
      ['e4', 'e3'],
      ['e2', 'e1'],
      { lines: ['space_installation_setup'], next: null },
    ]);
  });

  it('leaves out system events on the server: a page is full of the others, or empty when only they came', async () => {
    expect(await page(org, '')).toEqual({ lines: ['installation_setup'], next: null });
    expect(await page(org, '?system=false')).toEqual({ lines: [], next: null });
    expect(await page(space, '?system=false&limit=1')).toMatchObject({ lines: ['e4'] });
  });

  it('keeps the older pages as they were when dispatches are recorded between pages', async () => {
    const first = await page(space, '?system=false&limit=2');
    expect(first.lines).toEqual(['e4', 'e3']);
    await send('e5');
    expect(await page(space, `?system=false&limit=2&cursor=${first.next}`)).toEqual({
      lines: ['e2', 'e1'],
      next: null,
    });
    expect((await page(space, '?system=false&limit=2')).lines).toEqual(['e5', 'e4']);
  });

  it('orders lines by the time they record, also one written after newer ones (rows dispatched together)', async () => {
    // A dispatch that took rows along writes their lines when it ends: this one, recorded just
    // after e2's call ended, is written last.
    const e2 = await platform.ctx.db
      .selectFrom('dispatches')
      .select(['at', 'id'])
      .where('installation_id', '=', space)
      .where('event_id', '=', 'e2')
      .executeTakeFirstOrThrow();
    await platform.ctx.db
      .insertInto('dispatches')
      .values({
        installation_id: space,
        event_id: 'e20',
        event_type: 'space_content_updated',
        host: 'in-process',
        status: 204,
        duration_ms: 1,
        error: null,
        logs: '[]',
        at: Number(e2.at) + 1,
      })
      .execute();
    const all = await page(space, '?system=false');
    expect(all.lines.slice(-3)).toEqual(['e20', 'e2', 'e1']);
    // Page by page, across it: each line once, in the same order.
    const seen: (string | null)[] = [];
    let next: string | null = null;
    do {
      const one: { lines: (string | null)[]; next: string | null } = await page(
        space,
        `?system=false&limit=2${next ? `&cursor=${next}` : ''}`,
      );
      seen.push(...one.lines);
      next = one.next;
    } while (next);
    expect(seen).toEqual(all.lines);
    // A cursor given before the log was read by time (the line's id alone) still answers a page.
    const legacy = Buffer.from(`d${e2.id}`).toString('base64url');
    expect((await page(space, `?system=false&cursor=${legacy}`)).lines).toEqual(['e1']);
  });

  it('refuses a cursor, limit or filter it did not give, saying which and how to fix it', async () => {
    const ask = (query: string) => client(platform.url, token)('GET', `/v1/installations/${space}/dispatches${query}`);
    const bogus = await ask('?cursor=bogus');
    expect(bogus.status).toBe(400);
    expect(bogus.body.error).toMatchObject({ code: 'invalid_cursor', message: expect.stringMatching(/X-Next-Cursor/) });
    // A deliveries cursor is not a dispatches cursor.
    const foreign = Buffer.from(`${Date.now()}|dlv_1`).toString('base64url');
    expect((await ask(`?cursor=${foreign}`)).body.error.code).toBe('invalid_cursor');
    for (const query of ['?limit=0', '?limit=201', '?limit=ten', '?system=maybe']) {
      const answer = await ask(query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.message, query).toMatch(/limit|system/);
    }
  });
});
