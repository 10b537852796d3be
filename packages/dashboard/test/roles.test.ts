/**
 * The contract's Roles in the dashboard, in Chromium as a person, on SQLite and PostgreSQL: a
 * member of acme sees every management action of a webhook installation disabled with the reason
 * (Save, Send test event, Redeliver, Recover failed since…, choosing spaces, Install) and no
 * Reveal for the signing secret; an admin has them all. Each screen at 1280 and 390 px, with axe.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../platform/src/test-support/backends.js';
import { checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

describe.each(backends)('roles in the dashboard on $name', { timeout: 120_000 }, (backend) => {
  let world: DashboardWorld;
  let org: string;
  let space: string;
  let member: Page;
  let admin: Page;

  beforeAll(async () => {
    world = await startDashboardWorld({ backend });
    const ada = world.as(world.tokens.ada);
    org = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
    space = (await ada('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
    // A URL nothing listens on (port 9 on loopback): the test event fails, and its row has Redeliver.
    await ada('PATCH', `/v1/installations/${space}/configuration`, { url: 'http://127.0.0.1:9/hook' });
    expect((await ada('POST', `/v1/installations/${space}/test-delivery`)).status).toBe(202);
    const bob = (await world.admin('POST', '/v1/users', { id: 'bob', name: 'Bob' })).body.token as string;
    await world.admin('PUT', '/v1/orgs/acme/members/bob', { role: 'member' });
    member = await world.page({ bypassCSP: true });
    await signIn(member, world.url, bob);
    admin = await world.page({ bypassCSP: true });
    await signIn(admin, world.url, world.tokens.ada);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  it('shows a member each management action of a webhook installation disabled, with the reason', async () => {
    await member.goto(`${world.url}/installations/${space}`);
    await member.getByText('Only admins of Acme can change the configuration; you are a member.').waitFor();
    const form = member.getByRole('form', { name: 'Configuration' });
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    expect(await form.getByRole('textbox', { name: /Webhook URL/ }).isDisabled()).toBe(true);
    const deliveries = member.getByRole('region', { name: 'Deliveries' });
    await deliveries.getByText('Only admins of Acme can redeliver; you are a member.').waitFor();
    await deliveries.getByRole('button', { name: 'Redeliver' }).first().waitFor();
    for (const button of await deliveries.getByRole('button', { name: 'Redeliver' }).all()) {
      expect(await button.isDisabled()).toBe(true);
    }
    expect(await member.getByRole('button', { name: 'Recover failed since…' }).isDisabled()).toBe(true);
    await member.getByText('Only admins of Acme can recover failed deliveries; you are a member.').waitFor();
    expect(await member.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    await member
      .getByText('Only admins of Acme can send test events or re-enable an endpoint; you are a member.')
      .waitFor();
    const secret = member.getByRole('region', { name: 'Signing secret' });
    await secret.getByText('Only admins of Acme can reveal or rotate the signing secret; you are a member.').waitFor();
    expect(await secret.getByRole('button', { name: 'Reveal' }).count()).toBe(0);
    expect(await secret.getByRole('button', { name: 'Rotate' }).count()).toBe(0);
    await screenshot(member, 'roles-member-webhook');
    await checkBothWidths(member, 'a member’s view of a webhook installation');
  });

  it('shows a member the organization installation’s places and Install disabled, with the reason', async () => {
    await member.goto(`${world.url}/installations/${org}`);
    await member.getByText('Only admins of Acme can choose where it is installed; you are a member.').waitFor();
    expect(await member.getByRole('button', { name: 'Save spaces' }).isDisabled()).toBe(true);
    expect(await member.getByRole('radio', { name: /All spaces/ }).isDisabled()).toBe(true);
    await checkBothWidths(member, 'a member’s view of an organization installation');
  });

  it('shows a member of an organization without it Install disabled, with the reason', async () => {
    const mo = (await world.admin('POST', '/v1/users', { id: 'mo', name: 'Mo' })).body.token as string;
    await world.admin('PUT', '/v1/orgs/globex/members/mo', { role: 'member' });
    const page = await world.page({ bypassCSP: true });
    await signIn(page, world.url, mo);
    await page.goto(`${world.url}/integrations/webhook`);
    await page.getByText('Only admins of Globex can install integrations; you are a member.').waitFor();
    expect(await page.getByRole('button', { name: 'Install' }).isDisabled()).toBe(true);
    await checkBothWidths(page, 'a member’s view of an integration to install');
  });

  it('gives an admin every one of those actions', async () => {
    await admin.goto(`${world.url}/installations/${space}`);
    // Reveal shows once the role is read (it is not there for a member).
    const secret = admin.getByRole('region', { name: 'Signing secret' });
    await secret.getByRole('button', { name: 'Reveal' }).click();
    await secret.getByText(/^whsec_/).waitFor();
    const form = admin.getByRole('form', { name: 'Configuration' });
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(false);
    const deliveries = admin.getByRole('region', { name: 'Deliveries' });
    expect(await deliveries.getByRole('button', { name: 'Redeliver' }).first().isDisabled()).toBe(false);
    expect(await admin.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(false);
    expect(await admin.getByRole('button', { name: 'Recover failed since…' }).isDisabled()).toBe(false);
    expect(await admin.getByText(/you are a member/).count()).toBe(0);
    await checkBothWidths(admin, 'an admin’s view of a webhook installation');
  });
});
