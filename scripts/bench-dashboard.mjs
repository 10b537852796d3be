// Dashboard benchmarks: the size of the built bundle (raw and gzip), and the time to interactive of
// an installation page in Debian's Chromium (playwright-core) against `portico serve` on this machine:
// from the start of the navigation until the configuration form's Save button and the Deliveries
// region are there (the page's data has arrived and React has rendered it), with an empty cache
// (a new browser profile each time) and with a warm one (the same profile, loaded again).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serverSecrets, startServer, stopServer } from './bench-support.mjs';

export const DASHBOARD_SETTINGS = {
  /** Page loads measured each way (the median is reported). */
  loads: 7,
};

export const CHROMIUM = process.env.PORTICO_CHROMIUM ?? '/usr/bin/chromium';
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const dist = new URL('../packages/dashboard/dist/', import.meta.url).pathname;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Every file of the built dashboard's assets, with its raw and gzip sizes, by kind. */
function bundleSizes() {
  const assets = join(dist, 'assets');
  const files = readdirSync(assets).map((name) => {
    const bytes = readFileSync(join(assets, name));
    return { name, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const total = (ext) =>
    files
      .filter((f) => f.name.endsWith(ext))
      .reduce((sum, f) => ({ raw: sum.raw + f.raw, gzip: sum.gzip + f.gzip, files: sum.files + 1 }), {
        raw: 0,
        gzip: 0,
        files: 0,
      });
  return { js: total('.js'), css: total('.css') };
}

/**
 * Loads the page until it is usable; answers the milliseconds it took: by the page's own clock
 * (from its navigation start to the first frame painted with both, see `markContent`), else as
 * Playwright noticed them (it polls in steps of up to 500 ms).
 */
async function timeToInteractive(page, url) {
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.getByRole('button', { name: 'Save', exact: true }).waitFor({ state: 'visible', timeout: 30_000 });
  await page.getByRole('region', { name: 'Deliveries', exact: true }).waitFor({ state: 'visible', timeout: 30_000 });
  const painted = await page.evaluate(() => window.__contentPaintedAt);
  return painted ?? performance.now() - started;
}

/** In every page of the context: notes when a frame is first painted with the Save button and the Deliveries heading. */
export async function markContent(context) {
  await context.addInitScript(() => {
    const done = () =>
      [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Save') &&
      [...document.querySelectorAll('h2, h3')].some((h) => h.textContent?.trim() === 'Deliveries');
    const observer = new MutationObserver(() => {
      if (!done()) return;
      observer.disconnect();
      requestAnimationFrame(() => {
        window.__contentPaintedAt = performance.now();
      });
    });
    observer.observe(document, { childList: true, subtree: true });
  });
}

/**
 * What both page measurements load (this and scripts/time-to-content.mjs): a webhook installation
 * in a space of acme (`page`, its URL), whose admin ada is signed in by cookie in each new browser
 * profile `signedIn()` makes (as the sign-in screen would), with content marked (`markContent`).
 */
export async function installationPage(browser, url, call) {
  await call('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
  await call('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
  const { token } = await call('POST', '/v1/users', { id: 'ada', name: 'Ada' });
  await call('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
  const org = (await call('POST', '/v1/orgs/acme/installations', { integration: 'webhook' }, token)).id;
  const space = (await call('POST', `/v1/installations/${org}/spaces/docs`, undefined, token)).id;
  const signedIn = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await markContent(context);
    const answer = await context.request.post(`${url}/v1/session`, { data: { token } });
    if (!answer.ok()) throw new Error(`sign-in failed: ${answer.status()} ${await answer.text()}`);
    return context;
  };
  return { page: `${url}/installations/${space}`, signedIn };
}

export async function benchDashboard(options = {}) {
  const o = { ...DASHBOARD_SETTINGS, ...options };
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} is not built: run npm run build`);
  if (!existsSync(CHROMIUM))
    return { sizes: bundleSizes(), skipped: `${CHROMIUM} is missing (apt-get install -y chromium)` };
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const { child, url, call } = await startServer({ ...serverSecrets(), PORTICO_DATA_DIR: dataDir });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const { page, signedIn } = await installationPage(browser, url, call);
    // Warm-up: the server's caches and Chromium's first start.
    const warm = await signedIn();
    const warmPage = await warm.newPage();
    await timeToInteractive(warmPage, page);
    const cold = [];
    for (let i = 0; i < o.loads; i++) {
      const context = await signedIn();
      cold.push(await timeToInteractive(await context.newPage(), page));
      await context.close();
    }
    const cached = [];
    for (let i = 0; i < o.loads; i++) cached.push(await timeToInteractive(warmPage, page));
    await warm.close();
    return { sizes: bundleSizes(), cold: median(cold), warm: median(cached), loads: o.loads };
  } finally {
    await browser.close();
    await stopServer(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
