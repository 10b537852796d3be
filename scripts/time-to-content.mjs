// Time to content of the installation page on a cold load, with the request waterfall behind it:
// `node scripts/time-to-content.mjs [loads]` (after `npm run build`). It starts `portico serve` on a
// fresh SQLite directory and loads the page `npm run bench` measures (scripts/bench-dashboard.mjs,
// `installationPage`) in Debian's Chromium with a new browser profile each time (empty cache,
// signed in by cookie), by the page's own clock: the first frame painted with the configuration
// form's Save button and the Deliveries heading. It prints the median and, for the median load,
// when each request started and ended, so what waits for what is plain to see.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, FLAGS, installationPage } from './bench-dashboard.mjs';
import { serverSecrets, startServer, stopServer } from './bench-support.mjs';

const loads = Number(process.argv[2] ?? 7);
const dist = new URL('../packages/dashboard/dist/index.html', import.meta.url).pathname;
if (!existsSync(dist)) throw new Error(`${dist} is missing: run npm run build first`);

/** One cold load: the milliseconds to content and every request's start and end, from the navigation's start. */
async function load(context, url) {
  const page = await context.newPage();
  const requests = [];
  const started = performance.now();
  page.on('request', (request) => requests.push({ request, start: performance.now() - started, end: undefined }));
  const ended = (request) => {
    const entry = requests.find((r) => r.request === request);
    if (entry) entry.end = performance.now() - started;
  };
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  await page.goto(url, { waitUntil: 'commit' });
  await page.getByRole('button', { name: 'Save', exact: true }).waitFor({ state: 'visible', timeout: 30_000 });
  await page.getByRole('region', { name: 'Deliveries', exact: true }).waitFor({ state: 'visible', timeout: 30_000 });
  // Playwright notices in steps of up to 500 ms; the page's own clock says when the content was painted.
  const painted = await page.evaluate(() => window.__contentPaintedAt);
  const polled = performance.now() - started;
  const ms = painted ?? polled;
  const waterfall = requests
    .filter((r) => r.start <= ms)
    .map((r) => {
      const { pathname, search } = new URL(r.request.url());
      return { path: `${pathname}${search}`.slice(0, 70), start: r.start, end: r.end };
    });
  await page.close();
  return { ms, polled, waterfall };
}

const dataDir = mkdtempSync(join(tmpdir(), 'portico-ttc-'));
const { child, url, call } = await startServer({ ...serverSecrets(), PORTICO_DATA_DIR: dataDir });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
try {
  const { page, signedIn } = await installationPage(browser, url, call);
  // Warm-up: the server's caches and Chromium's first start.
  const warm = await signedIn();
  await load(warm, page);
  await warm.close();
  const runs = [];
  for (let i = 0; i < loads; i++) {
    const context = await signedIn();
    runs.push(await load(context, page));
    await context.close();
  }
  runs.sort((a, b) => a.ms - b.ms);
  const median = runs[Math.floor(runs.length / 2)];
  const ms = (n) => (n === undefined ? '   …' : `${Math.round(n)}`.padStart(4));
  console.log(`Cold time to content of /installations/{id}: median ${Math.round(median.ms)} ms of ${loads} loads`);
  console.log(`(all: ${runs.map((r) => Math.round(r.ms)).join(', ')} ms)`);
  const polled = runs.map((r) => r.polled).sort((a, b) => a - b);
  console.log(
    `As Playwright's polling notices it (steps of up to 500 ms): median ${Math.round(polled[Math.floor(polled.length / 2)])} ms`,
  );
  console.log('\nRequests of the median load (ms from the navigation start):');
  for (const r of median.waterfall) console.log(`  ${ms(r.start)} → ${ms(r.end)}  ${r.path}`);
} finally {
  await browser.close();
  await stopServer(child);
  rmSync(dataDir, { recursive: true, force: true });
}
