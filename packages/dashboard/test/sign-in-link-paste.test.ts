/**
 * A sign-in link pasted into a tab already open on the sign-in page (issue 41, "What was seen" 4),
 * in Chromium: only the address's fragment changes, the browser does not load the page again, and
 * the person is signed in all the same, with the code gone from the address. At 1280 and 390 px,
 * with axe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBothWidths } from './support/axe.js';
import { type DashboardWorld, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;

beforeAll(async () => {
  world = await startDashboardWorld();
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe('a sign-in link pasted into an open tab', { timeout: 120_000 }, () => {
  it('signs in without a reload', async () => {
    const page = await world.page({ bypassCSP: true });
    await page.goto(`${world.url}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.title()).toBe('Sign in · Portico');
    const made = await world.admin('POST', '/v1/users/ada/sign-in-links', {});
    expect(made.status).toBe(201);
    const link = made.body.url as string;
    expect(new URL(link).pathname).toBe('/');
    // Marks this document: a reload would lose the mark.
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    await page.goto(link);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByRole('banner').getByText('Ada', { exact: true }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(page.url()).toBe(`${world.url}/`);
    await checkBothWidths(page, 'the overview after a pasted sign-in link');
  });
});
