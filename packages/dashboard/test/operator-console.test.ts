/**
 * The operator console (issue 41, item 12), in Chromium with the admin token: organizations
 * (create one), users (create one, mint a sign-in link to copy), spaces, sites and members on an
 * organization's page, and the failing and disabled endpoints of every organization with a link to
 * each one's Endpoint health and Re-enable. The sign-in page says how sign-in links work and where
 * the admin token is. Each screen at 1280 and 390 px, with axe.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../platform/src/test-support/webhook-world.js';
import { checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let receiver: Server;
let gone: string;
let broken: string;
let space: string;
let site: string;
let operator: Page;

/** Points the installation at `url` and waits for a test event to it to fail. */
async function failAt(installation: string, url: string) {
  const ada = world.as(world.tokens.ada);
  expect((await ada('PATCH', `/v1/installations/${installation}/configuration`, { url })).status).toBe(200);
  const test = await ada('POST', `/v1/installations/${installation}/test-delivery`);
  expect(test.status).toBe(202);
  await until('the test delivery to fail', async () => {
    const { body } = await ada('GET', `/v1/deliveries/${test.body.id}`);
    return body.status === 'failed' ? true : undefined;
  });
}

beforeAll(async () => {
  receiver = createServer((req, res) => res.writeHead(req.url === '/gone' ? 410 : 400).end('no'));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  gone = `${base}/gone`;
  broken = `${base}/broken`;
  world = await startDashboardWorld();
  const ada = world.as(world.tokens.ada);
  const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  space = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
  site = (await ada('POST', `/v1/installations/${org}/sites/site`)).body.id as string;
  await failAt(space, gone);
  await failAt(site, broken);
  operator = await world.page({ bypassCSP: true });
  await signIn(operator, world.url, world.platform.adminToken);
}, 120_000);

afterAll(async () => {
  receiver?.close();
  await world?.close();
});

