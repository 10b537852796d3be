/** The egress guard of deliveries: every refused address kind, and loopback when the setting allows it. */
import { lookup } from 'node:dns/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerError, type PostResult, postWebhook, RESPONSE_EXCERPT_BYTES } from './post-webhook.js';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const off = { timeoutMs: 2000, allowPrivateNetwork: false };
const on = { timeoutMs: 2000, allowPrivateNetwork: true };

describe('the egress guard of deliveries', () => {
  const literals = [
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback, another address', 'https://127.8.9.10/hook'],
    ['private 10/8', 'https://10.1.2.3/hook'],
    ['private 172.16/12', 'https://172.20.0.1/hook'],
    ['private 192.168/16', 'https://192.168.1.1/hook'],
    ['link-local and cloud metadata', 'https://169.254.169.254/latest/meta-data/'],
    ['carrier-grade NAT', 'https://100.64.0.1/hook'],
    ['the unspecified address', 'https://0.0.0.0/hook'],
    ['multicast', 'https://224.0.0.1/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv6 unique-local', 'https://[fd12:3456::1]/hook'],
    ['IPv6 link-local', 'https://[fe80::1]/hook'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['IPv4-mapped IPv6 metadata', 'https://[::ffff:a9fe:a9fe]/hook'],
    ['localhost by name', 'https://localhost/hook'],
  ] as const;
  for (const [label, url] of literals) {
    it(`refuses ${label} (${url})`, async () => {
      const result = await postWebhook(url, {}, '{}', off);
      expect(result.kind).toBe('refused');
      expect(result.kind === 'refused' && result.reason).toMatch(/loopback|private|link-local|reserved/);
    });
  }

  it('refuses a DNS name that resolves to loopback, at the lookup that the connection uses', async () => {
    const names = [hostname(), 'runsc'];
    let name: string | undefined;
    for (const candidate of names) {
      const found = await lookup(candidate).catch(() => undefined);
      if (found?.address.startsWith('127.')) name = candidate;
    }
    if (name === undefined) throw new Error(`no name on this machine resolves to loopback (tried ${names.join(', ')})`);
    const result = await postWebhook(`https://${name}:${port}/hook`, {}, '{}', off);
    expect(result).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(new RegExp(`${name} resolves to 127\\.`)),
    });
  });

  it('requires https unless private networks are allowed', async () => {
    expect(await postWebhook('http://example.com/hook', {}, '{}', off)).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(/must use https/),
    });
    expect(await postWebhook('ftp://example.com/hook', {}, '{}', off)).toMatchObject({ kind: 'refused' });
  });

  it('delivers to 127.0.0.1 over http when the setting allows it', async () => {
    expect(await postWebhook(`http://127.0.0.1:${port}/hook`, {}, '{}', on)).toMatchObject({
      kind: 'answered',
      status: 200,
      excerpt: 'ok',
    });
  });
});

/**
 * Runs `use` with the URL of a receiver that keeps an idle connection 2 s (and says so:
 * `Keep-Alive: timeout=2`) and answers with `handle`; closes it after.
 */
function withReceiver(handle: RequestListener, use: (post: () => Promise<PostResult>) => Promise<void>) {
  return withServer(handle, (url) => use(() => postWebhook(url, { 'content-type': 'application/json' }, '{}', on)), {
    keepAliveTimeout: 2000,
  });
}

