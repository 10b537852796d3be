/**
 * A webhook installation's delivery policy in Chromium, as a person sets it: the Delivery policy
 * dropdown of its form, the chosen policy's schedule in words on its page, and the deliveries made
 * afterwards retried under it.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedReceiver, until } from '../../platform/src/test-support/webhook-world.js';
import { axeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let receiver: ScriptedReceiver;
let page: Page;
let webhook: string;

beforeAll(async () => {
  world = await startDashboardWorld();
  receiver = new ScriptedReceiver();
  await receiver.start();
  const ada = world.as(world.tokens.ada);
  const org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  webhook = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
  page = await world.page({ bypassCSP: true }); // axe's script runs in the page
  await signIn(page, world.url, world.tokens.ada);
}, 120_000);

afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const form = () => page.getByRole('form', { name: 'Configuration' });
const policy = () => form().getByRole('button', { name: /Delivery policy/ });
const stored = async () => (await world.admin('GET', `/v1/installations/${webhook}`)).body.configuration;

describe('a webhook installation’s delivery policy', { timeout: 120_000 }, () => {
  it('is standard at first, and says its schedule in words', async () => {
    await page.goto(`${world.url}/installations/${webhook}`);
    await page.getByText('pending', { exact: true }).waitFor();
    expect(await policy().textContent()).toMatch(/standard/);
    await page.getByText(/^Retries: Standard: the first attempt, then retries after 1, 2 and 4 seconds/).waitFor();
    expect((await stored()).delivery_policy).toBe('standard');
  });

  it('is set to extended with the dropdown and Save; the page then shows the extended schedule', async () => {
    const url = receiver.script('/policy', [503, 200]);
    await form().getByLabel('Webhook URL').fill(url);
    await form().getByText('Content updates (spaces)').click();
    await policy().click();
    expect(await page.getByRole('option').allTextContents()).toEqual(['standard', 'extended']);
    await page.getByRole('option', { name: 'extended' }).click();
    await form().getByRole('button', { name: 'Save' }).click();
    await form().getByText('Saved.', { exact: true }).waitFor();
    await page.getByText('active', { exact: true }).waitFor();
    await page.getByText(/^Retries: Extended: the first attempt, then retries after 5 s, .* every 2 hours/).waitFor();
    expect(await page.getByText(/^Retries: Standard/).count()).toBe(0);
    expect((await stored()).delivery_policy).toBe('extended');
    await screenshot(page, 'webhook-delivery-policy');
    expect(await axeViolations(page)).toEqual([]);

    // After a reload, the dropdown shows what is stored.
    await page.reload();
    await page.getByText('active', { exact: true }).waitFor();
    expect(await policy().textContent()).toMatch(/extended/);
  });

  it('applies to the deliveries made afterwards', async () => {
    const sent = await world.admin('POST', '/v1/events', {
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r-policy',
      eventId: 'event-policy',
    });
    expect(sent.status).toBe(202);
    const delivery = await until('the delivery, retried once and delivered', async () => {
      const [found] = (await world.admin('GET', `/v1/installations/${webhook}/deliveries?eventId=event-policy`)).body;
      return found?.status === 'delivered' ? found : undefined;
    });
    expect(delivery).toMatchObject({ policy: 'extended', attempts: [{ status: 503 }, { status: 200 }] });
  });
});
