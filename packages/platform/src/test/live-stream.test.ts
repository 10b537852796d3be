/**
 * The live stream of an installation on the real server, on SQLite and PostgreSQL: dispatches and
 * deliveries as server-sent events, the same JSON as the logs, resumed from Last-Event-ID or a
 * time; on PostgreSQL also what another node did. Plus the heartbeat, a session that ends while the
 * stream is open, and a server that stops with streams open.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, describe, expect, it } from 'vitest';
import { unauthenticated } from '../errors/domain-error.js';
import { streamRoutes } from '../http/routes/streams.js';
import { startPlatform } from '../server.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import type { Principal } from '../types.js';

interface Message {
  event?: string;
  data?: string;
  id?: string;
  comment?: string;
}

/** Reads a server-sent event stream as it arrives. */
class SseReader {
  readonly messages: Message[] = [];
  ended = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(readonly response: Response) {
    if (response.body === null) throw new Error('the stream has no body');
    this.reader = response.body.getReader();
    void this.pump();
  }

  private async pump() {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await this.reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const message: Message = {};
          for (const line of buffer.slice(0, end).split('\n')) {
            if (line.startsWith(':')) message.comment = line.slice(1).trim();
            const [, field, value] = /^(event|data|id): ?(.*)$/.exec(line) ?? [];
            if (field) message[field as 'event' | 'data' | 'id'] = value;
          }
          this.messages.push(message);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {}
    this.ended = true;
  }

  events(type: string): any[] {
    return this.messages.filter((m) => m.event === type).map((m) => JSON.parse(m.data ?? 'null'));
  }

  /** The id of the last message that carried one. */
  get lastId(): string | undefined {
    return this.messages.filter((m) => m.id !== undefined).at(-1)?.id;
  }

  close() {
    void this.reader.cancel().catch(() => {});
  }
}

describe.each(backends)('the live stream on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);
  const readers: SseReader[] = [];
  afterAll(() => {
    for (const reader of readers) reader.close();
  });

  async function open(id: string, query = '', headers: Record<string, string> = {}, token?: string) {
    const response = await fetch(`${world.platform.url}/v1/installations/${id}/stream${query}`, {
      headers: {
        authorization: `Bearer ${token ?? world.platform.adminToken}`,
        accept: 'text/event-stream',
        ...headers,
      },
    });
    const reader = new SseReader(response);
    readers.push(reader);
    return reader;
  }

  let configured = false;
  async function send(eventId: string) {
    if (!configured) {
      const url = receiver.script('/hook', [200]);
      await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, {
        url,
        space_content_updated: true,
      });
      configured = true;
    }
    const answer = await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r1',
      eventId,
    });
    expect(answer.status).toBe(202);
  }

  const delivered = (reader: SseReader, eventId: string) =>
    until(`the delivery of ${eventId} on the stream`, () =>
      reader.events('delivery').find((d) => d.eventId === eventId && d.status === 'delivered'),
    );

  it('sends each dispatch and each change of a delivery as it happens, as the logs show them', async () => {
    const stream = await open(world.space);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await until('the stream’s first position', () => stream.lastId);
    await send('evt-live-1');
    const delivery = await delivered(stream, 'evt-live-1');
    const logged = (await world.admin('GET', `/v1/installations/${world.space}/deliveries?eventId=evt-live-1`)).body;
    expect(delivery).toEqual(logged[0]);
    expect(delivery.attempts).toHaveLength(1);
    // Fanned out to the subscription when accepted: no dispatch. A dispatch line the platform
    // writes (an event missed while paused) is sent as the log shows it.
    expect((await world.admin('POST', `/v1/installations/${world.space}/pause`)).status).toBe(200);
    await send('evt-live-paused');
    expect((await world.admin('POST', `/v1/installations/${world.space}/resume`)).status).toBe(200);
    const dispatch = await until('the dispatch on the stream', () =>
      stream.events('dispatch').find((d) => d.eventId === 'evt-live-paused'),
    );
    const dispatches = (await world.admin('GET', `/v1/installations/${world.space}/dispatches`)).body;
    expect(dispatch).toEqual(dispatches.find((d: { eventId: string }) => d.eventId === 'evt-live-paused'));
    expect(dispatch).toMatchObject({ id: expect.any(Number), skipped: 'paused', delivery: null });
    expect(stream.events('dispatch').filter((d) => d.eventId === 'evt-live-1')).toEqual([]);
    // Each event is sent once per change: one dispatch, and no delivery twice in the same state.
    expect(stream.events('dispatch').filter((d) => d.eventId === 'evt-live-paused')).toHaveLength(1);
    const versions = stream.events('delivery').map((d) => `${d.id}:${d.status}:${d.attempts.length}`);
    expect(new Set(versions).size).toBe(versions.length);
    // What happened before the stream opened is not sent.
    const later = await open(world.space, '?types=delivery');
    await send('evt-live-2');
    await delivered(later, 'evt-live-2');
    expect(later.events('delivery').map((d) => d.eventId)).not.toContain('evt-live-1');
    expect(later.events('dispatch')).toEqual([]);
  });

  it('resumes from Last-Event-ID, and starts from a time with since', async () => {
    const first = await open(world.space);
    await send('evt-resume-1');
    await delivered(first, 'evt-resume-1');
    const lastId = first.lastId as string;
    expect(lastId).toMatch(/^\d+\.\d+$/);
    first.close();
    await send('evt-resume-2');
    await until('evt-resume-2 delivered', async () => {
      const rows = (await world.admin('GET', `/v1/installations/${world.space}/deliveries?eventId=evt-resume-2`)).body;
      return rows[0]?.status === 'delivered' ? true : undefined;
    });
    const resumed = await open(world.space, '', { 'last-event-id': lastId });
    await delivered(resumed, 'evt-resume-2');
    const since = await open(world.space, `?since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`);
    await delivered(since, 'evt-live-1');
    await delivered(since, 'evt-resume-2');
  });

  it('refuses what it cannot serve, and those who may not see the installation', async () => {
    const call = (query: string, headers: Record<string, string> = {}, token?: string) =>
      fetch(`${world.platform.url}/v1/installations/${world.space}/stream${query}`, {
        headers: { authorization: `Bearer ${token ?? world.platform.adminToken}`, ...headers },
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { error: { code: string; message: string } },
      }));
    const types = await call('?types=dispatch,deliveries');
    expect(types.status).toBe(400);
    expect(types.body.error.message).toMatch(/`deliveries` is not a type of event; give dispatch, delivery or both/);
    expect((await call('?since=yesterday')).body.error).toEqual({
      code: 'invalid_time',
      message: expect.stringMatching(/query\.since must be an ISO 8601 time .* got "yesterday"/),
    });
    expect((await call('', { 'last-event-id': 'nope' })).body.error.code).toBe('invalid_cursor');
    const stranger = (await world.admin('POST', '/v1/users', { id: 'eve', name: 'Eve' })).body.token;
    expect((await call('', {}, stranger)).status).toBe(403);
    expect((await call('', {}, 'ptu_unknown')).status).toBe(401);
    const missing = await fetch(`${world.platform.url}/v1/installations/inst_none/stream`, {
      headers: { authorization: `Bearer ${world.platform.adminToken}` },
    });
    expect(missing.status).toBe(404);
  });

  it.runIf(backend.name === 'postgres')('shows what another node did', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-node-b-'));
    const other = await startPlatform({ ...world.config, port: 0, dataDir });
    try {
      // The other node does no work of its own: what its stream shows, this node did.
      await other.dispatcher.stop();
      await other.deliveries.stop();
      const response = await fetch(`${other.url}/v1/installations/${world.space}/stream`, {
        headers: { authorization: `Bearer ${world.platform.adminToken}` },
      });
      const stream = new SseReader(response);
      readers.push(stream);
      await until('the stream’s first position', () => stream.lastId);
      await send('evt-other-node');
      // The first node accepted and delivered it: its changes reach this node's stream.
      const delivery = await delivered(stream, 'evt-other-node');
      expect(delivery.attempts).toHaveLength(1);
    } finally {
      await other.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('ends open streams when the server stops, promptly', async () => {
    const { config, cleanup } = await backend.fresh();
    const node = await startPlatform(config);
    try {
      const admin = { authorization: `Bearer ${node.adminToken}`, 'content-type': 'application/json' };
      await fetch(`${node.url}/v1/orgs`, { method: 'POST', headers: admin, body: '{"id":"acme","title":"Acme"}' });
      const { id } = (await (
        await fetch(`${node.url}/v1/orgs/acme/installations`, {
          method: 'POST',
          headers: admin,
          body: '{"integration":"webhook"}',
        })
      ).json()) as { id: string };
      const stream = new SseReader(await fetch(`${node.url}/v1/installations/${id}/stream`, { headers: admin }));
      readers.push(stream);
      await until('the stream’s first position', () => stream.lastId);
      const started = Date.now();
      await node.close();
      expect(Date.now() - started).toBeLessThan(5000);
      await until('the stream’s end', () => (stream.ended ? true : undefined), 5000);
    } finally {
      await node.close();
      await cleanup();
    }
  });
});

