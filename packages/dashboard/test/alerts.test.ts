/**
 * The organization page's Alerts region in Chromium, at 1280 and 390 px: an admin sets the alert
 * URL (a refused URL shows the server's message under the field and stores nothing), sees what was
 * saved, reveals (and rotates) the alert signing secret and clears the URL; a member sees the URL read-only with
 * the reason; axe finds nothing.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let cy: string;

beforeAll(async () => {
  world = await startDashboardWorld();
  cy = (await world.admin('POST', '/v1/users', { id: 'cy', name: 'Cy' })).body.token as string;
  await world.admin('PUT', '/v1/orgs/acme/members/cy', { role: 'member' });
}, 120_000);

afterAll(async () => {
  await world?.close();
});

const stored = async () => (await world.admin('GET', '/v1/orgs/acme/alert-url')).body.url as string | null;

async function openAlerts(page: Page, token: string) {
  await signIn(page, world.url, token);
  await page.goto(`${world.url}/orgs/acme`);
  await page.getByRole('heading', { level: 1, name: 'Acme' }).waitFor();
  const region = page.getByRole('region', { name: 'Alerts' });
  await region.waitFor();
  return region;
}

describe('the organization’s alert URL', { timeout: 120_000 }, () => {
  for (const width of [1280, 390]) {
    it(`an admin sets it (a refused URL shows why, under the field), reveals the secret and clears it, at ${width} px`, async () => {
      const page = await world.page({ width, height: 900, bypassCSP: true });
      const alerts = await openAlerts(page, world.tokens.ada);
      const field = alerts.getByRole('textbox', { name: 'Alert URL' });
      await field.fill('ftp://ops.example.com/alerts');
      await alerts.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
      const described = await field.evaluate((input) =>
        (input.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
      expect(described).toMatch(
        /Alert URL must be an absolute https or http URL, such as https:\/\/ops\.example\.com\/portico-alerts: ftp: is not http or https/,
      );
      expect(await stored()).toBeNull();
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `organization-alert-url-refused-${width}`);

      const url = `https://ops.example.com/acme-alerts-${width}`;
      await field.fill(url);
      expect(await field.getAttribute('aria-invalid')).toBeNull();
      await alerts.getByRole('button', { name: 'Save' }).click();
      await alerts
        .getByRole('status')
        .filter({ hasText: `Saved: alerts about this organization’s installations go to ${url}.` })
        .waitFor();
      expect(await stored()).toBe(url);
      // After a reload the field shows what is stored.
      await page.reload();
      await expect.poll(() => page.getByRole('textbox', { name: 'Alert URL' }).inputValue()).toBe(url);

      const region = page.getByRole('region', { name: 'Alerts' });
      await region.getByRole('button', { name: 'Reveal' }).click();
      const secret = (await world.as(world.tokens.ada)('GET', '/v1/orgs/acme/alert-url/signing-secret')).body.secret;
      await region.getByText(secret, { exact: true }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `organization-alert-url-${width}`);

      if (width === 1280) {
        // Rotate asks first; then the new secret and the previous one are shown.
        await region.getByRole('button', { name: 'Rotate', exact: true }).click();
        await page.getByRole('alertdialog', { name: 'Rotate the alert signing secret?' }).waitFor();
        await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate secret' }).click();
        await region.getByText(/Rotated: the new secret signs every alert from now on/).waitFor();
        const rotated = (await world.as(world.tokens.ada)('GET', '/v1/orgs/acme/alert-url/signing-secret')).body;
        expect(rotated.secret).not.toBe(secret);
        expect(rotated.previous.map((p: { secret: string }) => p.secret)).toEqual([secret]);
        await region.getByText(rotated.secret, { exact: true }).waitFor();
        await region.getByText(/Previous, signs until/).waitFor();
        expect(await axeViolations(page)).toEqual([]);
      }

      await region.getByRole('button', { name: 'Clear' }).click();
      await region
        .getByRole('status')
        .filter({ hasText: 'Cleared: alerts about this organization’s installations go only to the operator.' })
        .waitFor();
      expect(await stored()).toBeNull();
      expect(await region.getByRole('textbox', { name: 'Alert URL' }).inputValue()).toBe('');
      expect(await region.getByRole('button', { name: 'Clear' }).isDisabled()).toBe(true);
    });

    it(`a member sees it read-only, with the reason, at ${width} px`, async () => {
      const url = `https://ops.example.com/acme-${width}`;
      expect((await world.as(world.tokens.ada)('PUT', '/v1/orgs/acme/alert-url', { url })).status).toBe(200);
      const page = await world.page({ width, height: 900, bypassCSP: true });
      const alerts = await openAlerts(page, cy);
      await alerts.getByText(url, { exact: true }).waitFor();
      await alerts.getByText('Only organization admins change the alert URL and see its signing secret.').waitFor();
      expect(await alerts.getByRole('textbox').count()).toBe(0);
      expect(await alerts.getByRole('button').count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `organization-alert-url-member-${width}`);
      expect((await world.as(world.tokens.ada)('DELETE', '/v1/orgs/acme/alert-url')).status).toBe(200);
    });
  }
});
