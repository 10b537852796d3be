/**
 * An integration's console output is never lost from its dispatch log (issue 43), on the real
 * server, on SQLite and PostgreSQL: events sent back to back to an integration that logs one line
 * per event each leave exactly their own line in their dispatch, also beside a worker stopped for
 * memory and one that times out. The lines are captured in the worker, per request, and come back
 * with its answer; nothing depends on when workerd writes its stdout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, type StartOptions, startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { type Backend, backends } from '../test-support/backends.js';
import { until } from '../test-support/webhook-world.js';

const EVENTS = 200;

/** A hand-written worker in the envelope protocol (spec 4.1); `onEvent` runs on each space_content_updated. */
const worker = (onEvent: string) => `export default {
  async fetch(request) {
    if (request.method === 'GET') {
      return Response.json({ runtime: 'portico', versions: ['v1'], fetch: false, components: [],
        events: ['installation_setup', 'space_installation_setup', 'space_content_updated'] });
    }
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    if (event.type === 'space_content_updated') { ${onEvent} }
    return new Response(null, { status: 204 });
  },
};`;

/** Logs one line per event, after a moment of work, so lines and answers interleave. */
const PRINTER = worker(
  'await new Promise((resolve) => setTimeout(resolve, Math.random() * 3)); console.log(`handled ${event.revisionId}`);',
);

interface Dispatch {
  eventId: string | null;
  type: string;
  status: number;
  error: string | null;
  logs: string[];
  logLines: { level: string; message: string }[];
}

/** A platform with the space `docs` of `acme` and an installation of each worker in it, set up. */
async function spaceWith(backend: Backend, workers: Record<string, string>, options: StartOptions = {}) {
  const fresh = await backend.fresh();
  let platform: RunningPlatform | undefined;
  try {
    platform = await startPlatform({ ...fresh.config, allowPrivateNetwork: true }, options);
    const admin = client(platform.url, platform.adminToken);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
    const installations: Record<string, string> = {};
    for (const [name, script] of Object.entries(workers)) {
      const manifest = `name: ${name}\ntitle: ${name}\ndescription: test\norganization: acme\nvisibility: private\nscopes: [space:content:read]\n`;
      const published = await admin('POST', '/v1/integrations', { manifest, script });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
      const org = (await admin('POST', '/v1/orgs/acme/installations', { integration: name })).body.id;
      installations[name] = (await admin('POST', `/v1/installations/${org}/spaces/docs`)).body.id;
    }
    const running = platform;
    const dispatches = async (name: string): Promise<Dispatch[]> =>
      (await admin('GET', `/v1/installations/${installations[name]}/dispatches?system=false&limit=200`)).body;
    return {
      admin,
      dispatches,
      async close() {
        await running.close();
        await fresh.cleanup();
      },
    };
  } catch (error) {
    await platform?.close();
    await fresh.cleanup();
    throw error;
  }
}

