/**
 * Idle keep-alive connections outlive a load balancer's (60 s is common): the server says so in
 * `Keep-Alive: timeout=65`, and a connection left idle past Node's 5 s default still takes the
 * next request. SQLite only: the database plays no part.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, type RunningPlatform, startPlatform } from '../server.js';
import { backends } from '../test-support/backends.js';

/** Sends one GET on `socket` and answers the raw response head once its body (JSON) arrived. */
function get(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /content-length: (\d+)/i.exec(text);
      const end = text.indexOf('\r\n\r\n');
      if (match && end >= 0 && text.length - end - 4 >= Number(match[1])) {
        socket.off('data', onData);
        socket.off('close', onClose);
        resolve(text);
      }
    };
    const onClose = () => reject(new Error(`the server closed the connection before answering ${path}`));
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('keep-alive', () => {
  const sqlite = backends.find((b) => b.name === 'sqlite') as (typeof backends)[number];
  let platform: RunningPlatform;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await sqlite.fresh();
    cleanup = fresh.cleanup;
    platform = await startPlatform(fresh.config);
  });
  afterAll(async () => {
    await platform?.close();
    await cleanup?.();
  });

  it('keeps an idle connection longer than load balancers do, with headersTimeout longer still', async () => {
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    expect(HEADERS_TIMEOUT_MS).toBeGreaterThan(KEEP_ALIVE_TIMEOUT_MS);
    const { port } = new URL(platform.url);
    const socket = connect(Number(port), '127.0.0.1');
    try {
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const first = await get(socket, '/healthz');
      expect(first).toMatch(/^HTTP\/1\.1 200/);
      expect(first).toMatch(/keep-alive: timeout=65/i);
      // Idle past Node's default of 5 s.
      await new Promise((resolve) => setTimeout(resolve, 6000));
      expect(socket.destroyed).toBe(false);
      expect(await get(socket, '/healthz')).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  }, 30_000);
});
