/**
 * Every main screen checked by axe-core (WCAG 2 A and AA rules: names of controls, labels, roles,
 * contrast, landmarks) in Chromium, with the data a person would see on it.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedReceiver } from '../../platform/src/test-support/webhook-world.js';
import { axeViolations } from './support/axe.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
let world: DashboardWorld;
let receiver: ScriptedReceiver;
let page: Page;
let showcase: string;
let webhook: string;

/** The WCAG A/AA problems axe finds on the page as it is now, one line each. */
const violations = () => axeViolations(page);

beforeAll(async () => {
  world = await startDashboardWorld();
  receiver = new ScriptedReceiver();
  await receiver.start();
  await world.publish(`${fixtures}showcase`);
  const ada = world.as(world.tokens.ada);
  showcase = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'showcase' })).body.id;
  await ada('POST', `/v1/installations/${showcase}/spaces/docs`);
  const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id;
  webhook = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id;
  await ada('PATCH', `/v1/installations/${webhook}/configuration`, {
    url: receiver.script('/hooks', [200]),
    space_content_updated: true,
  });
  await world.admin('POST', '/v1/events', { type: 'space_content_updated', spaceId: 'docs', revisionId: 'r1' });
  page = await world.page({ bypassCSP: true });
}, 120_000);

afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

// Browser steps wait up to 30 s each on a busy machine; a whole test gets 2 minutes.
describe('accessibility (axe, WCAG 2.1 A and AA)', { timeout: 120_000 }, () => {
  it('the sign-in screen', async () => {
    await page.goto(`${world.url}/`);
    await page.getByLabel('API token').waitFor();
    expect(await violations()).toEqual([]);
  });

  it('the overview, the directory and an integration’s page', async () => {
    await signIn(page, world.url, world.tokens.ada);
    await page.getByRole('link', { name: 'Acme' }).first().waitFor();
    expect(await violations()).toEqual([]);
    await page.goto(`${world.url}/integrations`);
    await page.getByRole('link', { name: 'Showcase', exact: true }).waitFor();
    expect(await violations()).toEqual([]);
    // Installed in Acme already: the page offers Open (Install shows only until that is read).
    await page.goto(`${world.url}/integrations/showcase`);
    await page.getByRole('link', { name: 'Open', exact: true }).waitFor();
    expect(await violations()).toEqual([]);
  });

  it('an organization’s page and an installation page with its form and component', async () => {
    await page.goto(`${world.url}/orgs/acme`);
    await page.getByRole('region', { name: 'Members' }).waitFor();
    expect(await violations()).toEqual([]);
    await page.goto(`${world.url}/installations/${showcase}`);
    await page
      .getByRole('region', { name: 'notes' })
      .getByText(/note\(s\)/)
      .waitFor();
    expect(await violations()).toEqual([]);
  });

  it('a webhook installation with its deliveries, and a space with an inserted block', async () => {
    await page.goto(`${world.url}/installations/${webhook}`);
    await page.getByRole('region', { name: 'Deliveries' }).locator('tbody tr').first().waitFor();
    expect(await violations()).toEqual([]);
    await page.goto(`${world.url}/spaces/docs`);
    await page.getByRole('button', { name: 'Insert' }).click();
    expect(await violations()).toEqual([]);
    await page.getByRole('menuitem', { name: 'Gallery', exact: true }).click();
    await page.getByRole('region', { name: 'Gallery' }).getByText('Switch changed 0 times').waitFor();
    expect(await violations()).toEqual([]);
  });
});