describe('the operator console', { timeout: 120_000 }, () => {
  it('is the overview of the admin token, with "Operator" as a name, not a link', async () => {
    await operator.getByRole('heading', { level: 1, name: 'Operator console' }).waitFor();
    expect(await operator.title()).toBe('Operator console · Portico');
    const banner = operator.getByRole('banner');
    await banner.getByText('Operator', { exact: true }).waitFor();
    expect(await banner.getByRole('link', { name: /Operator/ }).count()).toBe(0);
    const sections = operator.getByRole('navigation', { name: 'Console sections' });
    for (const name of ['Organizations', 'Users', 'Endpoints', 'Permission requests']) {
      await sections.getByRole('link', { name }).waitFor();
    }
    // The place the permission requests of issue 44 go.
    await operator.getByRole('heading', { level: 2, name: 'Permission requests' }).waitFor();
    await screenshot(operator, 'operator-console');
    await checkBothWidths(operator, 'the operator console');
  });

  it('creates an organization, saying a wrong id before it is sent', async () => {
    const form = operator.getByRole('form', { name: 'Create an organization' });
    await form.getByRole('textbox', { name: 'Title' }).fill('Initech');
    await form.getByRole('textbox', { name: 'ID' }).fill('not an id!');
    await form.getByRole('button', { name: 'Create organization' }).click();
    await form.getByText('Use 1 to 64 letters, digits').waitFor();
    expect((await world.admin('GET', '/v1/orgs')).body.map((o: { id: string }) => o.id)).not.toContain('not an id!');
    await form.getByRole('textbox', { name: 'ID' }).fill('initech');
    await form.getByRole('button', { name: 'Create organization' }).click();
    await operator.getByRole('status').filter({ hasText: 'Created Initech.' }).waitFor();
    const panel = operator.getByRole('region', { name: 'Organizations' });
    await panel.getByRole('link', { name: 'Initech' }).waitFor();
    expect(await form.getByRole('textbox', { name: 'ID' }).inputValue()).toBe('');
    // The same id again: the server's refusal, said at the form.
    await form.getByRole('textbox', { name: 'Title' }).fill('Initech again');
    await form.getByRole('textbox', { name: 'ID' }).fill('initech');
    await form.getByRole('button', { name: 'Create organization' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/was not created.*initech/);
  });

  it('creates a user, shows their token once, and mints a sign-in link that signs them in', async () => {
    const form = operator.getByRole('form', { name: 'Create a user' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Zoe');
    await form.getByRole('textbox', { name: 'ID' }).fill('zoe');
    await form.getByRole('button', { name: 'Create user' }).click();
    const token = operator.getByRole('textbox', { name: 'API token of Zoe' });
    await token.waitFor();
    expect(await token.inputValue()).toMatch(/^\S{20,}$/);
    const users = operator.getByRole('region', { name: 'Users' });
    await users.getByRole('heading', { name: 'Zoe (zoe)' }).waitFor();

    await users.getByRole('button', { name: 'Make a sign-in link for Ada' }).click();
    const link = users.getByRole('textbox', { name: 'Sign-in link for Ada' });
    await link.waitFor();
    const url = await link.inputValue();
    expect(url).toMatch(new RegExp(`^${world.url}/#code=`));
    await users.getByText(/It works once, until/).waitFor();
    await users.getByRole('button', { name: 'Copy sign-in link for ada' }).click();
    await users
      .getByRole('status')
      .filter({ hasText: /Copied|Selected/ })
      .first()
      .waitFor();
    await checkBothWidths(operator, 'the operator console with a new user and a sign-in link');

    const ada = await world.page();
    await ada.goto(url);
    await ada.getByRole('banner').getByText('Ada', { exact: true }).waitFor();
    await ada.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  it('lists disabled, then failing endpoints of every organization; Re-enable takes one off', async () => {
    const panel = operator.getByRole('region', { name: 'Failing and disabled endpoints' });
    const cards = panel.getByRole('listitem');
    await expect.poll(() => cards.count()).toBe(2);
    expect(await cards.nth(0).textContent()).toContain(gone);
    await cards.nth(0).getByText('webhook in space Docs of Acme').waitFor();
    await cards
      .nth(0)
      .getByText(/410 Gone/)
      .waitFor();
    expect(await cards.nth(1).textContent()).toContain(broken);
    await cards.nth(1).getByText('webhook in site Site of Acme').waitFor();
    await cards
      .nth(1)
      .getByText(/Failing since .*, 1 failed in a row/)
      .waitFor();
    expect(
      await cards
        .nth(1)
        .getByRole('button', { name: /Re-enable/ })
        .count(),
    ).toBe(0);
    await checkBothWidths(operator, 'the operator console with endpoints in trouble');

    await panel.getByRole('button', { name: `Re-enable ${gone}` }).click();
    await panel
      .getByRole('status')
      .filter({ hasText: `Re-enabled ${gone}` })
      .waitFor();
    await expect.poll(() => cards.count()).toBe(1);
    const endpoints = (await world.admin('GET', `/v1/installations/${space}/endpoints`)).body;
    expect(endpoints.find((e: { url: string }) => e.url === gone).state).toBe('healthy');

    await panel.getByRole('link', { name: `Endpoint health of ${broken}` }).click();
    await operator.waitForURL(`${world.url}/installations/${site}#endpoints-heading`);
    await operator.getByRole('heading', { name: 'Endpoint health' }).waitFor();
  });

  it("adds spaces, sites and members on an organization's page", async () => {
    await operator.goto(`${world.url}/orgs/initech`);
    await operator.getByRole('heading', { level: 1, name: 'Initech' }).waitFor();
    await operator.getByText('Create a space').click();
    const spaceForm = operator.getByRole('form', { name: 'Create a space' });
    await spaceForm.getByRole('textbox', { name: 'Title' }).fill('Guides');
    await spaceForm.getByRole('textbox', { name: 'ID' }).fill('guides');
    await spaceForm.getByRole('button', { name: 'Create space' }).click();
    await operator.getByRole('region', { name: 'Spaces' }).getByRole('link', { name: 'Guides' }).waitFor();
    await operator.getByText('Create a site').click();
    const siteForm = operator.getByRole('form', { name: 'Create a site' });
    await siteForm.getByRole('textbox', { name: 'Title' }).fill('Help center');
    await siteForm.getByRole('textbox', { name: 'ID' }).fill('help');
    await siteForm.getByRole('button', { name: 'Create site' }).click();
    await operator.getByRole('region', { name: 'Sites' }).getByRole('link', { name: 'Help center' }).waitFor();

    await operator.getByText('Add a member').first().click();
    const memberForm = operator.getByRole('form', { name: 'Add a member' });
    await memberForm.getByRole('button', { name: /User/ }).click();
    await operator.getByRole('option', { name: 'Zoe (zoe)' }).click();
    await memberForm.getByText('Admin (installs and manages integrations)').click();
    expect(await memberForm.getByRole('radio', { name: /Admin/ }).isChecked()).toBe(true);
    await memberForm.getByRole('button', { name: 'Add member' }).click();
    await memberForm.getByRole('status').filter({ hasText: 'Zoe is now an admin here.' }).waitFor();
    await operator
      .getByRole('region', { name: 'Members' })
      .getByRole('listitem')
      .filter({ hasText: 'Zoe (admin)' })
      .waitFor();
    expect((await world.admin('GET', '/v1/orgs/initech')).body.members).toEqual([
      { id: 'zoe', name: 'Zoe', role: 'admin' },
    ]);
    await screenshot(operator, 'operator-organization');
    await checkBothWidths(operator, "an organization's page for the operator");
  });
});

describe('the sign-in page', { timeout: 60_000 }, () => {
  it('says how sign-in links work and where the admin token is', async () => {
    const page = await world.page({ bypassCSP: true });
    await page.goto(`${world.url}/`);
    const how = page.getByRole('region', { name: 'Other ways in' });
    await how.getByText(/Each link works once, within 15 minutes/).waitFor();
    await how.getByText(/printed by portico serve on its first start/).waitFor();
    await how.getByText(/\.portico-dev\/admin-token/).waitFor();
    await checkBothWidths(page, 'the sign-in page');
  });
});
