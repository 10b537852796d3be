/**
 * A real platform (SQLite in a temporary directory, or a fresh store of the back end a test passes)
 * serving the built dashboard at `/`, a small
 * world in it, integrations published with `portico publish` as developers do, and Chromium.
 * Organizations: acme (space `docs`, site `site`) and globex (space `globex-docs`); users ada
 * (acme admin) and carol (globex admin).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { run } from 'portico';
import type { Tuning } from '../../../platform/src/config.js';
import { type RunningPlatform, startPlatform } from '../../../platform/src/server.js';
import { client } from '../../../platform/src/test-support/api.js';
import type { Backend } from '../../../platform/src/test-support/backends.js';
import { launchChromium } from './browser.js';

export const examples = new URL('../../../../examples/', import.meta.url).pathname;
const dist = new URL('../../dist', import.meta.url).pathname;

export interface DashboardWorld {
  platform: RunningPlatform;
  url: string;
  admin: ReturnType<typeof client>;
  as(token: string): ReturnType<typeof client>;
  tokens: { ada: string; carol: string };
  browser: Browser;
  /**
   * A fresh browser profile (no cookies) with one page, 1280 px wide unless told. `bypassCSP`
   * lets a test inject a checking script (axe) that the page's policy would refuse.
   */
  page(options?: { width?: number; height?: number; bypassCSP?: boolean }): Promise<Page>;
  /** `portico publish DIR` as `token` (ada by default), with the given environment for its secrets. */
  publish(dir: string, env?: Record<string, string>, token?: string): Promise<void>;
  /** Stops the platform (the browser stays), as when the server goes down under an open page. */
  stopServer(): Promise<void>;
  /** Starts it again on the same address and store: sessions, tokens and data are kept. */
  startServer(): Promise<void>;
  close(): Promise<void>;
}

export async function startDashboardWorld(
  options: {
    tuning?: Partial<Tuning>;
    frameAncestors?: string[];
    /** The platform tests' back end to store in (`backends` of platform/src/test-support); SQLite in a temporary directory when absent. */
    backend?: Backend;
  } = {},
): Promise<DashboardWorld> {
  const store = options.backend
    ? await options.backend.fresh()
    : await mkdtemp(join(tmpdir(), 'portico-dashboard-')).then((dataDir) => ({
        config: { dataDir },
        cleanup: () => rm(dataDir, { recursive: true, force: true }),
      }));
  const start = (port: number) =>
    startPlatform(
      {
        ...store.config,
        port,
        host: '127.0.0.1',
        allowPrivateNetwork: true,
        tuning: options.tuning,
        frameAncestors: options.frameAncestors,
      },
      { dashboardDir: dist },
    );
  let platform = await start(0).catch(async (error) => {
    await store.cleanup();
    throw error;
  });
  const contexts: BrowserContext[] = [];
  let browser: Browser | undefined;
  try {
    const admin = client(platform.url, platform.adminToken);
    const ok = async (answer: Promise<{ status: number; body: unknown }>) => {
      const { status, body } = await answer;
      if (status >= 300) throw new Error(`seeding failed: ${status} ${JSON.stringify(body)}`);
      return body as Record<string, unknown>;
    };
    await ok(admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' }));
    await ok(admin('POST', '/v1/orgs', { id: 'globex', title: 'Globex' }));
    await ok(admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' }));
    await ok(admin('POST', '/v1/orgs/acme/sites', { id: 'site', title: 'Site' }));
    await ok(admin('POST', '/v1/orgs/globex/spaces', { id: 'globex-docs', title: 'Globex docs' }));
    const ada = (await ok(admin('POST', '/v1/users', { id: 'ada', name: 'Ada' }))).token as string;
    const carol = (await ok(admin('POST', '/v1/users', { id: 'carol', name: 'Carol' }))).token as string;
    await ok(admin('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' }));
    await ok(admin('PUT', '/v1/orgs/globex/members/carol', { role: 'admin' }));
    browser = await launchChromium();
    const opened = browser;
    let stopped = false;
    return {
      get platform() {
        return platform;
      },
      url: platform.url,
      admin,
      as: (token) => client(platform.url, token),
      tokens: { ada, carol },
      browser: opened,
      async page({ width = 1280, height = 900, bypassCSP = false } = {}) {
        const context = await opened.newContext({ viewport: { width, height }, bypassCSP });
        contexts.push(context);
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        // The page's own failures, in the test's output (a blank page says nothing by itself).
        page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
        page.on('console', (message) => {
          const text = message.text();
          // Refused connections are what a test that stopped the server expects.
          const expected = /status of (401|403|404)/.test(text) || (stopped && /ERR_CONNECTION_REFUSED/.test(text));
          if (message.type() === 'error' && !expected) console.error(`page console: ${text}`);
        });
        return page;
      },
      async publish(dir, env = {}, token = ada) {
        const errors: string[] = [];
        const io = {
          out: () => {},
          err: (text: string) => void errors.push(text),
          cwd: examples,
          interactive: false,
          ask: async () => undefined,
        };
        const saved = { ...process.env };
        Object.assign(process.env, env);
        try {
          const code = await run(['publish', dir, '--api', platform.url, '--token', token], io);
          if (code !== 0) throw new Error(`portico publish ${dir} failed: ${errors.join('')}`);
        } finally {
          process.env = saved;
        }
      },
      async stopServer() {
        stopped = true;
        await platform.close();
      },
      async startServer() {
        platform = await start(Number(new URL(platform.url).port));
        stopped = false;
      },
      async close() {
        for (const context of contexts) await context.close().catch(() => {});
        await opened.close();
        if (!stopped) await platform.close();
        await store.cleanup();
      },
    };
  } catch (error) {
    await browser?.close();
    await platform.close();
    await store.cleanup();
    throw error;
  }
}

/** Signs in on `/` with a token, as a person would, and waits for the signed-in frame. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}
