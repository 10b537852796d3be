/**
 * Names, not ids, and feedback after every action (issue 24, "What was seen" 3, 5 and 6), in
 * Chromium as a person: titles of the organization, space and people; event names in words;
 * a confirmation before Pause (saying events are not kept) and Uninstall, and a word after each;
 * a member sees Pause and Uninstall disabled with the reason. Each screen at 1280 and 390 px, with axe.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
let world: DashboardWorld;
let page: Page;
let org: string;
let space: string;
let memberToken: string;

beforeAll(async () => {
  world = await startDashboardWorld();
  // Titles that differ from the ids, as a documentation product syncs them.
  await world.admin('POST', '/v1/orgs/acme/spaces', { id: 'handbook', title: 'Product handbook' });
  const ada = world.as(world.tokens.ada);
  org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  space = (await ada('POST', `/v1/installations/${org}/spaces/handbook`)).body.id as string;
  memberToken = (await world.admin('POST', '/v1/users', { id: 'bob', name: 'Bob Builder' })).body.token as string;
  await world.admin('PUT', '/v1/orgs/acme/members/bob', { role: 'member' });
  page = await world.page({ bypassCSP: true });
  await signIn(page, world.url, world.tokens.ada);
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe('names and feedback', { timeout: 120_000 }, () => {
  it('names the person, the place, the organization and the publisher by their titles', async () => {
    await page.getByRole('banner').getByText('Ada', { exact: true }).waitFor();
    await page.goto(`${world.url}/installations/${space}`);
    const where = page.locator('.page-head p.muted');
    await where.getByRole('link', { name: 'Product handbook' }).waitFor();
    await where.getByRole('link', { name: 'Acme' }).waitFor();
    expect(await where.textContent()).toMatch(/^Installed in the space Product handbook of Acme/);
    expect(await where.textContent()).not.toMatch(/handbook ·|space handbook|organization acme/);

    // The Events log: event names in words, system events (behind "system events") too. The
    // webhook integration gets no setup event (decision 052): the screen it draws here is one.
    const events = page.getByRole('region', { name: 'Events' });
    await events.getByText('Show system events').click();
    await events.getByText('Screen drawn').first().waitFor();
    expect(await events.textContent()).not.toMatch(/ui_render|space_installation_setup/);
    await screenshot(page, 'installation-names');
    await checkBothWidths(page, 'a space installation with its system events shown');

    await page.goto(`${world.url}/installations/${org}`);
    const installedIn = page.getByRole('list', { name: 'Installed in' });
    await installedIn.getByRole('link', { name: 'Product handbook' }).waitFor();
    await checkBothWidths(page, 'an organization installation');

    await page.goto(`${world.url}/integrations/webhook`);
    await page.getByText(/^By Portico · version/).waitFor();
    // Installed already: it says so and opens it, instead of an Install that would be refused.
    await page.getByText('Installed', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Install' }).count()).toBe(0);
    await checkBothWidths(page, 'an installed integration’s page');
    await page.getByRole('link', { name: 'Open', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    expect(page.url()).toBe(`${world.url}/installations/${org}`);
    await page.goto(`${world.url}/integrations`);
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Webhooks' }) });
    await card.getByText('Installed in Acme').waitFor();
    await card.getByRole('link', { name: 'Open Webhooks in Acme' }).waitFor();
    await screenshot(page, 'integrations-installed');
    await checkBothWidths(page, 'the directory with an installed integration');

    await page.goto(`${world.url}/spaces/handbook`);
    await page.getByText('A space of').getByRole('link', { name: 'Acme' }).waitFor();
    await checkBothWidths(page, 'a space');
  });

  it('shows what the integration did first: system events behind a filter, an event it does not handle as not handled', async () => {
    await world.publish(`${fixtures}showcase`);
    const ada = world.as(world.tokens.ada);
    const showcase = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'showcase' })).body.id as string;
    await ada('PATCH', `/v1/installations/${showcase}/configuration`, { api_key: 'key-1', project: 'apollo' });
    const inDocs = (await ada('POST', `/v1/installations/${showcase}/spaces/docs`)).body.id as string;
    await page.goto(`${world.url}/installations/${inDocs}`);
    const events = page.getByRole('region', { name: 'Events' });
    // Its setup event and the dashboard's renders are system events: hidden until asked for.
    await events.getByText('Only system events so far: tick the box above to see them.').waitFor();
    expect(await events.getByText('Setup (space)').count()).toBe(0);
    await events.getByText('Show system events').click();
    // The showcase has no handler for its setup event: it answers 404, which reads "not handled", not as a failure.
    const row = events.locator('tbody tr', { hasText: 'Setup (space)' });
    await row.getByText('not handled', { exact: true }).waitFor();
    expect(await row.getAttribute('data-status')).toBe('not-handled');
    expect(await events.getByText('failed').count()).toBe(0);
    await screenshot(page, 'events-not-handled');
    await checkBothWidths(page, 'an event not handled');
  });

  it('says what Save spaces did, and forgets it once the choice changes', async () => {
    await page.goto(`${world.url}/installations/${org}`);
    await page.getByRole('checkbox', { name: 'Docs' }).check({ force: true });
    await page.getByRole('button', { name: 'Save spaces' }).click();
    await page.getByRole('status').getByText('Saved: installed in Product handbook, Docs.').waitFor();
    await page.getByRole('list', { name: 'Installed in' }).getByRole('link', { name: 'Docs' }).waitFor();
    await checkBothWidths(page, 'the confirmation of Save spaces');
    await page.getByRole('checkbox', { name: 'Docs' }).uncheck({ force: true });
    await expect.poll(() => page.getByText('Saved: installed in').count()).toBe(0);
  });

  it('asks before Pause, saying that events are not kept; Cancel changes nothing; Resume says so', async () => {
    await page.goto(`${world.url}/installations/${space}`);
    await page.getByText('pending', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    const question = page.getByRole('alertdialog', { name: 'Pause Webhooks?' });
    expect(await question.textContent()).toMatch(/they are not kept: events sent meanwhile are never delivered/);
    await screenshot(page, 'pause-question');
    await checkBothWidths(page, 'the Pause question');
    await question.getByRole('button', { name: 'Cancel' }).click();
    expect((await world.admin('GET', `/v1/installations/${space}`)).body.status).toBe('pending');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Pause' }).click();
    await page.getByText('paused', { exact: true }).waitFor();
    await page.getByRole('status').getByText('Paused: it receives no events until you resume it.').waitFor();
    await checkBothWidths(page, 'a paused installation');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('status').getByText('Resumed: it receives events again.').waitFor();
  });

  it('shows a member Pause and Uninstall disabled, with the reason', async () => {
    const member = await world.page({ bypassCSP: true });
    await signIn(member, world.url, memberToken);
    await member.getByRole('banner').getByText('Bob Builder', { exact: true }).waitFor();
    await member.goto(`${world.url}/installations/${space}`);
    await member.getByText('Only organization admins can pause, resume or uninstall it.').waitFor();
    expect(await member.getByRole('button', { name: 'Pause' }).isDisabled()).toBe(true);
    expect(await member.getByRole('button', { name: 'Uninstall' }).isDisabled()).toBe(true);
    // Configuring is an admin's call too (the contract's Roles): Save is disabled, with the reason.
    expect(
      await member.getByRole('form', { name: 'Configuration' }).getByRole('button', { name: 'Save' }).isDisabled(),
    ).toBe(true);
    await member.getByText('Only admins of Acme can change the configuration; you are a member.').waitFor();
    await screenshot(member, 'member-installation');
    await checkBothWidths(member, 'a member’s view of an installation');
  });

  it('asks before Uninstall, then says it was done on the page it lands on', async () => {
    await page.goto(`${world.url}/installations/${space}`);
    await page.getByRole('button', { name: 'Uninstall' }).click();
    const question = page.getByRole('alertdialog', { name: 'Uninstall Webhooks?' });
    expect(await question.textContent()).toMatch(/cannot be undone/);
    await checkBothWidths(page, 'the Uninstall question');
    await question.getByRole('button', { name: 'Uninstall' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page
      .getByRole('status')
      .getByText('Webhooks was uninstalled: its settings and tokens are removed.')
      .waitFor();
    expect(page.url()).toBe(`${world.url}/installations/${org}`);
    await checkBothWidths(page, 'the page after Uninstall');
    expect((await world.admin('GET', `/v1/installations/${space}`)).status).toBe(404);
  });
});
