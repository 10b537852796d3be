/** The egress of sandboxed integration code: what it refuses, what it records, what it forwards. */
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress, type EgressRecord } from './egress.js';

let server: Server;
let origin: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      res.writeHead(req.url === '/moved' ? 302 : 200, {
        'content-type': 'text/plain',
        location: '/elsewhere',
        'x-seen-method': req.method ?? '',
      });
      res.end(`echo:${body}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const who = { integration: 'demo', installationId: 'inst_1' };

describe('egress', () => {
  it('refuses internal literals and names that resolve to them, and records each refusal', async () => {
    const records: EgressRecord[] = [];
    const egress = createEgress({ allowPrivateNetwork: false, record: (r) => void records.push(r) });
    const loopbackName = (await lookup(hostname()).catch(() => undefined))?.address.startsWith('127.')
      ? hostname()
      : 'localhost';
    const { port } = new URL(origin);
    for (const url of [
      `${origin}/x`,
      'http://[::ffff:127.0.0.1]/x',
      'http://169.254.169.254/latest/',
      `http://${loopbackName}:${port}/x`,
    ]) {
      const response = await egress(new Request(url), who);
      expect({ url, status: response.status }).toEqual({ url, status: 403 });
      expect(response.headers.get('x-portico-egress')).toBe('refused');
      expect((await response.json()).error).toMatch(/^egress refused: .*a loopback, private/);
    }
    expect(records.map((r) => [r.installationId, r.refused !== null])).toEqual(Array(4).fill(['inst_1', true]));
  });

  it('forwards method and body when allowed, without following redirects, and records the status', async () => {
    const records: EgressRecord[] = [];
    const egress = createEgress({ allowPrivateNetwork: true, record: (r) => void records.push(r) });
    const posted = await egress(new Request(`${origin}/x`, { method: 'PUT', body: 'hello' }), who);
    expect(posted.status).toBe(200);
    expect(posted.headers.get('x-seen-method')).toBe('PUT');
    expect(await posted.text()).toBe('echo:hello');
    const moved = await egress(new Request(`${origin}/moved`), who);
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe('/elsewhere');
    expect(records.map((r) => r.status)).toEqual([200, 302]);
  });

  it('lets integrations reach the platform API itself', async () => {
    const egress = createEgress({ allowPrivateNetwork: false, trustedOrigins: () => [origin], record: () => {} });
    expect((await egress(new Request(`${origin}/v1/x`), who)).status).toBe(200);
  });
});
