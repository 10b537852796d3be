/**
 * The API's reference page at /v1/docs in Chromium: it renders the document the server serves,
 * lists every operation, asks nothing of any other host (every request off 127.0.0.1 is blocked
 * and counted), and at 390 px the page does not scroll sideways.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningPlatform, startPlatform } from '../../platform/src/server.js';
import { launchChromium, screenshot } from './support/browser.js';

let platform: RunningPlatform;
let browser: Browser;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'portico-api-docs-'));
  platform = await startPlatform({ port: 0, host: '127.0.0.1', dataDir, allowPrivateNetwork: false });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Operation {
  method: string;
  path: string;
  operationId: string;
  summary?: string;
}

async function operations(): Promise<Operation[]> {
  const document = (await (await fetch(`${platform.url}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; summary?: string }>>;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method, path, ...op })),
  );
}

const REDOCLY_LOGO_REFUSED =
  /^Loading the image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates the following Content Security Policy directive/;

/** A page whose every request to anywhere but the server is refused and recorded. */
async function openDocs(width: number, height: number): Promise<{ page: Page; outside: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height } });
  const outside: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'blob:' || url.protocol === 'data:' || url.origin === platform.url) return route.continue();
    outside.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // Redoc's menu footer always asks for Redocly's logo from their CDN: the page's policy refuses
    // it before any request is made (and Redoc then leaves the logo out). Any other error counts.
    const text = message.text();
    if (message.type() === 'error' && !REDOCLY_LOGO_REFUSED.test(text)) errors.push(text);
  });
  await page.goto(`${platform.url}/v1/docs`);
  await page.locator('h1', { hasText: 'Portico API' }).waitFor();
  return { page, outside, errors };
}

describe('the API reference page', { timeout: 120_000 }, () => {
  it('renders every operation of /v1/openapi.json from this server alone', async () => {
    const { page, outside, errors } = await openDocs(1280, 800);
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(50);
    // Redoc gives each operation an anchor named by its tag and operationId.
    const anchors = await page.evaluate(() =>
      [...document.querySelectorAll('[data-section-id]')].map((el) => el.getAttribute('data-section-id') ?? ''),
    );
    const text = (await page.locator('redoc').textContent()) ?? '';
    for (const op of ops) {
      expect(
        anchors.some((id) => id.endsWith(`/operation/${op.operationId}`)),
        op.operationId,
      ).toBe(true);
      if (op.summary) expect(text, op.summary).toContain(op.summary);
    }
    await screenshot(page, 'api-docs-1280', { fullPage: false });
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('reads at 390 px with no sideways scroll of the page', async () => {
    const { page, outside, errors } = await openDocs(390, 844);
    await screenshot(page, 'api-docs-390', { fullPage: false });
    const widths = () =>
      page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
    expect((await widths()).scroll).toBeLessThanOrEqual((await widths()).client);
    // An operation with a body, its answers and its request sample: the widest part of the page.
    await page.locator('[data-section-id$="/operation/createOrganization"]').scrollIntoViewIfNeeded();
    const scrolled = await widths();
    expect(scrolled.scroll).toBeLessThanOrEqual(scrolled.client);
    await screenshot(page, 'api-docs-390-operation', { fullPage: false });
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('redirects /docs to /v1/docs and serves the renderer compressed', async () => {
    const redirect = await fetch(`${platform.url}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/v1/docs');
    const page = await fetch(`${platform.url}/v1/docs`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const script = await fetch(`${platform.url}/v1/docs/redoc.standalone.js`, { headers: { 'accept-encoding': 'br' } });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-encoding')).toBe('br');
    expect(Number(script.headers.get('content-length'))).toBeLessThan(500_000);
  });
});
