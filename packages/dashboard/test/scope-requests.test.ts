/**
 * Granted scopes in the dashboard (DESIGN.md "Granted scopes"), in Chromium as a person: the
 * install confirmation lists what the integration is granted before the admin confirms; a newer
 * version asking for more shows "Asks for new permissions" on the installation page and in the
 * organization's list, with Accept and Uninstall disabled for a member (with the reason); an
 * admin accepts it, or uninstalls without accepting; the operator console lists the request. Each
 * screen at 1280 and 390 px, with axe.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const manifest = (scopes: string) => `name: asker
title: Asker
description: Asks for more in each version
organization: globex
visibility: public
scopes: [${scopes}]
`;

describe('permission requests in the dashboard', { timeout: 120_000 }, () => {
  let world: DashboardWorld;
  let admin: Page;
  let member: Page;
  let installationId: string;

  const publish = async (scopes: string) => {
    const published = await world.as(world.tokens.carol)('POST', '/v1/integrations', {
      manifest: manifest(scopes),
      script: 'export default { fetch: () => new Response("{}") };',
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
  };
  const scopes = async () => (await world.admin('GET', `/v1/installations/${installationId}`)).body.scopes;

  beforeAll(async () => {
    world = await startDashboardWorld();
    await publish('space:content:read');
    const bob = (await world.admin('POST', '/v1/users', { id: 'bob', name: 'Bob' })).body.token as string;
    await world.admin('PUT', '/v1/orgs/acme/members/bob', { role: 'member' });
    admin = await world.page({ bypassCSP: true });
    await signIn(admin, world.url, world.tokens.ada);
    member = await world.page({ bypassCSP: true });
    await signIn(member, world.url, bob);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  it('lists what installing grants before the admin confirms', async () => {
    await admin.goto(`${world.url}/integrations/asker`);
    await admin.getByRole('button', { name: 'Install' }).click();
    const dialog = admin.getByRole('alertdialog', { name: 'Install Asker in Acme?' });
    const granted = dialog.getByRole('list', { name: 'Permissions it is granted' });
    expect(await granted.getByRole('listitem').allTextContents()).toEqual([
      'Read the content of your spaces space:content:read',
    ]);
    await screenshot(admin, 'install-confirmation');
    // Cancel installs nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await world.admin('GET', '/v1/orgs/acme')).body.installations).toEqual([]);
    await admin.getByRole('button', { name: 'Install' }).click();
    await dialog.getByRole('button', { name: 'Install' }).click();
    await admin.waitForURL(/\/installations\/[^/]+$/);
    installationId = admin.url().split('/').pop() as string;
    expect(await scopes()).toEqual({ granted: ['space:content:read'], requested: [] });
    await admin.getByRole('heading', { level: 1, name: 'Asker' }).waitFor();
    expect(await admin.getByRole('region', { name: 'Asks for new permissions' }).count()).toBe(0);
  });

  it('shows a member the request with Accept and Uninstall disabled, and why', async () => {
    await publish('space:content:read, space:git:sync');
    for (const path of [`/installations/${installationId}`, '/orgs/acme']) {
      await member.goto(`${world.url}${path}`);
      const request = member.getByRole('region', { name: 'Asks for new permissions' });
      // (What each scope allows comes with the integration's page, read beside the installation.)
      await request.getByText('Manage Git sync in your spaces').waitFor();
      expect(
        await request.getByRole('list', { name: 'New permissions' }).getByRole('listitem').allTextContents(),
      ).toEqual(['Manage Git sync in your spaces space:git:sync']);
      expect(await request.getByRole('button', { name: 'Accept' }).isDisabled()).toBe(true);
      expect(await request.getByRole('button', { name: 'Uninstall' }).isDisabled()).toBe(true);
      await request
        .getByText('Only admins of Acme can accept new permissions or uninstall; you are a member.')
        .waitFor();
      await checkBothWidths(member, `a member’s view of a permission request at ${path}`);
    }
    await screenshot(member, 'scope-request-member');
    await member.setViewportSize({ width: 390, height: 844 });
    await screenshot(member, 'scope-request-member-390');
    await member.setViewportSize({ width: 1280, height: 900 });
  });

  it('lists the request in the operator console, with a way to the installation', async () => {
    const operator = await world.page({ bypassCSP: true });
    await signIn(operator, world.url, world.platform.adminToken);
    await operator.goto(world.url);
    const panel = operator.getByRole('region', { name: 'Permission requests' });
    await panel.getByText('Asks for new permissions: space:git:sync').waitFor();
    expect(await panel.getByText('Granted: space:content:read').count()).toBe(1);
    await checkBothWidths(operator, 'the operator console with a permission request');
    await panel.getByRole('link', { name: 'Review the request of asker in acme' }).click();
    await operator.getByRole('region', { name: 'Asks for new permissions' }).waitFor();
    expect(new URL(operator.url()).pathname).toBe(`/installations/${installationId}`);
    await operator.close();
  });

  it('lets an admin accept it: the grant widens and the request is gone', async () => {
    await admin.goto(`${world.url}/installations/${installationId}`);
    const request = admin.getByRole('region', { name: 'Asks for new permissions' });
    await request.waitFor();
    expect(await admin.getByText('Only admins of Acme can accept').count()).toBe(0);
    await screenshot(admin, 'scope-request-admin');
    await checkBothWidths(admin, 'an admin’s view of a permission request');
    await request.getByRole('button', { name: 'Accept' }).click();
    await admin.getByRole('status').filter({ hasText: 'New permissions accepted' }).waitFor();
    await request.waitFor({ state: 'detached' });
    expect(await scopes()).toEqual({ granted: ['space:content:read', 'space:git:sync'], requested: [] });
  });

  it('lets an admin uninstall from the organization’s list without accepting', async () => {
    await publish('space:content:read, space:git:sync, space:metadata:read');
    await admin.goto(`${world.url}/orgs/acme`);
    const request = admin.getByRole('region', { name: 'Asks for new permissions' });
    await request.getByText('Read the metadata of your spaces').waitFor();
    await screenshot(admin, 'scope-request-organization');
    await request.getByRole('button', { name: 'Uninstall' }).click();
    await admin
      .getByRole('alertdialog', { name: 'Uninstall Asker?' })
      .getByRole('button', { name: 'Uninstall' })
      .click();
    await request.waitFor({ state: 'detached' });
    expect((await world.admin('GET', `/v1/installations/${installationId}`)).status).toBe(404);
  });
});
