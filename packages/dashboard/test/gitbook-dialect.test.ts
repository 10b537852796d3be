/**
 * A GitBook-dialect integration in the dashboard, in Chromium, on SQLite and PostgreSQL: published
 * from its source directory (`gitbook-manifest.yaml`, TypeScript, `MODE`) with the real CLI, run in
 * workerd, and spoken to in that runtime's shapes. Its configuration component shows on the
 * organization installation with the `context` it was given; its block, inserted from the space's
 * quick insert menu, shows a card whose `{ $state }` text follows what a person types with no
 * render call, answers a button with a new tree, and ends the interaction with `complete`. At 1280
 * and 390 px, axe finds no WCAG A/AA problem. The integration (test/fixtures/gitbook-profile) is
 * written for this test; it does not use `@gitbook/runtime`.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../platform/src/test-support/backends.js';
import { axeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixture = new URL('./fixtures/gitbook-profile', import.meta.url).pathname;

describe.each(backends)('a GitBook-dialect integration in the dashboard on $name', (backend) => {
  let world: DashboardWorld;
  let organization: string;
  let space: string;

  beforeAll(async () => {
    world = await startDashboardWorld({ backend });
    await world.publish(fixture);
    const ada = world.as(world.tokens.ada);
    const installed = await ada('POST', '/v1/orgs/acme/installations', { integration: 'gitbook-profile' });
    if (installed.status !== 201) throw new Error(JSON.stringify(installed.body));
    organization = installed.body.id;
    const inSpace = await ada('POST', `/v1/installations/${organization}/spaces/docs`);
    if (inSpace.status !== 201) throw new Error(JSON.stringify(inSpace.body));
    space = inSpace.body.id;
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  /** The action of the last render call that sent one (a complete re-renders the first tree after it). */
  const lastAction = (renders: string[]) =>
    renders
      .map((body) => JSON.parse(body) as { action?: unknown })
      .filter((body) => body.action !== undefined)
      .at(-1)?.action;

  /** A signed-in page `width` px wide that counts the render calls it makes. */
  async function openPage(width: number): Promise<{ page: Page; renders: string[] }> {
    const page = await world.page({ width, height: width < 600 ? 844 : 900, bypassCSP: true });
    const renders: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/render')) renders.push(request.postData() ?? '');
    });
    await signIn(page, world.url, world.tokens.ada);
    return { page, renders };
  }

  /** Screenshots are saved once (from the SQLite run): the screens are the same on both back ends. */
  const save = (page: Page, name: string) => (backend.name === 'sqlite' ? screenshot(page, name) : undefined);

  // Browser steps wait up to 30 s each on a busy machine; a whole test gets 3 minutes.
  describe('', { timeout: 180_000 }, () => {
    it('is published as a GitBook-dialect version whose block and configuration component are listed', async () => {
      const ada = world.as(world.tokens.ada);
      const integration = await ada('GET', '/v1/integrations/gitbook-profile');
      expect(integration.status).toBe(200);
      expect(integration.body.gitbook).toMatchObject({
        target: 'all',
        configurationComponents: { account: 'settings' },
      });
      expect(integration.body.components).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: 'profile', title: 'Profile card', block: true }),
          expect.objectContaining({ id: 'settings', block: false, configurationLevel: 'account' }),
        ]),
      );
      expect(integration.body.components).toHaveLength(2);
    });

    for (const width of [1280, 390]) {
      it(`shows its configuration component on the organization installation with its context, at ${width} px`, async () => {
        const { page } = await openPage(width);
        await page.goto(`${world.url}/installations/${organization}`);
        const settings = page.getByRole('region', { name: 'Settings', exact: true });
        await settings.getByText('Settings rendered in configuration_account of organization in acme').waitFor();
        // What the environment says, in that runtime's shape: the organization installation and its target.
        await settings.getByText(`Organization installation ${organization} of acme`).waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
        await save(page, width === 1280 ? 'gitbook-dialect-settings' : 'gitbook-dialect-settings-390');
        await page.context().close();
      });

      if (width === 1280) {
        it('leaves the account’s configuration component off the space installation’s screen', async () => {
          const { page, renders } = await openPage(width);
          const integration = page.waitForResponse((response) =>
            response.url().endsWith('/v1/integrations/gitbook-profile'),
          );
          await page.goto(`${world.url}/installations/${space}`);
          await page.getByText('This integration has no settings at this level.').waitFor();
          expect((await integration).status()).toBe(200);
          await page.waitForLoadState('networkidle');
          expect(await page.getByRole('region', { name: 'Settings', exact: true }).count()).toBe(0);
          expect(renders).toHaveLength(0);
          await page.context().close();
        });
      }

      it(`renders its block in a space, follows typing without a render call, and acts, at ${width} px`, async () => {
        const { page, renders } = await openPage(width);
        await page.goto(`${world.url}/spaces/docs`);
        await page.getByRole('button', { name: 'Insert' }).click();
        await page.getByRole('menuitem', { name: 'Profile card', exact: true }).click();
        const block = page.getByRole('region', { name: 'Profile card', exact: true });
        // The context of its ui_render event, and the environment's space installation.
        await block.getByText('Rendered in document of space docs in acme').waitFor();
        await block.getByText('Space installation of docs').waitFor();
        const card = block.getByRole('region', { name: 'Your profile', exact: true });
        const name = card.getByRole('textbox', { name: 'Your name' });
        expect(await name.getAttribute('placeholder')).toBe('Ada Lovelace');
        expect(renders).toHaveLength(1);

        // { $state } bindings follow the input in the browser.
        await name.fill('Grace Hopper');
        await card.getByText('Hello, Grace Hopper!').waitFor();
        await card.getByText('Editing Grace Hopper').waitFor();
        expect(renders).toHaveLength(1);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
        await save(page, width === 1280 ? 'gitbook-dialect-block' : 'gitbook-dialect-block-390');

        // The button's action, its binding read now, is answered with a new tree.
        await block.getByRole('button', { name: 'Preview' }).click();
        const preview = block.getByRole('region', { name: 'Preview', exact: true });
        await preview.getByText('Grace Hopper will be shown to your teammates.').waitFor();
        expect(lastAction(renders)).toEqual({ action: 'preview', name: 'Grace Hopper' });
        // Built as that platform's CLI builds: MODE is defined.
        expect(await preview.getByText('Built in production mode').isVisible()).toBe(true);
        expect(await block.getByRole('textbox').count()).toBe(0);
        expect(await axeViolations(page)).toEqual([]);
        if (width === 1280) await save(page, 'gitbook-dialect-block-preview');

        // Back to editing: the state the integration answered keeps the name.
        await block.getByRole('button', { name: 'Edit' }).click();
        await expect.poll(() => card.getByRole('textbox', { name: 'Your name' }).inputValue()).toBe('Grace Hopper');
        await block.getByRole('button', { name: 'Preview' }).click();
        await preview.waitFor();

        // Save answers { type: 'complete' }: the interaction ends, and the block starts again.
        await block.getByRole('button', { name: 'Save' }).click();
        await page.getByRole('status').getByText('Profile card: done.').waitFor();
        expect(lastAction(renders)).toEqual({ action: 'save', name: 'Grace Hopper' });
        await card.waitFor();
        expect(await card.getByRole('textbox', { name: 'Your name' }).inputValue()).toBe('');
        expect(await axeViolations(page)).toEqual([]);
        await page.context().close();
      });
    }

    it('answers the complete action through the API as { type: complete, returnValue }', async () => {
      const ada = world.as(world.tokens.ada);
      const answer = await ada('POST', `/v1/installations/${space}/components/profile/render`, {
        state: { step: 'preview', name: 'Ada' },
        action: { action: 'save', name: 'Ada' },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ type: 'complete', returnValue: { name: 'Ada' } });
    });
  });
});
