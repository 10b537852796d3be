/**
 * When the server stops under an open page (issue 41, "What was seen" 3), in Chromium as a person:
 * the banner comes by itself, with nothing pressed, and stays in view wherever the page is scrolled;
 * an action pressed meanwhile says once, in plain words, that it was not done. At 1280 and 390 px,
 * with axe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let space: string;

beforeAll(async () => {
  world = await startDashboardWorld();
  const ada = world.as(world.tokens.ada);
  const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  space = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
  await ada('PATCH', `/v1/installations/${space}/configuration`, { url: 'http://127.0.0.1:9/hook' });
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe('when the server stops', { timeout: 120_000 }, () => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`says so by itself, in view wherever the page is scrolled, and errors once in plain words, at ${width} px`, async () => {
      const page = await world.page({ width, height, bypassCSP: true });
      await signIn(page, world.url, world.tokens.ada);
      await page.goto(`${world.url}/installations/${space}#events`);
      await page.getByRole('heading', { name: 'Events', level: 2 }).waitFor();
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await world.stopServer();
      try {
        // Nothing pressed, no navigation: the page notices on its own.
        const banner = page.getByRole('alert').filter({ hasText: 'The Portico server cannot be reached' });
        await banner.waitFor();
        const box = await banner.boundingBox();
        expect(box !== null && box.y >= 0 && box.y < height).toBe(true);
        await screenshot(page, `server-stopped-${width}`, { fullPage: false });
        // An action pressed meanwhile: one note, in plain words, no code or browser text.
        await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview' }).click();
        await page.getByRole('button', { name: 'Send test event' }).click();
        const note = page.getByRole('alert').filter({ hasText: 'Test event not sent' });
        await note.waitFor();
        const text = (await note.textContent()) ?? '';
        expect(text).toBe(
          'Test event not sent: the Portico server could not be reached, so nothing was done: try again once it answers',
        );
        expect(text).not.toMatch(/Failed to fetch|\(network\)/);
        await checkBothWidths(page, 'an installation page while the server is stopped');
      } finally {
        await world.startServer();
      }
      await expect
        .poll(() => page.getByRole('alert').filter({ hasText: 'The Portico server cannot be reached' }).count(), {
          timeout: 20_000,
        })
        .toBe(0);
    });
  }
});
