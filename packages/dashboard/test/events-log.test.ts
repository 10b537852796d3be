/**
 * The Events log (issue 24, "What was seen" 5 and 10), in Chromium as a person, at 1280 and 390 px
 * wide with axe on each screen: an event sent while the installation is paused is listed after
 * Resume as "skipped while paused" (neutral, not failed); the log pages on the server (50 events,
 * then "Older events" loads the next page) and leaves out system events there, so a page is full
 * of what the integration did.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
let world: DashboardWorld;
let installation: string;

/** Content events sent at once (more than one page of 50). */
const SENT = 55;

/** The installation's log lines (system events left out), read through the API. */
async function logLines(): Promise<number> {
  const answer = await world.as(world.tokens.ada)(
    'GET',
    `/v1/installations/${installation}/dispatches?system=false&limit=200`,
  );
  return (answer.body as unknown[]).length;
}

/** Waits (at most a minute) until the installation's log has `count` lines. */
async function logLength(count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const lines = await logLines();
    if (lines === count) return;
    if (Date.now() > deadline) throw new Error(`the Events log has ${lines} lines, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  world = await startDashboardWorld();
  await world.publish(`${fixtures}content-log`);
  const ada = world.as(world.tokens.ada);
  const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'content-log' })).body.id as string;
  const installed = await ada('POST', `/v1/installations/${org}/spaces/docs`);
  if (installed.body.status !== 'active') throw new Error(`not active: ${JSON.stringify(installed.body)}`);
  installation = installed.body.id as string;
  const batch = await world.admin('POST', '/v1/events/batch', {
    events: Array.from({ length: SENT }, (_, i) => ({
      type: 'space_content_updated',
      eventId: `evt_content_${String(i + 1).padStart(2, '0')}`,
      spaceId: 'docs',
      revisionId: `rev-${i + 1}`,
    })),
  });
  if (batch.status !== 202) throw new Error(`batch refused: ${JSON.stringify(batch.body)}`);
  await logLength(SENT);
}, 180_000);

afterAll(async () => {
  await world?.close();
});

describe.each([1280, 390])('the Events log at %i px', { timeout: 120_000 }, (width) => {
  let page: Page;
  const missed = `evt_missed_${width}`;

  beforeAll(async () => {
    page = await world.page({ width, height: 900, bypassCSP: true });
    await signIn(page, world.url, world.tokens.ada);
  }, 60_000);

  it('lists an event sent while paused as skipped, after Resume, in a neutral style', async () => {
    const before = await logLines();
    await page.goto(`${world.url}/installations/${installation}`);
    await page.getByRole('heading', { level: 1, name: 'Content log' }).waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    const question = page.getByRole('alertdialog', { name: 'Pause Content log?' });
    expect(await question.textContent()).toMatch(/not kept: events sent meanwhile are never delivered/);
    await question.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('paused', { exact: true }).waitFor();

    const sent = await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      eventId: missed,
      spaceId: 'docs',
      revisionId: 'while-paused',
    });
    expect(sent.status).toBe(202);
    await logLength(before + 1);

    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('status').getByText('Resumed: it receives events again.').waitFor();
    const events = page.getByRole('region', { name: 'Events' });
    const row = events.locator('tbody tr', { hasText: missed });
    await row.getByText('skipped while paused', { exact: true }).waitFor();
    expect(await row.getAttribute('data-status')).toBe('skipped');
    expect(await row.getByText(/failed|handled \(/).count()).toBe(0);
    // The trace counts it too: the event was owed to the installation and skipped.
    const trace = await world.admin('GET', `/v1/events/${missed}`);
    expect(trace.body.installations).toEqual([
      { installationId: installation, outcome: 'skipped: paused', dispatchedAt: expect.any(String) },
    ]);
    if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, width === 390 ? 'events-skipped-while-paused-390' : 'events-skipped-while-paused');
    expect(await axeViolations(page)).toEqual([]);
  });

  it("shows an event's console lines with their levels", async () => {
    await page.goto(`${world.url}/installations/${installation}`);
    const events = page.getByRole('region', { name: 'Events' });
    const row = events.locator('tbody tr', { hasText: 'evt_content_55' });
    await row.getByText('2 log lines').click();
    const lines = row.locator('.log-line');
    await expect
      .poll(() => lines.allTextContents())
      .toEqual(['log content updated: revision rev-55\n', 'warn the last revision\n']);
    expect(await row.locator('.log-warn .log-level').textContent()).toBe('warn');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('shows 50 events, then the next page on "Older events", with no system event among them', async () => {
    const total = await logLines();
    expect(total).toBeGreaterThan(50);
    await page.goto(`${world.url}/installations/${installation}`);
    const events = page.getByRole('region', { name: 'Events' });
    const rows = events.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(50);
    // Newest first: the first page ends before the oldest content events.
    expect(await events.getByText('evt_content_01', { exact: true }).count()).toBe(0);
    expect(await events.getByText('Setup (space)').count()).toBe(0);
    await events.getByRole('button', { name: 'Older events' }).click();
    await expect.poll(() => rows.count()).toBe(total);
    await events.getByText('evt_content_01', { exact: true }).waitFor();
    // The last page: nothing older to load.
    expect(await events.getByRole('button', { name: 'Older events' }).count()).toBe(0);
    expect(await events.getByText('Setup (space)').count()).toBe(0);
    if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, width === 390 ? 'events-older-390' : 'events-older');
    expect(await axeViolations(page)).toEqual([]);

    // System events are asked of the server: with them, the setup event is in the log.
    await events.getByText('Show system events').click();
    await expect.poll(() => rows.count()).toBe(50);
    await events.getByRole('button', { name: 'Older events' }).click();
    await events.getByText('Setup (space)').waitFor();
  });
});
