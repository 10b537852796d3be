/**
 * The dashboard's files at `/` on the real server (they do not touch the database, so SQLite
 * alone): its files, index.html for the web app's own paths, cache headers, the
 * Content-Security-Policy, and a 503 that says how to build it while it is not built.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, parseFrameAncestors } from '../../config.js';
import { type RunningPlatform, startPlatform } from '../../server.js';
import { backends } from '../../test-support/backends.js';
import { contentSecurityPolicy, findDashboardDist } from './dashboard-files.js';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-AbCd1234.js"></script></head></html>';

async function started(dashboardDir: string) {
  const { config, cleanup } = await (backends[0] as (typeof backends)[number]).fresh();
  const platform = await startPlatform(config, { dashboardDir });
  return {
    platform,
    async close() {
      await platform.close();
      await cleanup();
    },
  };
}

describe('the dashboard at /', () => {
  let dist: string;
  let platform: RunningPlatform;
  let close: () => Promise<void>;
  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'portico-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), INDEX);
    await writeFile(join(dist, 'assets', 'index-AbCd1234.js'), 'console.log("app")');
    await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    ({ platform, close } = await started(dist));
  }, 30_000);
  afterAll(async () => {
    await close?.();
    await rm(dist, { recursive: true, force: true });
  });

  const get = (path: string, init?: RequestInit) => fetch(`${platform.url}${path}`, init);

  it('serves index.html at / and at every path of the web app, with a strict policy, revalidated', async () => {
    for (const path of ['/', '/integrations', '/installations/inst_1', '/spaces/docs?x=1']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(await response.text()).toBe(INDEX);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).toMatch(/object-src 'none'/);
      expect(csp).not.toMatch(/unsafe-eval/);
    }
  });

  it('serves hashed build outputs for a year, other files revalidated, and answers 304 to a known ETag', async () => {
    const script = await get('/assets/index-AbCd1234.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await script.text()).toBe('console.log("app")');
    const icon = await get('/favicon.svg');
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('no-cache');
    const again = await get('/favicon.svg', { headers: { 'if-none-match': icon.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
    const head = await get('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(INDEX.length));
  });

  it('answers 404 for a file the build does not have, and never serves what is outside it', async () => {
    const missing = await get('/assets/index-Gone5678.js');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toMatch(/no file \/assets\/index-Gone5678\.js; reload/);
    for (const path of ['/..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/etc/hostname', '/assets/..%2f..%2fpackage.json']) {
      const response = await get(path);
      const text = await response.text();
      expect(text === INDEX || response.status === 404, path).toBe(true);
    }
  });

  it('leaves /v1 and /healthz to the API', async () => {
    expect(await (await get('/healthz')).json()).toEqual({ ok: true });
    const unknown = await get('/v1/nothing');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('not_found');
    expect((await get('/v1/openapi.json')).headers.get('content-type')).toMatch(/application\/json/);
    expect((await get('/somewhere', { method: 'POST' })).status).toBe(404);
  });

  it('lets pages frame and show images from the public endpoints’ origin when it is another', () => {
    expect(contentSecurityPolicy(['https://hooks.example.com'])).toMatch(
      /frame-src 'self' https: https:\/\/hooks\.example\.com/,
    );
  });

  it('lets only the origins of PORTICO_FRAME_ANCESTORS (and itself) frame the dashboard', () => {
    expect(contentSecurityPolicy([], ['https://docs.example.com', 'https://*.example.org:8443'])).toMatch(
      /frame-ancestors 'self' https:\/\/docs\.example\.com https:\/\/\*\.example\.org:8443(;|$)/,
    );
    expect(contentSecurityPolicy([], [])).toMatch(/frame-ancestors 'none'/);
    expect(parseFrameAncestors('https://docs.example.com, http://localhost:3000/', 'PORTICO_FRAME_ANCESTORS')).toEqual([
      'https://docs.example.com',
      'http://localhost:3000',
    ]);
    expect(parseFrameAncestors('  ', 'PORTICO_FRAME_ANCESTORS')).toBeUndefined();
    for (const wrong of ['docs.example.com', 'https://docs.example.com/embed', "'self'", 'javascript:alert(1)', '*']) {
      expect(() => parseFrameAncestors(wrong, 'PORTICO_FRAME_ANCESTORS'), wrong).toThrow(
        /^PORTICO_FRAME_ANCESTORS must list origins such as https:\/\/docs\.example\.com/,
      );
    }
    expect(
      configFromEnv({ PORTICO_FRAME_ANCESTORS: 'https://a.example.com https://b.example.com' }).frameAncestors,
    ).toEqual(['https://a.example.com', 'https://b.example.com']);
  });

  it('finds the @portico/dashboard package’s dist without depending on it', () => {
    expect(findDashboardDist()).toMatch(/dashboard[/\\]dist$/);
  });

  it('serves the assets too when the directory is given with a trailing slash', async () => {
    const slashed = await started(`${dist}/`);
    try {
      const asset = await fetch(`${slashed.platform.url}/assets/index-AbCd1234.js`);
      expect(asset.status).toBe(200);
      expect(await asset.text()).toBe('console.log("app")');
    } finally {
      await slashed.close();
    }
  });
});

describe('the dashboard before it is built', () => {
  it('answers 503 at / saying to run npm run build: a page for browsers, the error JSON for others', async () => {
    const { platform, close } = await started(join(tmpdir(), 'portico-no-dist-here'));
    try {
      const json = await fetch(`${platform.url}/`);
      expect(json.status).toBe(503);
      expect((await json.json()).error).toMatchObject({
        code: 'dashboard_not_built',
        message: expect.stringMatching(/run `npm run build`/),
      });
      const page = await fetch(`${platform.url}/integrations`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(503);
      expect(await page.text()).toMatch(/<h1>The dashboard is not built<\/h1>.*npm run build/s);
      expect((await fetch(`${platform.url}/healthz`)).status).toBe(200);
    } finally {
      await close();
    }
  }, 30_000);
});
