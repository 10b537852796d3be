/**
 * The webhook installation page in sections (issue 41, "What was seen" 7 and 8), in Chromium as a
 * person: with a long deliveries log, Overview, Settings, Signing secret, Deliveries and Events
 * are links kept at the top; each opens its section in view, with its own URL, also when the URL
 * is opened directly; every screen names the browser tab. At 1280 and 390 px, with axe.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let page: Page;
let space: string;
let org: string;

beforeAll(async () => {
  world = await startDashboardWorld();
  const ada = world.as(world.tokens.ada);
  org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  space = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
  await ada('PATCH', `/v1/installations/${space}/configuration`, { url: 'http://127.0.0.1:9/hook' });
  // A long log: 40 deliveries above which nothing else should hide.
  for (let i = 0; i < 40; i++) {
    const answer = await world.admin('POST', `/v1/installations/${space}/deliveries`, {
      url: 'http://127.0.0.1:9/hook',
      eventId: `long-${i}`,
      type: 'space_content_updated',
      payload: { eventId: `long-${i}` },
    });
    expect(answer.status).toBe(202);
  }
  page = await world.page({ bypassCSP: true });
  await signIn(page, world.url, world.tokens.ada);
}, 120_000);

afterAll(async () => {
  await world?.close();
});

/** Whether the element's top is inside the viewport (not below the fold, not scrolled past). */
async function inView(target: ReturnType<Page['getByRole']>): Promise<boolean> {
  const box = await target.boundingBox();
  const height = page.viewportSize()?.height ?? 0;
  return box !== null && box.y >= 0 && box.y < height;
}

describe('the installation page in sections', { timeout: 120_000 }, () => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`reaches every section from the top, each with its own URL, at ${width} px`, async () => {
      await page.setViewportSize({ width, height });
      await page.goto(`${world.url}/installations/${space}`);
      const deliveries = page.getByRole('region', { name: 'Deliveries' });
      await deliveries.getByRole('button', { name: 'Redeliver' }).nth(30).waitFor();
      expect(await page.title()).toBe('Webhooks in Docs · Portico');
      const nav = page.getByRole('navigation', { name: 'Sections' });
      const names = await nav.getByRole('link').allTextContents();
      expect(names).toEqual(['Overview', 'Settings', 'Signing secret', 'Deliveries', 'Events']);

      // Events is below the 40 deliveries; one press brings it into view, and the URL says where.
      await page.getByRole('region', { name: 'Events' }).scrollIntoViewIfNeeded();
      await page.evaluate(() => window.scrollTo(0, 0));
      await nav.getByRole('link', { name: 'Events' }).click();
      await page.waitForURL(`**/installations/${space}#events`);
      expect(await inView(page.getByRole('heading', { name: 'Events', level: 2 }))).toBe(true);
      // The links stay at the top while scrolled: Signing secret is one press away from there.
      expect(await inView(nav.getByRole('link', { name: 'Signing secret' }))).toBe(true);
      await nav.getByRole('link', { name: 'Signing secret' }).click();
      await page.waitForURL(`**#signing-secret`);
      expect(await inView(page.getByRole('button', { name: 'Reveal' }))).toBe(true);
      await screenshot(page, `installation-sections-${width}`, { fullPage: false });
      await nav.getByRole('link', { name: 'Settings' }).click();
      expect(await inView(page.getByRole('heading', { name: 'Configuration', level: 2 }))).toBe(true);
      await checkBothWidths(page, 'the installation page scrolled to Settings');

      // Opened directly, a section's URL shows that section, with keyboard focus there.
      for (const [hash, heading] of [
        ['deliveries', 'Deliveries'],
        ['signing-secret', 'Signing secret'],
        ['overview', undefined],
      ] as const) {
        await page.goto(`${world.url}/installations/${space}#${hash}`);
        if (heading) {
          await page.getByRole('heading', { name: heading, level: 2 }).waitFor();
          await expect.poll(() => inView(page.getByRole('heading', { name: heading, level: 2 }))).toBe(true);
        }
        await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(hash);
      }
    });
  }

  it('shows each row’s status and action at 390 px without scrolling sideways', async () => {
    await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r1',
      eventId: 'narrow-1',
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${world.url}/installations/${space}#deliveries`);
    const deliveries = page.getByRole('region', { name: 'Delivery list' });
    await deliveries.getByRole('button', { name: 'Redeliver' }).nth(30).waitFor();
    const rows = deliveries.locator('tbody > tr.log-row');
    for (let i = 0; i < 3; i++) {
      const row = rows.nth(i);
      await row.scrollIntoViewIfNeeded();
      for (const part of [row.locator('.status').first(), row.getByRole('button', { name: 'Redeliver' })]) {
        const box = await part.boundingBox();
        expect(box, `row ${i}`).not.toBeNull();
        expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390, `row ${i} in view`).toBe(true);
      }
    }
    const events = page.getByRole('region', { name: 'Event list' });
    const event = events.locator('tbody > tr.log-row').first();
    await event.waitFor();
    await event.scrollIntoViewIfNeeded();
    const result = await event.locator('.status').first().boundingBox();
    expect((result?.x ?? -1) >= 0 && (result?.x ?? 0) + (result?.width ?? 0) <= 390).toBe(true);
    // Neither list scrolls sideways.
    for (const list of [deliveries, events]) {
      expect(await list.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    }
    await screenshot(page, 'deliveries-390', { fullPage: false });
    await checkBothWidths(page, 'the deliveries and events as cards');
  });

  it('does not mark an empty required field in red before anything was typed', async () => {
    await world.admin('POST', '/v1/orgs/acme/spaces', { id: 'fresh', title: 'Fresh' });
    const fresh = (await world.as(world.tokens.ada)('POST', `/v1/installations/${org}/spaces/fresh`)).body.id as string;
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(`${world.url}/installations/${fresh}`);
      await page.getByText('pending', { exact: true }).waitFor();
      // The status panel says what is missing; the field itself is not in error yet.
      expect(await page.getByRole('list', { name: 'What is missing' }).textContent()).toBe('Webhook URL is required');
      const form = page.getByRole('form', { name: 'Configuration' });
      expect(await form.getByText('Webhook URL is required').count()).toBe(0);
      expect(await form.getByRole('textbox', { name: /Webhook URL/ }).getAttribute('aria-invalid')).not.toBe('true');
      await checkBothWidths(page, 'a new webhook installation');
      // Saving it empty says so beside the field.
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('Webhook URL is required').waitFor();
    }
  });

  it('names the browser tab after each screen', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const [path, title] of [
      ['/integrations', 'Integrations · Portico'],
      ['/integrations/webhook', 'Webhooks · Portico'],
      ['/orgs/acme', 'Acme · Portico'],
      ['/spaces/docs', 'Docs · Portico'],
      [`/installations/${org}`, 'Webhooks in Acme · Portico'],
      ['/no-such-page', 'Page not found · Portico'],
    ] as const) {
      await page.goto(`${world.url}${path}`);
      await expect.poll(() => page.title()).toBe(title);
    }
  });
});
