/**
 * A GitBook-dialect integration built as that platform builds it and run as a worker runs it, end
 * to end on SQLite and PostgreSQL: test-support/gitbook/gb-deps, copied with two dependencies
 * written here (each with a Node entry that cannot build for a worker, and a browser or worker
 * entry that can), built with the real CLI (`portico publish`) and asked at its integration-wide
 * public endpoint. Its dependencies' worker and browser entries are bundled and `node:crypto` is
 * left to the runtime; a fetch that fails rejects inside the worker with the reason (not a 500
 * with a Node stack); its outbound requests carry no `cf-worker` header; its compressed answer
 * reaches the client without miniflare's `mf-content-encoding`.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../../platform/src/test-support/backends.js';
import { closedPort, gitbookFixture, portico, serverWorld } from '../test-support/server-world.js';

/** Packages as npm installs them: a Node entry that imports Node's modules, and one for workers or browsers. */
const DEPENDENCIES: Record<string, string> = {
  'node_modules/dual-entry/package.json': JSON.stringify({
    name: 'dual-entry',
    version: '1.0.0',
    main: './node.js',
    module: './node.js',
    browser: './browser.js',
  }),
  'node_modules/dual-entry/node.js':
    "import { readFileSync } from 'fs';\nexport const entry = 'node ' + typeof readFileSync;\n",
  'node_modules/dual-entry/browser.js': "export const entry = 'browser';\n",
  'node_modules/cond-entry/package.json': JSON.stringify({
    name: 'cond-entry',
    version: '1.0.0',
    type: 'module',
    exports: { '.': { worker: './worker.js', node: './node.js', default: './node.js' } },
  }),
  'node_modules/cond-entry/node.js':
    "import { Buffer } from 'buffer';\nexport const entry = 'node ' + typeof Buffer;\n",
  'node_modules/cond-entry/worker.js': "export const entry = 'worker';\n",
};

describe.each(backends)('a GitBook-dialect integration built and run as on that platform, on $name', (backend) => {
  const world = serverWorld({ backend });
  let dir: string;
  let echo: Server;
  let echoUrl: string;
  const heard: IncomingHttpHeaders[] = [];
  const endpoint = () => `${world.url}/v1/integrations/gb-deps/public`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-gb-deps-'));
    await cp(gitbookFixture('gb-deps'), dir, { recursive: true });
    for (const [path, contents] of Object.entries(DEPENDENCIES)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), contents);
    }
    echo = createServer((request, response) => {
      heard.push(request.headers);
      response.end('heard');
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/hook`;
    const published = await portico(['publish', dir, '--api', world.url, '--token', world.adaToken]);
    expect(published.stderr).toBe('');
    expect(published.stdout).toMatch(/^Published gb-deps version 1 /);
  }, 90_000);
  afterAll(async () => {
    await new Promise((resolve) => echo?.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("bundles its dependencies' worker and browser entries and leaves node:crypto to the runtime", async () => {
    const response = await fetch(`${endpoint()}/entries`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({
      dual: 'browser',
      cond: 'worker',
      hash: createHash('sha256').update('gb-deps').digest('hex'),
    });
  }, 30_000);

  it('sees a failed fetch reject with its reason, and reaches a server without a cf-worker header', async () => {
    const port = await closedPort();
    const failed = await fetch(`${endpoint()}/fetch?to=${encodeURIComponent(`http://127.0.0.1:${port}/`)}`);
    expect(failed.status).toBe(200);
    const body = await failed.json();
    expect(body).toEqual({ rejected: 'TypeError', message: expect.stringContaining('ECONNREFUSED') });
    expect(body.message).not.toMatch(/\n\s+at /);

    heard.length = 0;
    const reached = await fetch(`${endpoint()}/fetch?to=${encodeURIComponent(echoUrl)}`);
    expect(await reached.json()).toEqual({ resolved: 200, body: 'heard' });
    expect(heard).toHaveLength(1);
    expect(Object.keys(heard[0] ?? {})).not.toContain('cf-worker');
  }, 30_000);

  it('answers a compressed response without mf-content-encoding', async () => {
    const response = await fetch(`${endpoint()}/gzip`);
    expect(response.status).toBe(200);
    expect(response.headers.get('mf-content-encoding')).toBeNull();
    expect(await response.text()).toBe('compressed by the runtime');
  }, 30_000);
});