describe('the live stream’s heartbeat', () => {
  it('sends a comment while quiet, and ends the stream once the caller may no longer see the installation', async () => {
    const { config, cleanup } = await (backends[0] as (typeof backends)[number]).fresh();
    const platform = await startPlatform(config);
    let allowed = true;
    const app = new OpenAPIHono();
    app.onError((error) => new Response(String(error), { status: 500 }));
    app.route(
      '/',
      streamRoutes(
        {
          ctx: platform.ctx,
          principal: async (): Promise<Principal> => {
            if (!allowed)
              throw unauthenticated('the session has ended (signed out, expired, or its token was revoked)');
            return { kind: 'admin' };
          },
        },
        { heartbeatMs: 300 },
      ),
    );
    try {
      const admin = { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' };
      await fetch(`${platform.url}/v1/orgs`, { method: 'POST', headers: admin, body: '{"id":"acme","title":"Acme"}' });
      const { id } = (await (
        await fetch(`${platform.url}/v1/orgs/acme/installations`, {
          method: 'POST',
          headers: admin,
          body: '{"integration":"webhook"}',
        })
      ).json()) as { id: string };
      // The stream's routes alone, asked in-process (no socket).
      const stream = new SseReader(await app.request(`/v1/installations/${id}/stream`));
      await until('a heartbeat', () => stream.messages.find((m) => m.comment === 'heartbeat'), 5000);
      expect(stream.messages.find((m) => m.comment === 'heartbeat')?.id).toMatch(/^\d+\.\d+$/);
      allowed = false;
      const refused = await until('the error event', () => stream.events('error')[0], 5000);
      expect(refused.error).toMatchObject({
        code: 'unauthorized',
        message: expect.stringMatching(/session has ended/),
      });
      await until('the stream’s end', () => (stream.ended ? true : undefined), 5000);
    } finally {
      await platform.close();
      await cleanup();
    }
  });
});
