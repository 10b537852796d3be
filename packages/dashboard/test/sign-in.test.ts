/** Signing in and out of the dashboard in Chromium; the session cookie and its CSRF token. */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInCode } from '../../platform/src/access/sessions.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;

beforeAll(async () => {
  world = await startDashboardWorld();
}, 60_000);

afterAll(async () => {
  await world?.close();
});

const cookiesOf = async (page: Page) => page.context().cookies(world.url);

// Browser steps wait up to 30 s each on a busy machine; a whole test gets 2 minutes.
describe('signing in', { timeout: 120_000 }, () => {
  it('signs in with a user token into an HttpOnly SameSite=Strict cookie, and out again', async () => {
    const page = await world.page();
    await page.goto(`${world.url}/`);
    await expect.poll(() => page.getByLabel('API token').isVisible()).toBe(true);
    await page.getByLabel('API token').fill(world.tokens.ada);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // The layout shows the person's organizations, never another's.
    await expect.poll(() => page.getByRole('navigation', { name: 'Organizations' }).textContent()).toBe('Acme');
    const [cookie] = await cookiesOf(page);
    expect(cookie).toMatchObject({ name: 'portico_session', httpOnly: true, sameSite: 'Strict' });
    expect(page.url()).toBe(`${world.url}/`);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage))).not.toContain(
      world.tokens.ada,
    );

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await cookiesOf(page)).toEqual([]);
    // Signed out means signed out: a reload stays on the sign-in screen.
    await page.reload();
    await page.getByLabel('API token').waitFor();
  });

  it('signs in with the keyboard alone', async () => {
    const page = await world.page();
    await page.goto(`${world.url}/`);
    await page.getByLabel('API token').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('password');
    await page.keyboard.type(world.tokens.ada);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign in');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  it('says why a wrong token is refused, and stays signed out', async () => {
    const page = await world.page();
    await page.goto(`${world.url}/`);
    await page.getByLabel('API token').fill('ptu_not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/token/i);
    expect(await cookiesOf(page)).toEqual([]);
  });

  it('signs the operator in with the one-time code of the #code= link, removes it from the address, and it works once', async () => {
    const code = await createSignInCode(world.platform.ctx);
    const page = await world.page();
    await page.goto(`${world.url}/#code=${code}`);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(page.url()).toBe(`${world.url}/`);
    await expect.poll(() => page.getByRole('banner').getByText('Operator', { exact: true }).isVisible()).toBe(true);
    // The operator sees every organization (Portico publishes the built-in webhook integration).
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Organizations' }).textContent())
      .toBe('AcmeGlobexPortico');
    // The entry with the code was replaced, not kept behind the clean one.
    await page.goBack();
    expect(page.url()).toBe('about:blank');

    const again = await world.page();
    await again.goto(`${world.url}/#code=${code}`);
    await expect.poll(() => again.getByRole('alert').textContent()).toMatch(/sign-in link did not work/i);
    expect(again.url()).toBe(`${world.url}/`);
    await again.getByLabel('API token').waitFor();
  });

  it('stays signed in with a #code= link when the first read of the session answers after the sign-in', async () => {
    const code = await createSignInCode(world.platform.ctx);
    const page = await world.page();
    // The read the first render starts is answered by the server at once (nobody signed in yet),
    // and that answer is handed to the page only after the code has signed in.
    let signedIn: () => void = () => {};
    const afterSignIn = new Promise<void>((resolve) => {
      signedIn = resolve;
    });
    await page.route('**/v1/session', async (route) => {
      const response = await route.fetch();
      if (route.request().method() === 'GET') await afterSignIn;
      if (route.request().method() === 'POST') setTimeout(signedIn, 200);
      await route.fulfill({ response });
    });
    await page.goto(`${world.url}/#code=${code}`);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // Had the late answer ("nobody") replaced the session, the sign-in screen would be back.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await page.getByLabel('API token').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
  });

  it('signs in with a code on a deep link and stays on that page', async () => {
    const code = await createSignInCode(world.platform.ctx);
    const page = await world.page();
    await page.goto(`${world.url}/integrations#code=${code}`);
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    expect(page.url()).toBe(`${world.url}/integrations`);
  });

  it('goes back to the sign-in screen when the session ends elsewhere', async () => {
    const page = await world.page();
    await signIn(page, world.url, world.tokens.ada);
    // Signed out in another tab of the same browser: the cookie is gone.
    await page.evaluate(async () => {
      const { csrfToken } = await (await fetch('/v1/session')).json();
      await fetch('/v1/session', { method: 'DELETE', headers: { 'x-csrf-token': csrfToken } });
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' }).click();
    await page.getByLabel('API token').waitFor();
  });

  it('refuses a request that changes something without the CSRF token, and changes nothing', async () => {
    const page = await world.page();
    await signIn(page, world.url, world.tokens.ada);
    const refused = await page.evaluate(async () => {
      const response = await fetch('/v1/session', { method: 'DELETE' });
      return { status: response.status, body: await response.json() };
    });
    expect(refused).toEqual({
      status: 403,
      body: { error: { code: 'csrf_refused', message: expect.stringContaining('X-CSRF-Token') } },
    });
    // Still signed in: the refused sign-out did nothing.
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect((await cookiesOf(page)).map((c) => c.name)).toEqual(['portico_session']);
    // The dashboard's own requests carry the token, so its Sign out works.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
  });
});
