/**
 * Isolation (DESIGN.md) on the real server, on SQLite and PostgreSQL: one tenant's hanging
 * receiver or spinning integration never delays another's work; retries keep their windows while
 * deliveries wait for a destination slot; an endpoint that keeps failing is disabled, says so,
 * and comes back with one call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryEngine } from '../delivery/delivery-engine.js';
import { type RunningPlatform, type StartOptions, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { type Backend, backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Posts `count` events with up to eight at once. */
async function emitMany(admin: ReturnType<typeof client>, count: number, event: (i: number) => object) {
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const i = next++;
      const answer = await admin('POST', '/v1/events', event(i));
      if (answer.status !== 202) throw new Error(`event ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, sender));
}

/** A hand-written worker in the envelope protocol (spec 4.1); `onEvent` runs on each event it gets. */
const worker = (onEvent: string) => `export default {
  async fetch(request) {
    if (request.method === 'GET') {
      return Response.json({ runtime: 'portico', versions: ['v1'], fetch: false, components: [],
        events: ['installation_setup', 'space_installation_setup', 'space_content_updated'] });
    }
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    ${onEvent}
    return new Response(null, { status: 204 });
  },
};`;

type ScriptedSpace = Awaited<ReturnType<typeof scriptedSpace>>;

/**
 * A platform with the space `docs` of `acme` and in it an installation of each worker (published
 * and installed by ada, an admin of acme), answered once every setup event has been dispatched.
 */
async function scriptedSpace(backend: Backend, workers: Record<string, string>, options: StartOptions = {}) {
  const fresh = await backend.fresh();
  const platform = await startPlatform({ ...fresh.config, allowPrivateNetwork: true }, options);
  const admin = client(platform.url, platform.adminToken);
  await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
  await admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
  const token = (await admin('POST', '/v1/users', { id: 'ada', name: 'Ada' })).body.token;
  await admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
  const ada = client(platform.url, token);
  const installations: Record<string, string> = {};
  for (const [name, script] of Object.entries(workers)) {
    const manifest = `name: ${name}\ntitle: ${name}\ndescription: test\norganization: acme\nvisibility: private\nscopes: [space:content:read]\n`;
    const published = await ada('POST', '/v1/integrations', { manifest, script });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: name })).body.id;
    installations[name] = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id;
  }
  await until('every setup event dispatched', async () => {
    const counts = await Promise.all(
      Object.values(installations).map(
        async (id) => (await ada('GET', `/v1/installations/${id}/dispatches`)).body.length,
      ),
    );
    return counts.every((n) => n > 0) ? true : undefined;
  });
  return {
    platform,
    admin,
    ada,
    installations,
    async close() {
      await platform.close();
      await fresh.cleanup();
    },
  };
}

describe.each(backends)('isolation on $name', (backend) => {
  describe('two spaces whose webhooks share a host: one path never answers, with 150 deliveries owed', () => {
    // One receiver: the same scheme, host and port for both spaces, two paths.
    const receiver = new ScriptedReceiver();
    const world = webhookWorldFor(backend, {}, [receiver]);
    let healthySpace: string;

    beforeAll(async () => {
      await world.admin('POST', '/v1/orgs/acme/spaces', { id: 'docs2', title: 'Docs 2' });
      healthySpace = (await world.ada('POST', `/v1/installations/${world.orgInstallation}/spaces/docs2`)).body.id;
      await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
        url: receiver.script('/hang', ['hang']),
        space_content_updated: true,
      });
      await world.ada('PATCH', `/v1/installations/${healthySpace}/configuration`, {
        url: receiver.script('/ok', [200]),
        space_content_updated: true,
      });
    }, 60_000);

    it("the healthy path's deliveries arrive within 1 s; the hanging one holds at most 2 connections and keeps its retry windows", async () => {
      await emitMany(world.admin, 150, (i) => ({
        type: 'space_content_updated',
        spaceId: 'docs',
        revisionId: `r${i}`,
        eventId: `hang-${i}`,
      }));
      await until('the hanging path to be reached', () => (receiver.at('/hang').length > 0 ? true : undefined));
      const posted = new Map<string, number>();
      for (let i = 0; i < 20; i++) {
        const eventId = `ok-${i}`;
        posted.set(eventId, Date.now());
        await world.admin('POST', '/v1/events', {
          type: 'space_content_updated',
          spaceId: 'docs2',
          revisionId: `r${i}`,
          eventId,
        });
        await sleep(50);
      }
      const arrived = await until('the healthy deliveries', () =>
        receiver.at('/ok').length >= 20 ? receiver.at('/ok') : undefined,
      );
      const latencies = arrived.map((r) => r.at - (posted.get(JSON.parse(r.body).eventId) as number));
      expect(Math.max(...latencies), `latencies: ${latencies.join(', ')} ms`).toBeLessThan(1000);

      // The hanging path's first deliveries get all four attempts, each retry inside its window
      // (attempts time out after 1 s here), while the other 148 wait.
      const failed = await until(
        'the first hanging deliveries to end',
        async () => {
          const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?status=failed`);
          return (body as unknown[]).length > 0
            ? (body as { attempts: { at: string; durationMs: number }[] }[])
            : undefined;
        },
        30_000,
      );
      for (const delivery of failed) {
        expect(delivery.attempts).toHaveLength(4);
        const sorted = [...delivery.attempts].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
        for (const [i, base] of [1000, 2000, 4000].entries()) {
          const before = sorted[i] as { at: string; durationMs: number };
          const gap = Date.parse((sorted[i + 1] as { at: string }).at) - (Date.parse(before.at) + before.durationMs);
          expect(gap, `retry ${i + 1}`).toBeGreaterThanOrEqual(base - 5);
          expect(gap, `retry ${i + 1}`).toBeLessThan(base * 1.1 + 300);
        }
      }
      // Never more than two connections open at once to the hanging path.
      expect(receiver.hanging.get('/hang')?.peak).toBeLessThanOrEqual(2);
      const { body: pending } = await world.ada(
        'GET',
        `/v1/installations/${world.space}/deliveries?status=pending&limit=200`,
      );
      expect((pending as unknown[]).length).toBeGreaterThan(100);
    }, 60_000);
  });

  describe('a host with 50 endpoints, each owed five deliveries', () => {
    const receiver = new ScriptedReceiver();
    const world = webhookWorldFor(backend, { ownEngine: true }, [receiver]);

    it('serves the endpoints in turn: every one gets its k-th delivery before any gets its (k+1)-th', async () => {
      // Asked for while no engine runs: the rows wait in the database, in order, endpoint by endpoint.
      const deliver = client(world.platform.url, world.spaceToken);
      for (let e = 0; e < 50; e++) {
        const url = receiver.script(`/e${e}`, ['slow']);
        for (let k = 0; k < 5; k++) {
          await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
            url,
            eventId: `turn-${e}-${k}`,
            type: 'test',
            payload: { e, k },
          });
        }
      }
      const engine = new DeliveryEngine({
        ctx: world.platform.ctx,
        allowPrivateNetwork: true,
        userAgent: 'test',
        perDestination: 4,
      });
      engine.start();
      try {
        await until('every delivery at the receiver', () => (receiver.received.length >= 250 ? true : undefined));
      } finally {
        await engine.stop();
      }
      const seen = new Map<string, number>();
      const positions = receiver.received.map((r, index) => {
        const k = (seen.get(r.path) ?? 0) + 1;
        seen.set(r.path, k);
        return { k, index };
      });
      // The k-th round is received at positions 50(k-1) to 50k, give or take the four in flight.
      for (const { k, index } of positions) {
        expect(index, `round ${k}`).toBeGreaterThanOrEqual(50 * (k - 1) - 4);
        expect(index, `round ${k}`).toBeLessThan(50 * k + 4);
      }
    }, 60_000);
  });

  describe('an integration that spins forever, beside a healthy one in the same space', () => {
    let space: ScriptedSpace;
    let admin: ReturnType<typeof client>;
    let ada: ReturnType<typeof client>;
    let installations: Record<string, string>;

    beforeAll(async () => {
      space = await scriptedSpace(
        backend,
        { spinner: worker("if (event.type === 'space_content_updated') for (;;) {}"), steady: worker('') },
        { dispatchTimeoutMs: 1500 },
      );
      ({ admin, ada, installations } = space);
    }, 60_000);
    afterAll(() => space?.close());

    const dispatches = async (name: string) =>
      (await ada('GET', `/v1/installations/${installations[name]}/dispatches`)).body as {
        eventId: string | null;
        type: string;
        status: number;
        error: string | null;
        at: string;
      }[];

    it("the healthy integration's events arrive within 1 s; the spinner times out and is backed off", async () => {
      const posted = new Map<string, number>();
      for (let i = 0; i < 12; i++) {
        const eventId = `spin-${i}`;
        posted.set(eventId, Date.now());
        await admin('POST', '/v1/events', { type: 'space_content_updated', spaceId: 'docs', revisionId: 'r', eventId });
        await sleep(250);
      }
      const steady = await until('every event at the steady integration', async () => {
        const found = (await dispatches('steady')).filter((d) => d.eventId?.startsWith('spin-'));
        return found.length >= 12 ? found : undefined;
      });
      const latencies = steady.map((d) => Date.parse(d.at) - (posted.get(d.eventId as string) as number));
      expect(steady.every((d) => d.status === 204)).toBe(true);
      expect(Math.max(...latencies), `latencies: ${latencies.join(', ')} ms`).toBeLessThan(1000);

      const log = await until(
        'the circuit breaker in the spinner’s dispatch log',
        async () => {
          const found = await dispatches('spinner');
          return found.some((d) => d.type === 'circuit_breaker') ? found : undefined;
        },
        30_000,
      );
      expect(log.find((d) => d.eventId?.startsWith('spin-'))?.error).toMatch(/did not answer within 1.5 s/);
      expect(log.find((d) => d.type === 'circuit_breaker')?.error).toMatch(
        /^waiting: the worker of spinner failed 3 times in a row .*circuit breaker/,
      );
    }, 60_000);
  });

  describe('an installation flooded beyond its cap, beside a quick one in the same space', () => {
    let space: ScriptedSpace;
    let platform: RunningPlatform;
    let admin: ReturnType<typeof client>;
    let installations: Record<string, string>;

    beforeAll(async () => {
      // Workerd runs one dispatch at a time per worker: the slow one's rows queue behind it.
      space = await scriptedSpace(backend, {
        slow: worker("if (event.type === 'space_content_updated') await new Promise((r) => setTimeout(r, 50));"),
        quick: worker(''),
      });
      ({ platform, admin, installations } = space);
    }, 60_000);
    afterAll(() => space?.close());

    const contentDispatches = async (name: string) =>
      (
        (await admin('GET', `/v1/installations/${installations[name]}/dispatches`)).body as {
          eventId: string | null;
          status: number;
          at: string;
        }[]
      ).filter((d) => d.eventId?.startsWith('flood-'));

    it('the quick one gets every event within 1 s, the flooded one all of them; stopping gives its held rows back', async () => {
      const posted = new Map<string, number>();
      await emitMany(admin, 40, (i) => {
        posted.set(`flood-${i}`, Date.now());
        return { type: 'space_content_updated', spaceId: 'docs', revisionId: 'r', eventId: `flood-${i}` };
      });
      const quick = await until('every event at the quick integration', async () => {
        const found = await contentDispatches('quick');
        return found.length >= 40 ? found : undefined;
      });
      const latencies = quick.map((d) => Date.parse(d.at) - (posted.get(d.eventId as string) as number));
      expect(Math.max(...latencies), `latencies: ${latencies.join(', ')} ms`).toBeLessThan(1000);
      const slow = await until(
        'every event at the slow integration',
        async () => {
          const found = await contentDispatches('slow');
          return found.length >= 40 ? found : undefined;
        },
        30_000,
      );
      expect(slow.every((d) => d.status === 204)).toBe(true);

      // A second flood, and the node stops while most of it is held (claimed ahead, over the
      // installation's cap): those rows are unclaimed at once. The dispatches under way call no
      // further row; each writes the outcomes of the rows it called once its call ends, so within
      // a call's time (not the 30 s lease) no row owed is left claimed but those still in a call.
      await emitMany(admin, 40, (i) => ({
        type: 'space_content_updated',
        spaceId: 'docs',
        revisionId: 'r',
        eventId: `late-${i}`,
      }));
      await platform.dispatcher.stop(0);
      const owed = await until(
        'only the rows in a call to be claimed',
        async () => {
          const rows = await platform.ctx.db
            .selectFrom('outbox')
            .select(['id', 'claimed_until'])
            .where('installation_id', '=', installations.slow as string)
            .where('dispatched_at', 'is', null)
            .execute();
          const claimed = rows.filter((row) => row.claimed_until !== null).length;
          return claimed <= platform.tuning.dispatchPerInstallation ? rows : undefined;
        },
        5_000,
      );
      expect(owed.length).toBeGreaterThan(0);
    }, 60_000);
  });

  describe('retries keep their windows while deliveries wait for a destination slot', () => {
    const receiver = new ScriptedReceiver();
    const world = webhookWorldFor(backend, { tuning: { deliveryPerDestination: 2 } }, [receiver]);

    it('admits two deliveries at a time to the destination; each one’s retries start inside 1.0–1.1, 2.0–2.2, 4.0–4.4 s', async () => {
      const deliver = client(world.platform.url, world.spaceToken);
      const url = receiver.script('/down', [500]);
      for (let i = 0; i < 4; i++) {
        const answer = await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
          url,
          eventId: `window-${i}`,
          type: 'test',
          payload: { eventId: `window-${i}` },
        });
        expect(answer.status).toBe(202);
      }
      const logs = await until(
        'four failed deliveries',
        async () => {
          const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?limit=10`);
          const done = (body as { eventId: string; status: string }[]).filter(
            (d) => d.eventId.startsWith('window-') && d.status === 'failed',
          );
          return done.length === 4 ? done : undefined;
        },
        40_000,
      );
      const spans: [number, number][] = [];
      for (const delivery of logs as unknown as {
        eventId: string;
        attempts: { at: string; durationMs: number }[];
      }[]) {
        const attempts = delivery.attempts.map((a) => ({
          start: Date.parse(a.at),
          end: Date.parse(a.at) + a.durationMs,
        }));
        expect(attempts).toHaveLength(4);
        for (const [i, base] of [1000, 2000, 4000].entries()) {
          const gap = (attempts[i + 1] as { start: number }).start - (attempts[i] as { end: number }).end;
          expect({ delivery: delivery.eventId, retry: i + 1, gap }).toMatchObject({ gap: expect.any(Number) });
          expect(gap, `${delivery.eventId} retry ${i + 1}`).toBeGreaterThanOrEqual(base - 5);
          expect(gap, `${delivery.eventId} retry ${i + 1}`).toBeLessThan(base * 1.1 + 300);
        }
        spans.push([(attempts[0] as { start: number }).start, (attempts[3] as { end: number }).end]);
      }
      // Never more than two under way at once: the later two started after an earlier one ended.
      spans.sort((a, b) => a[0] - b[0]);
      const [, , third, fourth] = spans as [number, number][];
      const firstEnds = spans.slice(0, 2).map(([, end]) => end);
      expect((third as [number, number])[0]).toBeGreaterThanOrEqual(Math.min(...firstEnds));
      expect((fourth as [number, number])[0]).toBeGreaterThanOrEqual(Math.max(...firstEnds) - 1);
    }, 60_000);
  });

  describe('an endpoint that fails every attempt for the disable period', () => {
    const receiver = new ScriptedReceiver();
    const world = webhookWorldFor(backend, { tuning: { endpointDisableAfterMs: 1500 } }, [receiver]);

    it('is disabled with the reason, fails what it was owed, shows on the installation, and comes back with one call', async () => {
      const deliver = client(world.platform.url, world.spaceToken);
      const url = receiver.script('/broken', [500]);
      const request = (eventId: string) =>
        deliver('POST', `/v1/installations/${world.space}/deliveries`, {
          url,
          eventId,
          type: 'test',
          payload: { eventId },
        });
      const delivery = async (eventId: string) =>
        (await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=${eventId}`)).body[0];
      expect((await request('dis-1')).status).toBe(202);
      await sleep(200);
      expect((await request('dis-2')).status).toBe(202);
      const first = await until('the first delivery to end', async () => {
        const d = await delivery('dis-1');
        return d?.status === 'failed' ? d : undefined;
      });
      expect(first.attempts.length).toBeLessThan(4); // stopped by the disabling, not by the retry limit
      expect(first.lastError).toMatch(
        /^disabled: every attempt to .*\/broken failed since .* enable the endpoint again/,
      );
      const second = await until('the second delivery to end', async () => {
        const d = await delivery('dis-2');
        return d?.status === 'failed' ? d : undefined;
      });
      expect(second.lastError).toBe(first.lastError);

      const seenBefore = receiver.at('/broken').length;
      const third = await request('dis-3');
      expect(third.body.status).toBe('failed');
      await sleep(300);
      expect(receiver.at('/broken')).toHaveLength(seenBefore); // nothing was sent to it

      const installation = (await world.ada('GET', `/v1/installations/${world.space}`)).body;
      expect(installation.alerts).toEqual([
        expect.objectContaining({ code: 'endpoint_disabled', url, message: expect.stringMatching(/\/enable/) }),
      ]);
      const [endpoint] = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body;
      expect(endpoint).toMatchObject({
        url,
        destination: `http://127.0.0.1:${new URL(url).port}`,
        state: 'disabled',
        lastSuccessAt: null,
        lastError: 'the receiver answered 500',
      });
      expect(endpoint.consecutiveFailures).toBeGreaterThanOrEqual(3);
      const refused = await world.ada('POST', `/v1/deliveries/${first.id}/redeliver`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'endpoint_disabled', message: expect.stringMatching(/enable/) });

      receiver.script('/broken', [200]);
      const enabled = await world.ada('POST', `/v1/installations/${world.space}/endpoints/${endpoint.id}/enable`);
      expect(enabled.body).toMatchObject({ state: 'healthy', consecutiveFailures: 0, disabledAt: null });
      expect((await world.ada('GET', `/v1/installations/${world.space}`)).body.alerts).toEqual([]);
      const again = await world.ada('POST', `/v1/deliveries/${(await delivery('dis-3')).id}/redeliver`);
      expect(again.status).toBe(202);
      await until('the redelivery', async () => {
        const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=dis-3`);
        return body.some((d: { status: string }) => d.status === 'delivered') ? true : undefined;
      });
      const [healthy] = (await world.ada('GET', `/v1/installations/${world.space}/endpoints`)).body;
      expect(healthy).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
      expect(healthy.lastSuccessAt).toMatch(/^\d{4}-/);
    }, 30_000);
  });
});