/** Sends the events back to back, eight at a time, as `space_content_updated` with revision `r<i>`. */
async function sendBackToBack(admin: ReturnType<typeof client>, count: number) {
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const i = next++;
      const answer = await admin('POST', '/v1/events', {
        type: 'space_content_updated',
        spaceId: 'docs',
        revisionId: `r${i}`,
        eventId: `e${i}`,
      });
      if (answer.status !== 202) throw new Error(`event ${i}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, sender));
}

/** Every event's dispatch has exactly its own line, once. */
function expectOwnLines(dispatches: Dispatch[], count: number) {
  const byEvent = new Map(dispatches.map((d) => [d.eventId, d]));
  expect(dispatches).toHaveLength(count);
  for (let i = 0; i < count; i++) {
    const dispatch = byEvent.get(`e${i}`);
    expect(dispatch, `the dispatch of e${i}`).toBeDefined();
    expect({ event: `e${i}`, status: dispatch?.status, lines: dispatch?.logLines }).toEqual({
      event: `e${i}`,
      status: 204,
      lines: [{ level: 'log', message: `handled r${i}` }],
    });
    expect(dispatch?.logs).toEqual([`handled r${i}`]);
  }
}

describe.each(backends)('console output in the dispatch log on $name', (backend) => {
  describe(`${EVENTS} events back to back to an integration that logs one line per event`, () => {
    let space: Awaited<ReturnType<typeof spaceWith>>;
    beforeAll(async () => {
      space = await spaceWith(backend, { printer: PRINTER });
    }, 60_000);
    afterAll(() => space?.close());

    it('every dispatch has exactly its own line', async () => {
      await sendBackToBack(space.admin, EVENTS);
      const dispatches = await until(
        `${EVENTS} dispatches`,
        async () => {
          const found = await space.dispatches('printer');
          return found.length >= EVENTS ? found : undefined;
        },
        90_000,
      );
      expectOwnLines(dispatches, EVENTS);
    }, 120_000);
  });

  describe('the same beside a worker stopped for memory and one that times out', () => {
    let space: Awaited<ReturnType<typeof spaceWith>>;
    beforeAll(async () => {
      space = await spaceWith(
        backend,
        {
          printer: PRINTER,
          // Event r25 (each time it is sent again too): grows past the memory ceiling (256 MiB) and is stopped.
          bomb: worker(
            "console.log(`bomb ${event.revisionId}`); if (event.revisionId === 'r25') { const keep = []; for (;;) keep.push(new Float64Array(4_000_000).fill(Math.random())); }",
          ),
          // Event r10 (each time it is sent again too): never answers, and is stopped at the wall-clock limit.
          sleeper: worker(
            "console.log(`sleeper ${event.revisionId}`); if (event.revisionId === 'r10') { await new Promise((resolve) => setTimeout(resolve, 60_000)); }",
          ),
        },
        // Long enough for the bomb to reach the ceiling first on a busy machine.
        { dispatchTimeoutMs: 6000 },
      );
    }, 60_000);
    afterAll(() => space?.close());

    it('every dispatch of the printer has exactly its own line; the stopped ones say why, and the others keep theirs', async () => {
      await sendBackToBack(space.admin, EVENTS);
      const printed = await until(
        `${EVENTS} dispatches of the printer`,
        async () => {
          const found = await space.dispatches('printer');
          return found.length >= EVENTS ? found : undefined;
        },
        90_000,
      );
      expectOwnLines(printed, EVENTS);

      // The neighbours were stopped, and said why. (Under load their other events may be answered
      // only after that: those in flight in a worker when it is stopped go out again. So wait for both.)
      let seen = '';
      const answered = (dispatches: Dispatch[]) => dispatches.some((d) => d.status === 204);
      const stopped = await until(
        'a bomb stopped for memory and a sleeper stopped at the limit, each with events answered',
        async () => {
          const bomb = await space.dispatches('bomb');
          const sleeper = await space.dispatches('sleeper');
          const memory = bomb.filter((d) => d.error?.includes('MiB and was stopped'));
          const timedOut = sleeper.filter((d) => d.error?.includes('did not answer within 6 s'));
          seen = JSON.stringify({
            bomb: [bomb.length, ...new Set(bomb.map((d) => d.error ?? d.status))],
            sleeper: [sleeper.length, ...new Set(sleeper.map((d) => d.error ?? d.status))],
          });
          return memory.length > 0 && timedOut.length > 0 && answered(bomb) && answered(sleeper)
            ? { bomb, sleeper }
            : undefined;
        },
        90_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; last seen: ${seen}`);
      });
      // Each of their dispatches that answered has its own line, and only it.
      for (const [name, dispatches] of Object.entries(stopped)) {
        const answered = dispatches.filter((d) => d.status === 204);
        expect(answered.length, name).toBeGreaterThan(0);
        for (const d of answered)
          expect(d.logLines, `${name} ${d.eventId}`).toEqual([
            { level: 'log', message: `${name} r${d.eventId?.slice(1)}` },
          ]);
      }
    }, 180_000);
  });
});
