/**
 * The frame around every page (issue 24, "What was seen" 8, 9, 11), in Chromium as a person: the
 * sign-in page styled, with only the latest error; not-found pages with a heading and a way back;
 * a banner at the top while the server cannot be reached; a skip link; at 390 px the tables
 * scroll sideways inside the page, reachable by keyboard. Each screen at 1280 and 390 px, with axe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedReceiver } from '../../platform/src/test-support/webhook-world.js';
import { axeViolations, checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let receiver: ScriptedReceiver;
let webhook: string;

beforeAll(async () => {
  world = await startDashboardWorld();
  receiver = new ScriptedReceiver();
  await receiver.start();
  const ada = world.as(world.tokens.ada);
  const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  webhook = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
  await ada('PATCH', `/v1/installations/${webhook}/configuration`, {
    url: receiver.script('/hooks', [200]),
    space_content_updated: true,
  });
  await world.admin('POST', '/v1/events', { type: 'space_content_updated', spaceId: 'docs', revisionId: 'r1' });
}, 120_000);

afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

describe('the frame of every page', { timeout: 120_000 }, () => {
  it('styles the sign-in page, and shows only the latest error', async () => {
    for (const width of [1280, 390]) {
      const page = await world.page({ width, bypassCSP: true });
      await page.goto(`${world.url}/#code=not-a-code`);
      await page.getByText('The sign-in link did not work').waitFor();
      const card = await page.locator('main.sign-in').boundingBox();
      const button = await page.getByRole('button', { name: 'Sign in' }).boundingBox();
      // A card with room around it, and a button as wide as its text, not the screen.
      expect(card?.x).toBeGreaterThan(width === 390 ? 8 : 200);
      expect(button?.width).toBeLessThan(150);
      await screenshot(page, width === 390 ? 'sign-in-390' : 'sign-in');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('API token').fill('ptu_wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: /token/i }).waitFor();
      expect(await page.getByText('The sign-in link did not work').count()).toBe(0);
    }
  });

  it('answers unknown ids with a not-found page: a heading and a way back', async () => {
    const page = await world.page({ bypassCSP: true }); // axe's script runs in the page
    await signIn(page, world.url, world.tokens.ada);
    for (const [path, heading] of [
      ['/installations/inst_nope', 'Installation not found'],
      ['/spaces/nowhere', 'Space not found'],
      ['/sites/nowhere', 'Site not found'],
      ['/orgs/nowhere', 'Organization not found'],
      ['/integrations/nothing-here', 'Integration not found'],
      ['/no/such/page', 'Page not found'],
    ]) {
      await page.goto(`${world.url}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.getByRole('main').getByRole('link').first().waitFor();
      await checkBothWidths(page, `the not-found page of ${path}`);
    }
    await page.goto(`${world.url}/installations/inst_nope`);
    await page.getByRole('main').getByRole('link', { name: 'overview' }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
  });

  it('says at the top of the page while the server cannot be reached, and stops once it answers', async () => {
    const page = await world.page({ bypassCSP: true });
    await signIn(page, world.url, world.tokens.ada);
    // The server itself stops, under the open page.
    await world.stopServer();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' }).click();
    const banner = page.getByRole('alert').filter({ hasText: 'The Portico server cannot be reached' });
    await banner.waitFor({ timeout: 20_000 });
    // At the top: before the page's own content.
    const bannerBox = await banner.boundingBox();
    const mainBox = await page.getByRole('main').boundingBox();
    expect(bannerBox?.y ?? 0).toBeLessThan(mainBox?.y ?? 0);
    await checkBothWidths(page, 'the banner while the server cannot be reached');
    await world.startServer();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0);
    // The session lived through it: the page shows the organizations again, still signed in.
    await page.getByRole('link', { name: 'Acme' }).first().waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  it('has a skip link to the content as the first stop of the keyboard', async () => {
    const page = await world.page();
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/installations/${webhook}`);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  it('at 390 px, keeps the page within the screen and shows each delivery as a card, its status and Redeliver in view', async () => {
    const page = await world.page({ width: 390, height: 844, bypassCSP: true });
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/installations/${webhook}`);
    const list = page.getByRole('region', { name: 'Delivery list' });
    await list.getByText('delivered', { exact: true }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // No sideways scrolling (issue 41): the list is as wide as the screen, each row a card.
    const sizes = await list.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(sizes.scroll).toBeLessThanOrEqual(sizes.client);
    const redeliver = list.getByRole('button', { name: 'Redeliver', exact: true });
    await redeliver.scrollIntoViewIfNeeded();
    expect(await redeliver.isVisible()).toBe(true);
    const box = await redeliver.boundingBox();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390).toBe(true);
    await screenshot(page, 'webhook-deliveries-390');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('fits every main screen in 390 px, and axe finds nothing on any', async () => {
    const page = await world.page({ width: 390, height: 844, bypassCSP: true });
    await signIn(page, world.url, world.tokens.ada);
    for (const [path, heading] of [
      ['/', /./],
      ['/integrations', /^Integrations$/],
      ['/integrations/webhook', /^Webhooks$/],
      ['/orgs/acme', /^Acme$/],
      [`/installations/${webhook}`, /^Webhooks$/],
      ['/spaces/docs', /^Docs$/],
      ['/nowhere', /^Page not found$/],
    ] as const) {
      await page.goto(`${world.url}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).first().waitFor();
      // Let the page's reads settle (a table arriving late could widen it).
      await page.waitForLoadState('networkidle').catch(() => {});
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      expect(await axeViolations(page), path).toEqual([]);
    }
  });
});
