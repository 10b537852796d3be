/**
 * Sign-in links an operator hands out (issue 24, "What to build" 6), in Chromium: the link opens
 * the page it names (an installation, a space), signed in as the user, without the person ever seeing
 * a token; it works once. Each screen at 1280 and 390 px, with axe.
 * And PORTICO_FRAME_ANCESTORS: a page of an allowed origin can frame the dashboard, another cannot.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let installation: string;
const hosts: Server[] = [];
let allowed: string;
let other: string;

beforeAll(async () => {
  // The framing sites' origins are needed before the platform starts, so they listen first, and
  // stay bound: a port closed and bound again later may be taken meanwhile. Their page reads the
  // dashboard's URL when it is requested.
  allowed = await framingSite();
  other = await framingSite();
  world = await startDashboardWorld({ frameAncestors: [allowed] });
  const ada = world.as(world.tokens.ada);
  installation = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
}, 120_000);

async function framingSite(): Promise<string> {
  const server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>Docs product</title><h1>Docs product</h1>
<iframe title="Portico" src="${world.url}/" width="1000" height="700"></iframe>`);
  });
  hosts.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

afterAll(async () => {
  for (const host of hosts) host.close();
  await world?.close();
});

describe('sign-in links', { timeout: 120_000 }, () => {
  it('opens the page it names, signed in as the user, with no code left in the address; it works once', async () => {
    const made = await world.admin('POST', '/v1/users/ada/sign-in-links', { path: `/installations/${installation}` });
    expect(made.status).toBe(201);
    const link = made.body.url as string;
    const page = await world.page({ bypassCSP: true }); // axe's script runs in the page
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByRole('banner').getByText('Ada', { exact: true }).waitFor();
    expect(page.url()).toBe(`${world.url}/installations/${installation}`);
    await screenshot(page, 'sign-in-link');
    await checkBothWidths(page, 'an installation opened by a sign-in link');

    const again = await world.page({ bypassCSP: true });
    await again.goto(link);
    await expect.poll(() => again.getByRole('alert').first().textContent()).toMatch(/sign-in link did not work/i);
    await again.getByText(/each code works once, for 15 minutes/).waitFor();
    await checkBothWidths(again, 'the sign-in page after a used link');
  });

  it('opens a space page it names, on a phone too', async () => {
    const made = await world.admin('POST', '/v1/users/ada/sign-in-links', { path: '/spaces/docs' });
    expect(made.status).toBe(201);
    const phone = await world.page({ width: 390, height: 844, bypassCSP: true });
    await phone.goto(made.body.url as string);
    await phone.getByRole('heading', { level: 1, name: 'Docs' }).waitFor();
    await phone.getByText('A space of').getByRole('link', { name: 'Acme' }).waitFor();
    expect(phone.url()).toBe(`${world.url}/spaces/docs`);
    // Signed in as Ada, with no code left in the address (above).
    await phone.getByRole('button', { name: 'Sign out' }).waitFor();
    await phone.getByRole('banner').getByText('Ada', { exact: true }).waitFor();
    await checkBothWidths(phone, 'a space opened by a sign-in link');
  });

  it('lets a page of an allowed origin frame the dashboard, and no other', async () => {
    const page = await world.page();
    const complaints: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors/.test(message.text())) complaints.push(message.text());
    });
    await page.goto(`${allowed}/`);
    const framed = page.frameLocator('iframe[title="Portico"]');
    await framed.getByRole('heading', { name: 'Sign in to Portico' }).waitFor();
    await framed.getByLabel('API token').waitFor();
    await screenshot(page, 'dashboard-framed');
    expect(complaints).toEqual([]);

    const refused: string[] = [];
    const elsewhere = await world.page();
    elsewhere.on('console', (message) => {
      if (/frame-ancestors/.test(message.text())) refused.push(message.text());
    });
    await elsewhere.goto(`${other}/`);
    await expect.poll(() => refused.length, { timeout: 15_000 }).toBeGreaterThan(0);
    // Chromium says "Framing '<dashboard>' violates … frame-ancestors 'self' <the allowed origin>".
    expect(refused[0]).toMatch(new RegExp(`violates .*frame-ancestors 'self' ${allowed}`));
    const frame = elsewhere.frames().find((f) => f !== elsewhere.mainFrame());
    expect(
      await frame
        ?.locator('body')
        .textContent()
        .catch(() => ''),
    ).not.toContain('Sign in to Portico');
  });
});
