/**
 * The dispatcher's own bookkeeping, on SQLite and PostgreSQL: rows waiting in its memory behind a
 * slow dispatch keep their leases renewed, so no claim takes them while they wait, and each event
 * is dispatched once; rows waiting for the same installation go one after another in one
 * dispatch's slot, and their outcomes are written together.
 */
import { createIntegration } from '@portico/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';
import { Dispatcher } from './dispatcher.js';

/** Its events wait until `release` (a new gate for each back end). */
let release: () => void = () => {};
let held = Promise.resolve();
const slowpoke = createIntegration({
  events: {
    async space_content_updated() {
      await held;
    },
  },
});
const manifest = `name: slowpoke
title: Slowpoke
description: Holds its first event until told
organization: acme
visibility: private
scopes: [space:content:read]
`;

describe.each(backends)('the dispatcher on $name', (backend) => {
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  let dispatcher: Dispatcher;
  let space: string;

  beforeAll(async () => {
    held = new Promise<void>((r) => (release = r));
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config, { inProcess: new Map([['slowpoke', slowpoke]]) });
    const admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
    expect((await admin('POST', '/v1/integrations', { manifest, script: '// in-process' })).status).toBe(201);
    const org = (await admin('POST', '/v1/orgs/acme/installations', { integration: 'slowpoke' })).body.id;
    space = (await admin('POST', `/v1/installations/${org}/spaces/docs`)).body.id;
    await until('the setup events dispatched', async () => {
      const owed = await platform.ctx.db.selectFrom('outbox').select('id').where('dispatched_at', 'is', null).execute();
      return owed.length === 0 ? true : undefined;
    });
    // A dispatcher of the test's own: one dispatch per installation at a time, leases of 2 s.
    await platform.dispatcher.stop();
    dispatcher = new Dispatcher({ ctx: platform.ctx, hosts: platform.hosts, perInstallation: 1, leaseMs: 2000 });
    platform.ctx.routeOnIngest = dispatcher.intake.route;
    platform.ctx.wake = dispatcher.intake.wake;
    dispatcher.start();
  }, 60_000);
  afterAll(async () => {
    release();
    await dispatcher?.stop();
    await platform?.close();
    await cleanup?.();
  });

  it('renews the leases of rows waiting behind a slow dispatch, and dispatches each event once', async () => {
    const admin = client(platform.url, platform.adminToken);
    for (let i = 0; i < 3; i++) {
      await admin('POST', '/v1/events', {
        type: 'space_content_updated',
        spaceId: 'docs',
        revisionId: 'r',
        eventId: `slow-${i}`,
      });
    }
    const rows = () =>
      platform.ctx.db
        .selectFrom('outbox')
        .select(['event_id', 'claimed_until', 'dispatched_at'])
        .where('installation_id', '=', space)
        .where('event_id', 'is not', null)
        .orderBy('id')
        .execute();
    const first = await until('the three rows claimed', async () => {
      const now = await rows();
      return now.length === 3 && now.every((r) => r.claimed_until !== null) ? now : undefined;
    });
    // Past two leases: the two waiting behind the one in flight are still this node's, their leases
    // moved on. (Which one runs first depends on whether the first event arrived while this new
    // dispatcher's first pass ran: it is then claimed by the pass, after the next two were routed.)
    await new Promise((r) => setTimeout(r, 4500));
    const later = await rows();
    expect(later.map((row) => row.dispatched_at)).toEqual([null, null, null]);
    const renewed = later.filter(
      (row, i) => Number(row.claimed_until) > Number(first[i]?.claimed_until) && Number(row.claimed_until) > Date.now(),
    );
    expect(renewed.length).toBeGreaterThanOrEqual(2);
    release();
    await until('every event dispatched', async () => {
      const now = await rows();
      return now.every((r) => r.dispatched_at !== null) ? true : undefined;
    });
    const dispatches = await platform.ctx.db
      .selectFrom('dispatches')
      .select(['event_id', 'status'])
      .where('installation_id', '=', space)
      .where('event_type', '=', 'space_content_updated')
      .orderBy('id')
      .execute();
    expect(dispatches.map((d) => d.event_id).sort()).toEqual(['slow-0', 'slow-1', 'slow-2']);
  }, 30_000);

  it('dispatches the rows waiting behind a dispatch after it, and writes their outcomes in one write', async () => {
    // A dispatcher with a long lease and a long poll (no renewal and no claim looking everywhere
    // writes while the test counts writes) that takes rows along for 20 s: however slow the
    // machine, the held dispatch takes the five behind it.
    await dispatcher.stop();
    dispatcher = new Dispatcher({
      ctx: platform.ctx,
      hosts: platform.hosts,
      perInstallation: 1,
      leaseMs: 60_000,
      pollMs: 60_000,
      joinMs: 20_000,
    });
    platform.ctx.routeOnIngest = dispatcher.intake.route;
    platform.ctx.wake = dispatcher.intake.wake;
    dispatcher.start();
    held = new Promise<void>((r) => (release = r));
    const admin = client(platform.url, platform.adminToken);
    const ids = Array.from({ length: 6 }, (_, i) => `together-${i}`);
    for (const eventId of ids)
      await admin('POST', '/v1/events', { type: 'space_content_updated', spaceId: 'docs', revisionId: 'r', eventId });
    const owed = () =>
      platform.ctx.db
        .selectFrom('outbox')
        .select(['event_id', 'claimed_until', 'dispatched_at', 'outcome'])
        .where('installation_id', '=', space)
        .where('event_id', 'in', ids)
        .execute();
    await until('the six rows claimed', async () => {
      const rows = await owed();
      return rows.length === 6 && rows.every((r) => r.claimed_until !== null) ? true : undefined;
    });
    const write = platform.ctx.write;
    let writes = 0;
    platform.ctx.write = (work, options) => {
      writes++;
      return write.call(platform.ctx, work, options) as never;
    };
    try {
      release();
      await until('every event dispatched', async () => {
        const rows = await owed();
        return rows.every((r) => r.dispatched_at !== null) ? rows : undefined;
      });
    } finally {
      platform.ctx.write = write;
    }
    expect(writes).toBe(1);
    expect((await owed()).map((row) => row.outcome)).toEqual(ids.map(() => 'delivered'));
    const lines = await platform.ctx.db
      .selectFrom('dispatches')
      .select(['event_id', 'status'])
      .where('installation_id', '=', space)
      .where('event_id', 'in', ids)
      .orderBy('event_id')
      .execute();
    // (Which row goes first depends on whether a claim or the routing took it: see above.)
    expect(lines).toEqual(ids.map((event_id) => ({ event_id, status: 204 })));
  }, 30_000);

  it('claims a row routed while a claim that cannot see it commits, without waiting for the next look everywhere', async () => {
    // The first claim of a new dispatcher (it looks everywhere) stays open after its read until the
    // event's routing has left its row for a claim; it then commits, having seen no row. The next
    // claim that looks everywhere is a minute away: only the routing's mark gets the row claimed.
    await dispatcher.stop();
    release();
    held = Promise.resolve();
    const write = platform.ctx.write;
    let claimRead: () => void = () => {};
    const read = new Promise<void>((r) => (claimRead = r));
    let commit: () => void = () => {};
    const routed = new Promise<void>((r) => (commit = r));
    let held1 = false;
    platform.ctx.write = ((work, options) => {
      if (held1 || !new Error().stack?.includes('Dispatcher.claim')) return write.call(platform.ctx, work, options);
      held1 = true;
      return write.call(
        platform.ctx,
        async (trx) => {
          const answer = await work(trx);
          claimRead();
          await routed;
          return answer;
        },
        options,
      );
    }) as typeof write;
    try {
      dispatcher = new Dispatcher({ ctx: platform.ctx, hosts: platform.hosts, leaseMs: 60_000, pollMs: 60_000 });
      platform.ctx.routeOnIngest = dispatcher.intake.route;
      platform.ctx.wake = dispatcher.intake.wake;
      dispatcher.start();
      await read;
      const admin = client(platform.url, platform.adminToken);
      const posted = admin('POST', '/v1/events', {
        type: 'space_content_updated',
        spaceId: 'docs',
        revisionId: 'r',
        eventId: 'routed-during-claim',
      });
      // (Routing decides before the event's write, which waits behind the claim on SQLite.)
      await new Promise((r) => setTimeout(r, 500));
      commit();
      expect((await posted).status).toBe(202);
    } finally {
      commit();
      platform.ctx.write = write;
    }
    await until(
      'the row dispatched',
      async () => {
        const row = await platform.ctx.db
          .selectFrom('outbox')
          .select('dispatched_at')
          .where('event_id', '=', 'routed-during-claim')
          .executeTakeFirst();
        return row?.dispatched_at != null ? true : undefined;
      },
      10_000,
    );
  }, 30_000);
});
