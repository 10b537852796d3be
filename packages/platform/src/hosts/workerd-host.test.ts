import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchRequest } from '../test-support/host-request.js';
import { createEgress, type EgressRecord } from './egress.js';
import { HostError, type IntegrationBundle } from './host.js';
import { FAILED_HEADER } from './worker-fetch.js';
import { WorkerdHost } from './workerd-host.js';

const root = new URL('../../../../', import.meta.url).pathname;

async function bundle(name: string, source: string): Promise<IntegrationBundle> {
  const result = await build({
    stdin: { contents: source, resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['source'],
    mainFields: ['module', 'main'],
    external: ['node:*'],
    write: false,
    logLevel: 'silent',
  });
  return { name, version: 1, script: result.outputFiles[0]?.text ?? '' };
}

const text = (body: Uint8Array) => new TextDecoder().decode(body);

const HOSTILE = `
import { createIntegration } from '@portico/runtime';
export default createIntegration({
  async fetch(request) {
    const path = new URL(request.url).pathname.replace('/public', '');
    switch (path) {
      case '/ok': console.log('handled /ok'); return new Response('ok');
      case '/loop': for (;;) {}
      case '/memory': { const keep = []; for (;;) keep.push(new Array(1_000_000).fill(Math.random())); }
      case '/env': return new Response(String(process.env.PORTICO_SECRET_KEY));
      case '/metadata': return new Response(String((await fetch('http://169.254.169.254/latest/meta-data/')).status));
      case '/loopback': { const r = await fetch('http://127.0.0.1:8787/v1/orgs'); return new Response(r.status + ' ' + (await r.text())); }
      case '/huge': return new Response(new Uint8Array(100 * 1024 * 1024));
      case '/never': return new Promise(() => {});
      default: return new Response('unknown', { status: 404 });
    }
  },
});`;

describe('the workerd host contains hostile integrations', () => {
  const egress: EgressRecord[] = [];
  let host: WorkerdHost;
  let hostile: IntegrationBundle;
  let friendly: IntegrationBundle;

  beforeAll(async () => {
    host = new WorkerdHost({
      egress: createEgress({ allowPrivateNetwork: false, record: (entry) => void egress.push(entry) }),
      timeoutMs: 2000,
      memoryLimitBytes: 300 * 1024 * 1024,
    });
    hostile = await bundle('hostile', HOSTILE);
    friendly = await bundle(
      'friendly',
      `import { createIntegration } from '@portico/runtime'; export default createIntegration({ fetch: () => new Response('still here') });`,
    );
  }, 60_000);
  afterAll(() => host?.close());

  const expectContained = async (path: string, failure: HostError['failure'], message: RegExp) => {
    const error = await host.dispatch(hostile, fetchRequest(path)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    expect((error as HostError).failure).toBe(failure);
    expect((error as HostError).message).toMatch(message);
    // The same integration answers its next dispatch, and others answer too.
    expect(text((await host.dispatch(hostile, fetchRequest('/ok'))).body)).toBe('ok');
    expect(text((await host.dispatch(friendly, fetchRequest('/'))).body)).toBe('still here');
  };

  it('runs a well-behaved request and keeps its logs', async () => {
    const answer = await host.dispatch(hostile, fetchRequest('/ok'));
    expect(answer.status).toBe(200);
    expect(text(answer.body)).toBe('ok');
    expect(answer.logs).toEqual([{ level: 'log', message: 'handled /ok' }]);
  });

  it('stops an infinite loop at the wall-clock limit, while other integrations keep answering', async () => {
    const looping = host.dispatch(hostile, fetchRequest('/loop')).catch((e: unknown) => e);
    const started = performance.now();
    expect(text((await host.dispatch(friendly, fetchRequest('/'))).body)).toBe('still here');
    expect(performance.now() - started).toBeLessThan(1500);
    const error = (await looping) as HostError;
    expect(error.failure).toBe('timeout');
    expect(error.message).toMatch(/hostile \(version 1\) did not answer within 2 s; it was stopped/);
    expect(text((await host.dispatch(hostile, fetchRequest('/ok'))).body)).toBe('ok');
  }, 30_000);

  it('stops a memory bomb at the memory ceiling', async () => {
    await expectContained('/memory', 'memory', /used more than 300 MiB and was stopped/);
  }, 30_000);

  it("gives integration code no view of the platform's environment", async () => {
    process.env.PORTICO_SECRET_KEY = 'the platform secret';
    try {
      // nodejs_compat gives workers a `process` of their own, whose env holds nothing of the host's.
      const answer = await host.dispatch(hostile, fetchRequest('/env'));
      expect(answer.status).toBe(200);
      expect(text(answer.body)).toBe('undefined');
    } finally {
      delete process.env.PORTICO_SECRET_KEY;
    }
  });

  it('refuses egress to the metadata address and to loopback, and records it for the installation', async () => {
    egress.length = 0;
    expect(text((await host.dispatch(hostile, fetchRequest('/metadata', 'inst_meta'))).body)).toBe('403');
    const loopback = text((await host.dispatch(hostile, fetchRequest('/loopback', 'inst_loop'))).body);
    expect(loopback).toMatch(/^403 .*egress refused: 127\.0\.0\.1 is a loopback, private or link-local address/);
    expect(egress).toEqual([
      expect.objectContaining({
        installationId: 'inst_meta',
        integration: 'hostile',
        url: 'http://169.254.169.254/latest/meta-data/',
        refused: expect.stringMatching(/169\.254\.169\.254/),
      }),
      expect.objectContaining({
        installationId: 'inst_loop',
        url: 'http://127.0.0.1:8787/v1/orgs',
        refused: expect.any(String),
      }),
    ]);
  });

  it('refuses a 100 MB response', async () => {
    await expectContained('/huge', 'too_large', /the limit is 10485760/);
  }, 30_000);

  it('contains a promise that never resolves', async () => {
    const answer = await host.dispatch(hostile, fetchRequest('/never')).catch((e: unknown) => e);
    // workerd notices a handler that can never answer; otherwise the wall-clock limit stops it.
    if (answer instanceof HostError) expect(answer.failure).toBe('timeout');
    else expect((answer as { status: number }).status).toBeGreaterThanOrEqual(500);
    expect(text((await host.dispatch(hostile, fetchRequest('/ok'))).body)).toBe('ok');
  }, 30_000);

  it('reports a script that throws at import as a startup failure, every time, and stays up', async () => {
    const broken = await bundle('broken', `throw new Error('cannot start: missing configuration'); export default {};`);
    for (let i = 0; i < 2; i++) {
      const error = await host.dispatch(broken, fetchRequest('/')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HostError);
      expect((error as HostError).failure).toBe('startup');
      expect((error as HostError).message).toMatch(/the worker of broken \(version 1\) did not start/);
    }
    expect(text((await host.dispatch(friendly, fetchRequest('/'))).body)).toBe('still here');
  }, 30_000);
});

describe("the workerd host's capture of console output", () => {
  let host: WorkerdHost;
  const outside: string[] = [];
  beforeAll(() => {
    host = new WorkerdHost({
      egress: createEgress({ allowPrivateNetwork: false, record: () => {} }),
      onOutput: (line) => void outside.push(line),
    });
  });
  afterAll(() => host?.close());

  it('keeps each line with its level, formatted, and says what was dropped past the bound', async () => {
    const printer = await bundle(
      'printer',
      `import { createIntegration } from '@portico/runtime';
       console.log('at import');
       export default createIntegration({
         async fetch(request) {
           const path = new URL(request.url).pathname.replace('/public', '');
           if (path === '/many') { for (let i = 0; i < 250; i++) console.log('line %d', i); return new Response(null, { status: 204 }); }
           console.log('plain', { a: 1 }, 2);
           console.info('info %s', 'x');
           console.warn('careful');
           await new Promise((resolve) => setTimeout(resolve, 5));
           console.error(new Error('broken'));
           return new Response('done', { status: 201, headers: { 'x-kept': 'yes' } });
         },
       });`,
    );
    const answer = await host.dispatch(printer, fetchRequest('/levels'));
    expect(answer.status).toBe(201);
    expect(text(answer.body)).toBe('done');
    expect(answer.headers).toContainEqual(['x-kept', 'yes']);
    expect(answer.headers.some(([name]) => name === 'x-portico-framed')).toBe(false);
    expect(answer.logs.slice(0, 3)).toEqual([
      { level: 'log', message: 'plain {"a":1} 2' },
      { level: 'info', message: 'info x' },
      { level: 'warn', message: 'careful' },
    ]);
    expect(answer.logs[3]).toMatchObject({ level: 'error', message: expect.stringMatching(/^Error: broken\n\s+at /) });
    expect(answer.logs).toHaveLength(4);

    const many = await host.dispatch(printer, fetchRequest('/many'));
    expect(many.status).toBe(204);
    expect(many.body).toHaveLength(0);
    expect(many.logs).toHaveLength(201);
    expect(many.logs[199]).toEqual({ level: 'log', message: 'line 199' });
    expect(many.logs[200]).toEqual({
      level: 'warn',
      message: '… 50 more lines dropped (a dispatch keeps its first 200 lines and 64 KiB of output)',
    });
    // Output outside any dispatch goes to the host's output, not to a dispatch.
    expect(outside).toContain('at import');
  }, 60_000);

  it('captures a GitBook-dialect bundle built with its own runtime, and an uncaught error as an error line', async () => {
    const own = await bundle(
      'own-runtime',
      `export default {
         async fetch(request, env, ctx) {
           if (request.method === 'POST') { console.log('before'); throw new TypeError('no such thing'); }
           console.log('own runtime', request.method);
           ctx.waitUntil(new Promise((resolve) => setTimeout(() => resolve(console.log('after the answer')), 20)));
           const headers = new Headers();
           headers.append('set-cookie', 'a=1; Path=/');
           headers.append('set-cookie', 'b=2; Path=/');
           return new Response('fine', { headers });
         },
       };`,
    );
    const answer = await host.dispatch(own, { method: 'GET' });
    expect(text(answer.body)).toBe('fine');
    expect(answer.logs).toEqual([{ level: 'log', message: 'own runtime GET' }]);
    // Its headers come through the frame as they were, each cookie apart.
    expect(answer.headers.filter(([name]) => name === 'set-cookie')).toEqual([
      ['set-cookie', 'a=1; Path=/'],
      ['set-cookie', 'b=2; Path=/'],
    ]);
    const thrown = await host.dispatch(own, fetchRequest('/throw'));
    expect(thrown.status).toBe(500);
    expect(JSON.parse(text(thrown.body)).error.code).toBe('integration_error');
    expect(thrown.logs).toEqual([
      { level: 'log', message: 'before' },
      { level: 'error', message: expect.stringMatching(/^Uncaught TypeError: no such thing\n\s+at /) },
    ]);
    // What it prints after its answer is outside any dispatch: the host's output has it.
    for (let i = 0; i < 50 && !outside.includes('after the answer'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(outside).toContain('after the answer');
  }, 60_000);
});

describe('outbound requests and answers of a worker, as in Workers', () => {
  let host: WorkerdHost;
  let server: Server;
  let serverUrl: string;
  const seen: Record<string, string | string[] | undefined>[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(request.headers);
      response.end('echo');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    host = new WorkerdHost({ egress: createEgress({ allowPrivateNetwork: true, record: () => {} }) });
  });
  afterAll(async () => {
    await host?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const worker = () =>
    bundle(
      'outbound',
      `import { createHash } from 'node:crypto';
       export default {
         async fetch(request) {
           const url = new URL(JSON.parse((await request.formData()).get('event')).request.url);
           const target = url.searchParams.get('to');
           const path = url.pathname;
           if (path.endsWith('/hash')) return new Response(createHash('sha256').update('abc').digest('hex'));
           if (path.endsWith('/gzip')) {
             // Workers compress a body answered with a content-encoding themselves.
             return new Response('squeezed', { headers: { 'content-encoding': 'gzip', 'content-type': 'text/plain' } });
           }
           try {
             const answer = await fetch(target);
             return Response.json({ resolved: answer.status, body: await answer.text() });
           } catch (error) {
             return Response.json({ rejected: error.constructor.name, message: error.message });
           }
         },
       };`,
    );

  it('rejects a failed fetch with a TypeError that says why, instead of resolving with a 500', async () => {
    const outbound = await worker();
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const answer = await host.dispatch(outbound, fetchRequest(`/fetch?to=http://127.0.0.1:${closed}/`));
    expect(JSON.parse(text(answer.body))).toEqual({
      rejected: 'TypeError',
      message: expect.stringMatching(new RegExp(`^fetch GET http://127\\.0\\.0\\.1:${closed}/ failed: .*ECONNREFUSED`)),
    });
    // A server that marks its answer as the host's failure does not make the fetch reject.
    const faker = createServer((_, response) =>
      response.writeHead(200, { [FAILED_HEADER]: '1' }).end('{"message":"fake"}'),
    );
    await new Promise<void>((resolve) => faker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (faker.address() as AddressInfo).port;
      const real = await host.dispatch(outbound, fetchRequest(`/fetch?to=http://127.0.0.1:${port}/`));
      expect(JSON.parse(text(real.body))).toEqual({ resolved: 200, body: '{"message":"fake"}' });
    } finally {
      await new Promise((resolve) => faker.close(resolve));
    }
  }, 30_000);

  it('sends no cf-worker header, answers without mf-content-encoding, and offers node:crypto', async () => {
    const outbound = await worker();
    seen.length = 0;
    const answer = await host.dispatch(outbound, fetchRequest(`/fetch?to=${serverUrl}/`));
    expect(JSON.parse(text(answer.body))).toEqual({ resolved: 200, body: 'echo' });
    expect(seen).toHaveLength(1);
    expect(Object.keys(seen[0] ?? {})).not.toContain('cf-worker');

    const gzip = await host.dispatch(outbound, fetchRequest('/gzip'));
    // The body comes decoded (the platform's server encodes its answers as it will), so without the encoding's name.
    expect(text(gzip.body)).toBe('squeezed');
    expect(gzip.headers.map(([name]) => name)).not.toContain('mf-content-encoding');
    expect(gzip.headers.map(([name]) => name)).not.toContain('content-encoding');

    const hash = await host.dispatch(outbound, fetchRequest('/hash'));
    expect(text(hash.body)).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  }, 30_000);
});
