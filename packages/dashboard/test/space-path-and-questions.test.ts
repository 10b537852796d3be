/**
 * Issue 41, items 9, 10 and 13, in Chromium: a webhook gets onto a space from the space's own page
 * (Add to Docs, for admins; a member sees why not), the new installation's URL field is not red
 * before anything is typed; clearing a required field of an active installation asks first, and
 * Cancel saves nothing; the small things (a response apart from the error, "1 setting missing",
 * a placeholder that says what to choose, ticked checkboxes, radios of one size). Each screen at
 * 1280 and 390 px, with axe.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBothWidths } from './support/axe.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let page: Page;
let receiver: Server;
let hookUrl: string;
let orgInstallation: string;
let spaceInstallation: string;

beforeAll(async () => {
  receiver = createServer((_, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('boom from receiver'));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  world = await startDashboardWorld();
  const ada = world.as(world.tokens.ada);
  orgInstallation = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  page = await world.page({ bypassCSP: true });
  await signIn(page, world.url, world.tokens.ada);
}, 120_000);

afterAll(async () => {
  receiver?.close();
  await world?.close();
});

const form = () => page.getByRole('form', { name: 'Configuration' });
const statusOf = async (id: string) => (await world.as(world.tokens.ada)('GET', `/v1/installations/${id}`)).body.status;

describe('a webhook onto a space, and the questions before a change', { timeout: 120_000 }, () => {
  it("adds the organization's webhook to a space from the space page, its URL field not red before typing", async () => {
    await page.goto(`${world.url}/spaces/docs`);
    await page.getByText('No integration is installed in this space yet: add one below.').waitFor();
    const add = page.getByRole('region', { name: 'Add an integration to Docs' });
    await add.getByRole('link', { name: 'Install another integration' }).waitFor();
    await checkBothWidths(page, 'a space with nothing installed');
    await add.getByRole('button', { name: 'Add Webhooks to Docs' }).click();
    await page.waitForURL(
      (url) => /\/installations\/inst_/.test(url.pathname) && !url.pathname.endsWith(orgInstallation),
    );
    spaceInstallation = page.url().split('/').pop()?.split('#')[0] as string;
    await page.getByText('pending', { exact: true }).first().waitFor();
    const url = form().getByLabel('Webhook URL');
    await url.waitFor();
    expect(await url.getAttribute('aria-invalid')).not.toBe('true');
    expect(await form().getByText('Webhook URL is required').count()).toBe(0);
    await checkBothWidths(page, 'a new space installation, before typing');

    // The space page now lists it (pending, one setting missing) and offers nothing more to add.
    await page.goto(`${world.url}/spaces/docs`);
    await page.getByText('1 setting missing').waitFor();
    await page.getByText('Every integration installed in Acme is here already.').waitFor();
  });

  it('shows a member the way in, disabled with the reason', async () => {
    const bob = (await world.admin('POST', '/v1/users', { id: 'bob', name: 'Bob' })).body.token as string;
    await world.admin('PUT', '/v1/orgs/acme/members/bob', { role: 'member' });
    const member = await world.page({ bypassCSP: true });
    await signIn(member, world.url, bob);
    await member.goto(`${world.url}/sites/site`);
    const add = member.getByRole('region', { name: 'Add an integration to Site' });
    expect(await add.getByRole('button', { name: 'Add Webhooks to Site' }).isDisabled()).toBe(true);
    await add.getByText('Only admins of Acme can add integrations here; you are a member.').waitFor();
    await checkBothWidths(member, 'a site as a member');
  });

  it('asks before clearing a required field of an active installation; Cancel saves nothing', async () => {
    await page.goto(`${world.url}/installations/${spaceInstallation}`);
    await form().getByLabel('Webhook URL').fill(hookUrl);
    await form().getByRole('button', { name: 'Save' }).click();
    await form().getByText('Saved.', { exact: true }).waitFor();
    await expect.poll(() => statusOf(spaceInstallation)).toBe('active');

    await form().getByLabel('Webhook URL').fill('');
    await form().getByRole('button', { name: 'Save' }).click();
    const ask = page.getByRole('alertdialog', { name: 'Clear Webhook URL?' });
    await ask.getByText(/Saved empty, Webhooks becomes pending: it receives no events/).waitFor();
    await checkBothWidths(page, 'the question before clearing a required field');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'hidden' });
    expect(await statusOf(spaceInstallation)).toBe('active');
    expect(
      (await world.as(world.tokens.ada)('GET', `/v1/installations/${spaceInstallation}`)).body.configuration.url,
    ).toBe(hookUrl);

    await form().getByRole('button', { name: 'Save' }).click();
    await ask.getByRole('button', { name: 'Clear and save' }).click();
    await form().getByText('Saved. It stays pending until the fields marked are filled in.').waitFor();
    expect(await statusOf(spaceInstallation)).toBe('pending');

    // Filled in again, it saves without a question.
    await form().getByLabel('Webhook URL').fill(hookUrl);
    await form().getByRole('button', { name: 'Save' }).click();
    await form().getByText('Saved.', { exact: true }).waitFor();
    expect(await page.getByRole('alertdialog').count()).toBe(0);
    await expect.poll(() => statusOf(spaceInstallation)).toBe('active');
  });

  it('shows what the receiver answered apart from the error', async () => {
    expect(
      (await world.as(world.tokens.ada)('POST', `/v1/installations/${spaceInstallation}/test-delivery`)).status,
    ).toBe(202);
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    const row = deliveries.locator('tbody tr[data-delivery]').first();
    await row.getByText('failed', { exact: true }).first().waitFor();
    await row.getByText('1 attempt', { exact: true }).click();
    const cell = row.locator('details table tbody tr td').nth(4);
    await cell.getByText('the receiver answered 400', { exact: true }).waitFor();
    await cell.getByText('boom from receiver', { exact: true }).waitFor();
    expect(await cell.innerText()).toMatch(/the receiver answered 400\s*\n\s*Response: boom from receiver/);
    await checkBothWidths(page, 'a failed attempt with its response');
  });

  it('ticks checked boxes, draws radios one size, and says what a dropdown is for', async () => {
    await page.goto(`${world.url}/installations/${orgInstallation}`);
    const spaces = page.getByRole('group', { name: 'Chosen spaces' });
    await spaces.waitFor();
    const before = (text: string) =>
      page
        .locator('.checkbox, .radio')
        .filter({ hasText: text })
        .first()
        .evaluate((el) => {
          const style = getComputedStyle(el, '::before');
          return { content: style.content, boxSizing: style.boxSizing, width: style.width };
        });
    expect((await before('Docs')).content).toBe('"✓"');
    const chosen = await before('Chosen spaces');
    const all = await before('All spaces');
    expect(chosen.boxSizing).toBe('border-box');
    expect(chosen.width).toBe(all.width);

    const operator = await world.page({ bypassCSP: true });
    await signIn(operator, world.url, world.platform.adminToken);
    await operator.goto(`${world.url}/integrations/webhook`);
    await operator.getByRole('button', { name: /Choose an organization/ }).waitFor();
    expect(await operator.getByText('Select an item').count()).toBe(0);
    await checkBothWidths(operator, 'an integration page for someone of several organizations');
  });
});
