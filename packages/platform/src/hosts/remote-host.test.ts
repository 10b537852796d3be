import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIntegration, type PlatformEvent } from '@portico/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostError } from './host.js';
import { InProcessHost } from './in-process-host.js';
import { RemoteHost } from './remote-host.js';

const integration = createIntegration({
  fetch: async (request) => {
    const text = await request.text();
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    console.log('echoing %s', text);
    console.warn('careful');
    return new Response(`echo ${request.method} ${text}`);
  },
});

let server: Server;
let base: string;
beforeAll(async () => {
  // An integration served elsewhere: its own HTTP server answering POST /v1 (spec 4.1).
  server = createServer(async (req, res) => {
    if (req.url === '/slow/v1') return; // never answers
    if (req.url === '/huge/v1') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < 20 && !res.destroyed; i++) res.write(chunk);
      return res.end();
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const response = await integration.fetch(
      new Request(`http://remote.test${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: req.method === 'POST' ? Buffer.concat(chunks) : null,
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function envelope() {
  const event = {
    type: 'fetch',
    eventId: 'e',
    request: { method: 'POST', url: 'https://p.test/public', headers: [] },
  } as PlatformEvent;
  return {
    method: 'POST' as const,
    envelope: { event, environment: { id: 'inst_1' } as never, body: new TextEncoder().encode('hi') },
  };
}

describe('the remote host', () => {
  const host = new RemoteHost(1000);

  it('POSTs the envelope to <endpoint>/v1 and answers the integration response', async () => {
    const answer = await host.dispatch({ name: 'r', version: 1, script: '', endpoint: base }, await envelope());
    expect(answer.status).toBe(200);
    expect(new TextDecoder().decode(answer.body)).toBe('echo POST hi');
    // Built with the SDK, it sent its console output back with its answer.
    expect(answer.logs).toEqual([
      { level: 'log', message: 'echoing hi' },
      { level: 'warn', message: 'careful' },
    ]);
    expect(answer.headers.some(([name]) => name === 'x-portico-framed')).toBe(false);
  });

  it('gives 200 concurrent dispatches exactly their own lines', async () => {
    const patient = new RemoteHost(30_000);
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const request = await envelope();
        request.envelope.body = new TextEncoder().encode(`n${i}`);
        return patient.dispatch({ name: 'r', version: 1, script: '', endpoint: base }, request);
      }),
    );
    answers.forEach((answer, i) => {
      expect(new TextDecoder().decode(answer.body)).toBe(`echo POST n${i}`);
      expect(answer.logs).toEqual([
        { level: 'log', message: `echoing n${i}` },
        { level: 'warn', message: 'careful' },
      ]);
    });
  });

  it('times out, refuses a response over the limit, and reports an unreachable endpoint', async () => {
    const slow = await host
      .dispatch({ name: 'r', version: 1, script: '', endpoint: `${base}/slow` }, await envelope())
      .catch((e: unknown) => e);
    expect(slow).toMatchObject({ failure: 'timeout', message: expect.stringMatching(/did not answer within 1 s/) });
    const huge = await host
      .dispatch({ name: 'r', version: 1, script: '', endpoint: `${base}/huge` }, await envelope())
      .catch((e: unknown) => e);
    expect(huge).toMatchObject({ failure: 'too_large' });
    const gone = await host
      .dispatch({ name: 'r', version: 1, script: '', endpoint: 'http://127.0.0.1:9' }, await envelope())
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(HostError);
    expect((gone as HostError).failure).toBe('unreachable');
  });
});

describe('the wire envelope', () => {
  it('reaches an integration that reads event and environment as text fields and the body as a file', async () => {
    // Written as other runtimes write it: no SDK, formData(), get() as a string, JSON.parse.
    const plain = {
      async fetch(request: Request): Promise<Response> {
        const form = await request.formData();
        const event = form.get('event');
        const environment = form.get('environment');
        if (typeof event !== 'string' || typeof environment !== 'string') {
          return new Response('event and environment must be text fields', { status: 500 });
        }
        const body = form.get('fetch-body');
        return Response.json({
          type: JSON.parse(event).type,
          installation: JSON.parse(environment).id,
          body: body instanceof Blob ? await body.text() : null,
        });
      },
    };
    const local = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const response = await plain.fetch(
        new Request(`http://remote.test${req.url}`, {
          method: 'POST',
          headers: req.headers as Record<string, string>,
          body: Buffer.concat(chunks),
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
    try {
      const endpoint = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
      const answer = await new RemoteHost(1000).dispatch(
        { name: 'plain', version: 1, script: '', endpoint },
        await envelope(),
      );
      expect(new TextDecoder().decode(answer.body)).toBe('{"type":"fetch","installation":"inst_1","body":"hi"}');
      expect(answer.status).toBe(200);
      // Not built with the SDK: its answer is not framed, and has no lines.
      expect(answer.logs).toEqual([]);
    } finally {
      await new Promise<void>((r) => local.close(() => r()));
    }
  });
});

describe('the in-process host', () => {
  it('runs a registered integration and refuses others', async () => {
    const host = new InProcessHost(new Map([['echo', integration]]));
    const answer = await host.dispatch({ name: 'echo', version: 1, script: '' }, await envelope());
    expect(new TextDecoder().decode(answer.body)).toBe('echo POST hi');
    await expect(host.dispatch({ name: 'other', version: 1, script: '' }, await envelope())).rejects.toMatchObject({
      failure: 'startup',
    });
    await host.close();
  });
});
