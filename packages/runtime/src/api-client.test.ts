import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformApi, PlatformApiError } from './api-client.js';

let server: Server;
let base: string;
const seen: { method: string; url: string; authorization: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization ?? '', body });
    if (req.url === '/v1/installations/inst%2F1/configuration') {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'forbidden', message: 'the token cannot change this installation' } }));
    } else if (req.url === '/v1/installations/broken') {
      res.writeHead(502).end('<html>bad gateway</html>');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'active', configuration: JSON.parse(body || '{}'), errors: [] }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the platform API client', () => {
  it('sends the installation token and JSON to the installation routes', async () => {
    const api = createPlatformApi({ apiEndpoint: base, apiTokens: { installation: 'tok_1' }, id: 'inst_1' });
    expect(await api.updateConfiguration({ a: 1 })).toEqual({ status: 'active', configuration: { a: 1 }, errors: [] });
    expect(seen.at(-1)).toEqual({
      method: 'PATCH',
      url: '/v1/installations/inst_1/configuration',
      authorization: 'Bearer tok_1',
      body: '{"a":1}',
    });
  });

  it('throws PlatformApiError with the platform code and message', async () => {
    const api = createPlatformApi({ apiEndpoint: base, apiTokens: { installation: 't' }, id: 'inst/1' });
    const error = await api.updateConfiguration({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformApiError);
    expect(error).toMatchObject({
      status: 403,
      code: 'forbidden',
      message:
        'the platform API answered 403 to PATCH /v1/installations/inst%2F1/configuration: the token cannot change this installation',
    });
  });

  it('reports a non-JSON failure with the start of its body', async () => {
    const api = createPlatformApi({ apiEndpoint: base, apiTokens: { installation: 't' }, id: 'broken' });
    await expect(api.getInstallation()).rejects.toMatchObject({
      status: 502,
      code: 'api_error',
      message: expect.stringMatching(/502 .*bad gateway/),
    });
  });
});