/** Runs `use` with the URL of a receiver that handles each request with `handle`; closes it after. */
async function withServer(
  handle: RequestListener,
  use: (url: string) => Promise<void>,
  settings: { keepAliveTimeout?: number } = {},
) {
  const receiver = createServer(handle);
  if (settings.keepAliveTimeout !== undefined) receiver.keepAliveTimeout = settings.keepAliveTimeout;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    await use(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?x=1`);
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

describe('connections kept alive between attempts', () => {
  it('are closed before the receiver closes them, as its Keep-Alive hint says', async () => {
    // The engine must give an idle connection up a second before the receiver's 2 s, so an
    // attempt never lands on a connection being closed.
    const ports: number[] = [];
    const handle: RequestListener = (req, res) => {
      ports.push(req.socket.remotePort as number);
      res.end('ok');
    };
    await withReceiver(handle, async (post) => {
      expect(await post()).toMatchObject({ kind: 'answered', status: 200 });
      // (undici gives a connection back to its pool on the next tick after the answer.)
      await new Promise((r) => setImmediate(r));
      expect(await post()).toMatchObject({ kind: 'answered', status: 200 });
      // Right after an answer the connection is reused…
      expect(ports[1]).toBe(ports[0]);
      await new Promise((r) => setTimeout(r, 1400));
      // …but not once it has been idle past the hint less a second (the receiver still holds it).
      expect(await post()).toMatchObject({ kind: 'answered', status: 200 });
      expect(ports[2]).not.toBe(ports[1]);
    });
  });

  it('wait for a slow answer on a reused connection: the idle limit is not the attempt’s deadline', async () => {
    let requests = 0;
    const handle: RequestListener = (_req, res) => {
      requests++;
      // The second answer takes longer than the idle limit the receiver's hint gave the connection.
      setTimeout(() => res.end('ok'), requests === 1 ? 0 : 1600);
    };
    await withReceiver(handle, async (post) => {
      expect(await post()).toMatchObject({ kind: 'answered', status: 200 });
      expect(await post()).toMatchObject({ kind: 'answered', status: 200 });
    });
  });
});

describe('a redirect', () => {
  it('is not followed, and the answer keeps where Location pointed, resolved against the URL posted to', async () => {
    const redirecting = createServer((req, res) => {
      res.writeHead(req.url === '/relative' ? 302 : 301, {
        location: req.url === '/relative' ? '/moved/here?x=1' : 'https://hooks.example.com/new',
      });
      res.end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
    try {
      const relative = await postWebhook(`${base}/relative`, {}, '{}', on);
      expect(relative).toMatchObject({ kind: 'answered', status: 302, location: `${base}/moved/here?x=1` });
      const absolute = await postWebhook(`${base}/absolute`, {}, '{}', on);
      expect(absolute).toMatchObject({ kind: 'answered', status: 301, location: 'https://hooks.example.com/new' });
      expect(answerError(absolute as { status: number; location?: string })).toBe(
        "301: redirects are not followed; Location pointed to https://hooks.example.com/new (set the endpoint's URL to it if that is where deliveries belong)",
      );
      expect(answerError({ status: 500 })).toBe('the receiver answered 500');
      expect(answerError({ status: 307 })).toMatch(/had no Location/);
    } finally {
      await new Promise<void>((r) => redirecting.close(() => r()));
    }
  });
});

describe('traceparent', () => {
  it('is sent to the receiver when given, and only then', async () => {
    const seen: (string | undefined)[] = [];
    const receiver = createServer((req, res) => {
      seen.push(req.headers.traceparent as string | undefined);
      res.end('ok');
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    try {
      await postWebhook(url, {}, '{}', { ...on, traceparent });
      await postWebhook(url, {}, '{}', on);
      expect(seen).toEqual([traceparent, undefined]);
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });
});

describe('an attempt', () => {
  it('posts the exact body with its headers, to the path and query of the URL', async () => {
    const seen: { method?: string; url?: string; headers?: Record<string, unknown>; body?: string }[] = [];
    const body = JSON.stringify({ text: 'héllo ✓', n: 1 });
    await withServer(
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() });
          res.end();
        });
      },
      async (url) => {
        expect(
          await postWebhook(url, { 'x-custom': 'a b', 'content-type': 'application/json' }, body, on),
        ).toMatchObject({
          kind: 'answered',
          status: 200,
        });
      },
    );
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/hook?x=1',
        headers: expect.objectContaining({
          'x-custom': 'a b',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        }),
        body,
      },
    ]);
  });

  it('keeps the first 16 KiB of a long answer, and closes the connection of one past 1 MiB', async () => {
    await withServer(
      (_req, res) => res.end('a'.repeat(40 * 1024)),
      async (url) => {
        const result = await postWebhook(url, {}, '{}', on);
        expect(result).toMatchObject({ kind: 'answered', status: 200 });
        expect(result.kind === 'answered' && result.excerpt).toBe('a'.repeat(RESPONSE_EXCERPT_BYTES));
      },
    );
    let closed = false;
    await withServer(
      (req, res) => {
        req.socket.on('close', () => {
          closed = true;
        });
        res.writeHead(500);
        // An answer that does not end: 64 KiB chunks, until the connection goes.
        const more = () => {
          if (!res.destroyed) res.write(Buffer.alloc(64 * 1024, 98), () => setImmediate(more));
        };
        more();
      },
      async (url) => {
        const result = await postWebhook(url, {}, '{}', { ...on, timeoutMs: 5000 });
        expect(result).toMatchObject({ kind: 'answered', status: 500 });
        expect(result.kind === 'answered' && result.excerpt.length).toBe(RESPONSE_EXCERPT_BYTES);
        for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
        expect(closed).toBe(true);
      },
    );
  });

  it('says when the receiver closed the connection without answering', async () => {
    await withServer(
      (req) => req.socket.destroy(),
      async (url) => {
        const result = await postWebhook(url, {}, '{}', on);
        expect(result.kind).toBe('network');
        expect(result.kind === 'network' && result.error.message).toMatch(
          /^the receiver closed the connection before it answered/,
        );
      },
    );
  });

  it('gives up at its deadline, whatever the receiver does', async () => {
    await withServer(
      () => {},
      async (url) => {
        const result = await postWebhook(url, {}, '{}', { ...on, timeoutMs: 300 });
        expect(result).toMatchObject({
          kind: 'network',
          error: { name: 'TimeoutError', message: 'no answer within 0.3 s' },
        });
        expect(result.durationMs).toBeGreaterThanOrEqual(290);
      },
    );
  });
});
