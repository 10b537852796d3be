/**
 * Nothing wrong is saved (issue 24, "What was seen" 2), in Chromium as a person: a webhook URL that
 * is not an absolute http(s) URL, text of only spaces for a required field, a number too large to
 * store. Each gets the field's error, nothing is stored, and after each save the form shows what
 * the server has. An active webhook with no event selected says so. Each screen at 1280 and 390 px,
 * with axe.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedReceiver } from '../../platform/src/test-support/webhook-world.js';
import { axeViolations, checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
let world: DashboardWorld;
let receiver: ScriptedReceiver;
let page: Page;
let webhook: string;
let showcase: string;

beforeAll(async () => {
  world = await startDashboardWorld();
  await world.publish(`${fixtures}showcase`);
  receiver = new ScriptedReceiver();
  await receiver.start();
  const ada = world.as(world.tokens.ada);
  const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  webhook = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
  showcase = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'showcase' })).body.id as string;
  page = await world.page({ bypassCSP: true });
  await signIn(page, world.url, world.tokens.ada);
}, 120_000);

afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const form = () => page.getByRole('form', { name: 'Configuration' });
const stored = async (id: string) => (await world.admin('GET', `/v1/installations/${id}`)).body;

describe('nothing wrong is saved', { timeout: 120_000 }, () => {
  it('refuses a webhook URL that is not an absolute http(s) URL, beside the field, and stores nothing', async () => {
    await page.goto(`${world.url}/installations/${webhook}`);
    await page.getByText('pending', { exact: true }).waitFor();
    // Only the events of a space are offered.
    expect(await form().getByRole('switch').count()).toBe(1);
    expect(await form().getByText('Site views (sites)').count()).toBe(0);

    for (const [typed, said] of [
      ['not a url', /Webhook URL must be an absolute URL starting with https:\/\/ or http:\/\//],
      ['ftp://127.0.0.1:3997/hook', /Webhook URL must start with https:\/\/ or http:\/\/ \(not ftp:\/\/\)/],
    ] as const) {
      await form().getByLabel('Webhook URL').fill(typed);
      await form().getByRole('button', { name: 'Save' }).click();
      await form().getByText(said).waitFor();
      await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
      expect(await form().getByLabel('Webhook URL').getAttribute('aria-invalid')).toBe('true');
      expect((await stored(webhook)).configuration.url).toBeUndefined();
      await page.getByText('pending', { exact: true }).waitFor();
    }
    await screenshot(page, 'webhook-url-refused');
    await checkBothWidths(page, 'a refused webhook URL');
  });

  it('refuses what only the server can tell, with the field’s error (a bypass of the browser’s check)', async () => {
    const refused = await page.evaluate(async (id) => {
      const { csrfToken } = await (await fetch('/v1/session')).json();
      const response = await fetch(`/v1/installations/${id}/configuration`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: JSON.stringify({ url: 'ftp://127.0.0.1:3997/hook', space_content_updated: true }),
      });
      return { status: response.status, body: await response.json() };
    }, webhook);
    expect(refused.status).toBe(400);
    expect(refused.body.error.errors).toEqual([
      {
        path: 'url',
        message:
          '`url` must be an absolute https or http URL, such as https://example.com/webhooks: ftp: is not http or https',
      },
    ]);
    expect((await stored(webhook)).configuration).toEqual({
      space_content_updated: false,
      site_view: false,
      page_feedback: false,
      delivery_policy: 'standard',
    });
  });

  it('saves a good URL, says that no event is selected, and stops saying so once one is', async () => {
    const url = receiver.script('/hooks', [200]);
    await form().getByLabel('Webhook URL').fill(url);
    await form().getByRole('button', { name: 'Save' }).click();
    await page.getByText('active', { exact: true }).waitFor();
    await form().getByRole('status').getByText('Saved.').waitFor();
    await page.getByText('No event is selected: nothing is delivered until you select at least one event').waitFor();
    expect((await stored(webhook)).configuration.url).toBe(url);
    await screenshot(page, 'webhook-no-event');
    await checkBothWidths(page, 'an active webhook with no event selected');

    await form().getByText('Content updates (spaces)').click();
    // An edit since the save: the old "Saved." goes.
    expect(await form().getByRole('status').textContent()).toBe('');
    await form().getByRole('button', { name: 'Save' }).click();
    await form().getByRole('status').getByText('Saved.').waitFor();
    await expect.poll(() => page.getByText('No event is selected').count()).toBe(0);
  });

  it('counts a required field of only spaces as missing, and shows what the server stored', async () => {
    await page.goto(`${world.url}/installations/${showcase}`);
    await page.getByText('pending', { exact: true }).waitFor();
    await form().getByLabel('API key').fill('key-1');
    await form().getByRole('combobox', { name: 'Project' }).fill('apollo');
    await form().getByRole('button', { name: 'Save' }).click();
    await page.getByText('active', { exact: true }).waitFor();

    await form().getByLabel('API key').fill('    ');
    await form().getByRole('button', { name: 'Save' }).click();
    // Emptying a required field of an active installation asks first (issue 41, item 10).
    await page
      .getByRole('alertdialog', { name: 'Clear API key?' })
      .getByRole('button', { name: 'Clear and save' })
      .click();
    await page.getByText('pending', { exact: true }).waitFor();
    // Named by its title, without Markdown backticks, and the field shows what is stored: nothing.
    await form().getByText('API key is required').waitFor();
    expect(await form().textContent()).not.toContain('`');
    expect(await form().getByLabel('API key').inputValue()).toBe('');
    expect((await stored(showcase)).configuration.api_key).toBeUndefined();
    expect(await page.getByRole('list', { name: 'What is missing' }).textContent()).toBe('API key is required');
    await checkBothWidths(page, 'a required field of only spaces');
  });

  it('refuses a number too large to store, beside the field, and keeps the stored one', async () => {
    await form().getByLabel('API key').fill('key-2');
    await form().getByLabel('Limit').fill('1.5e400');
    await form().getByRole('button', { name: 'Save' }).click();
    await form()
      .getByText(/Limit is too large to store: enter a number between/)
      .waitFor();
    const after = await stored(showcase);
    expect(after.configuration).toMatchObject({ limit: 10 });
    expect(after.configuration.api_key).toBeUndefined();

    await form().getByLabel('Limit').fill('ten');
    await form().getByRole('button', { name: 'Save' }).click();
    await form().getByText('Limit must be a number, such as 10 or 2.5 (with a dot for decimals)').waitFor();
    await checkBothWidths(page, 'a refused number');
    expect((await stored(showcase)).configuration).toMatchObject({ limit: 10 });

    await form().getByLabel('Limit').fill('12');
    await form().getByRole('button', { name: 'Save' }).click();
    await page.getByText('active', { exact: true }).waitFor();
    expect((await stored(showcase)).configuration).toMatchObject({ api_key: 'key-2', limit: 12 });
  });

  it('keeps what was typed when the session has ended: a dialog signs in again, then Save works', async () => {
    await page.goto(`${world.url}/installations/${showcase}`);
    await page.getByText('active', { exact: true }).waitFor();
    // The session ends behind the page's back (signed out in another tab).
    await page.evaluate(async () => {
      const { csrfToken } = await (await fetch('/v1/session')).json();
      await fetch('/v1/session', { method: 'DELETE', headers: { 'x-csrf-token': csrfToken } });
    });
    await form().getByLabel('API key').fill('typed-before-the-end');
    await form().getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.waitFor();
    await page.getByText('Not saved: your session has ended: sign in again, then try once more').waitFor();
    await screenshot(page, 'session-ended');
    await checkBothWidths(page, 'the session-ended dialog');
    await dialog.getByLabel('API token').fill(world.tokens.ada);
    await dialog.getByRole('button', { name: 'Sign in again' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await form().getByLabel('API key').inputValue()).toBe('typed-before-the-end');
    await form().getByRole('button', { name: 'Save' }).click();
    await form().getByRole('status').getByText('Saved.').waitFor();
    expect((await stored(showcase)).configuration.api_key).toBe('typed-before-the-end');
  });

  it('shows the same at 390 px wide', async () => {
    const narrow = await world.page({ width: 390, height: 844, bypassCSP: true });
    await signIn(narrow, world.url, world.tokens.ada);
    await narrow.goto(`${world.url}/installations/${webhook}`);
    const narrowForm = narrow.getByRole('form', { name: 'Configuration' });
    await narrowForm.getByLabel('Webhook URL').fill('not a url');
    await narrowForm.getByRole('button', { name: 'Save' }).click();
    await narrowForm.getByText(/Webhook URL must be an absolute URL/).waitFor();
    const width = await narrow.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await screenshot(narrow, 'webhook-url-refused-390');
    expect(await axeViolations(narrow)).toEqual([]);
  });
});
