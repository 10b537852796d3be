/** The integration directory and an integration's page in Chromium: visibility, safe Markdown, Install. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
let world: DashboardWorld;

beforeAll(async () => {
  world = await startDashboardWorld();
  await world.publish('hello-world', { HELLO_WORLD_API_KEY: 'hello-key' });
  await world.publish(`${fixtures}showcase`);
  await world.publish(`${fixtures}globex-private`, {}, world.tokens.carol);
}, 120_000);

afterAll(async () => {
  await world?.close();
});

// Browser steps wait up to 30 s each on a busy machine; a whole test gets 2 minutes.
describe('the integration directory', { timeout: 120_000 }, () => {
  it('lists what the person may install, and hides another organization’s private integration', async () => {
    const ada = await world.page();
    await signIn(ada, world.url, world.tokens.ada);
    await ada.getByRole('link', { name: 'Acme' }).first().waitFor();
    await screenshot(ada, 'overview');
    await ada.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' }).click();
    await ada.getByRole('link', { name: 'Showcase' }).waitFor();
    const listed = ada.getByRole('list', { name: 'Integrations you may install' }).getByRole('heading');
    expect(await listed.allTextContents()).toEqual(expect.arrayContaining(['Hello World', 'Showcase', 'Webhooks']));
    expect(await listed.allTextContents()).not.toContain('Globex Private');
    await screenshot(ada, 'integrations');
    // Not by its address either.
    await ada.goto(`${world.url}/integrations/globex-private`);
    await ada.getByRole('heading', { level: 1, name: 'Integration not found' }).waitFor();

    const carol = await world.page();
    await signIn(carol, world.url, world.tokens.carol);
    await carol.goto(`${world.url}/integrations`);
    await carol.getByRole('link', { name: 'Globex Private' }).waitFor();
    expect(await carol.getByRole('link', { name: 'Showcase' }).count()).toBe(0);
  });

  it('shows an unlisted integration only through its share link, and installs it with that link', async () => {
    const published = await world.as(world.tokens.carol)('POST', '/v1/integrations', {
      manifest: `name: globex-shared
title: Globex Shared
description: Unlisted, for those Globex shares it with.
organization: globex
visibility: unlisted
scopes: []
`,
      script: 'export default { fetch: () => new Response("ok") };',
    });
    expect(published.status).toBe(201);
    const share = published.body.shareToken as string;
    const page = await world.page();
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/integrations`);
    await page.getByRole('link', { name: 'Showcase' }).waitFor();
    expect(await page.getByRole('link', { name: 'Globex Shared' }).count()).toBe(0);
    await page.goto(`${world.url}/integrations?share=${share}`);
    await page.getByRole('link', { name: 'Globex Shared' }).click();
    await page.getByRole('heading', { level: 1, name: 'Globex Shared' }).waitFor();
    await page.getByRole('button', { name: 'Install' }).click();
    // The confirmation lists what it is granted; its Install installs.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Install' }).click();
    await page.getByRole('heading', { level: 1, name: 'Globex Shared' }).waitFor();
    await page.waitForURL(/\/installations\//);
    const id = page.url().split('/').pop() as string;
    expect((await world.admin('GET', `/v1/installations/${id}`)).body).toMatchObject({
      integration: 'globex-shared',
      organization: 'acme',
    });
  });

  it('shows an integration’s page with its summary Markdown rendered inert, its scopes and links', async () => {
    const page = await world.page();
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/integrations`);
    await page.getByRole('link', { name: 'Showcase' }).click();
    await page.getByRole('heading', { level: 1, name: 'Showcase' }).waitFor();
    const about = page.getByRole('region', { name: 'About' });
    await about.getByText('shows what the dashboard draws').waitFor();
    expect(await about.locator('strong').first().textContent()).toBe('Showcase');
    // No script, no event handler, no javascript: link made it into the page, and none ran.
    expect(await about.locator('script, img[onerror], [onerror]').count()).toBe(0);
    const link = about.getByRole('link', { name: 'A link that runs code' });
    expect(await link.getAttribute('href')).not.toMatch(/javascript:/i);
    await link.click().catch(() => {});
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    await page.getByText('space:content:read').waitFor();
    expect(await page.getByRole('region', { name: 'What it may access' }).textContent()).toMatch(/content/i);
    expect(await page.getByRole('link', { name: 'Documentation' }).getAttribute('href')).toBe(
      'https://example.com/showcase',
    );
    await screenshot(page, 'integration');
  });

  it('installs an integration at organization level and opens its installation page', async () => {
    const page = await world.page();
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/integrations/hello-world`);
    await page.getByRole('button', { name: 'Install' }).click();
    // The confirmation lists what it is granted; its Install installs.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Install' }).click();
    // (The integration page's heading has the same name: waiting for it alone raced the navigation.)
    await page.waitForURL(/\/installations\/[^/]+$/);
    await page.getByRole('heading', { level: 1, name: 'Hello World' }).waitFor();
    expect(page.url()).toMatch(/\/installations\/[^/]+$/);
    const id = page.url().split('/').pop() as string;
    const stored = await world.admin('GET', `/v1/installations/${id}`);
    expect(stored.body).toMatchObject({
      integration: 'hello-world',
      organization: 'acme',
      target: { type: 'organization' },
    });
    // hello-world's account configuration has defaults for every required property: active at once.
    await page.getByText('active', { exact: true }).waitFor();

    // The organization's page lists it, with its spaces, sites and members.
    await page.locator('.page-head').getByRole('link', { name: 'Acme', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme' }).waitFor();
    await page.getByRole('link', { name: 'Hello World' }).waitFor();
    await page.getByRole('link', { name: 'Docs' }).waitFor();
    await page.getByRole('link', { name: 'Site' }).waitFor();
    expect(await page.getByRole('region', { name: 'Members' }).textContent()).toMatch(/Ada.*admin/);
    await screenshot(page, 'organization');
  });
});
