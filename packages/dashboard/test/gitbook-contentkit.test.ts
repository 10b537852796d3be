/**
 * GitBook's ContentKit as their integrations use it, in Chromium, on SQLite and PostgreSQL: the
 * integration (test/fixtures/gitbook-contentkit, written for this test in that runtime's wire
 * format) is published with the real CLI and its configuration screen opened on its installation's
 * page. A link inside text, an input with an empty label and a button as an input's element are
 * shown; `@ui.url.open` opens the page in a new tab and `@editor.node.updateProps` renders the
 * screen again with the new props, neither sent to the integration as an action; editable code
 * sends `onContentChange` with the edited text, and its footer's button its action; the webframe's
 * `@webframe.resize` sets its height, its `@webframe.ready` has the data posted to it, and the
 * action it posts back reaches the integration. Axe finds no WCAG A/AA problem.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../platform/src/test-support/backends.js';
import { axeViolations } from './support/axe.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixture = new URL('./fixtures/gitbook-contentkit', import.meta.url).pathname;

describe.each(backends)("GitBook's ContentKit in the dashboard on $name", (backend) => {
  let world: DashboardWorld;
  let installation: string;
  let page: Page;
  const renders: { props?: Record<string, unknown>; action?: { action?: string } }[] = [];

  beforeAll(async () => {
    world = await startDashboardWorld({ backend });
    await world.publish(fixture);
    const ada = world.as(world.tokens.ada);
    const installed = await ada('POST', '/v1/orgs/acme/installations', { integration: 'gitbook-contentkit' });
    if (installed.status !== 201) throw new Error(JSON.stringify(installed.body));
    installation = installed.body.id;
    page = await world.page({ bypassCSP: true });
    page.on('request', (request) => {
      if (request.url().endsWith('/render')) renders.push(JSON.parse(request.postData() || '{}'));
    });
    await signIn(page, world.url, world.tokens.ada);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  const screen = () => page.locator('[data-component="settings"]');
  const actionsSent = () => renders.map((body) => body.action?.action).filter((name) => name !== undefined);

  it('shows their patterns and handles their built-in actions and webframe messages', {
    timeout: 180_000,
  }, async () => {
    await page.goto(`${world.url}/installations/${installation}`);
    // The webframe said it was ready and got the data; the action it posted back reached the integration.
    await screen().getByText('Received: frame.said hello from the tree.').waitFor({ timeout: 30_000 });
    const frame = screen().locator('iframe');
    await expect.poll(async () => Math.round((await frame.boundingBox())?.height ?? 0)).toBe(222);
    expect(await page.frameLocator('[data-component="settings"] iframe').locator('#said').textContent()).toBe(
      'hello from the tree',
    );

    // A link inside text, a control without a label (named by its placeholder), a button in an input.
    expect(await screen().getByRole('link', { name: 'the guide' }).getAttribute('href')).toBe(`${world.url}/docs-page`);
    await screen().getByRole('textbox', { name: 'Search' }).fill('anything');
    const popup = page.waitForEvent('popup');
    await screen().getByRole('button', { name: 'Open account' }).click();
    expect((await popup).url()).toBe(`${world.url}/opened-account`);
    await (await popup).close();

    // Editable code: onContentChange once the editing pauses, with the edited text; the footer's button.
    const code = screen().getByRole('textbox', { name: 'Code (python)' });
    await code.fill('print(2)');
    await code.blur();
    await screen().getByText('Received: code.changed with print(2).').waitFor({ timeout: 30_000 });
    await screen().getByRole('button', { name: 'Run' }).click();
    await screen().getByText('Received: code.run.').waitFor({ timeout: 30_000 });

    // New props: the screen renders again with them.
    await screen().getByRole('button', { name: 'Count up' }).click();
    await screen()
      .getByText(/^Count: 1\./)
      .waitFor({ timeout: 30_000 });
    expect(renders.some((body) => body.props?.count === 1 && body.action === undefined)).toBe(true);
    expect(actionsSent()).not.toContain('@ui.url.open');
    expect(actionsSent()).not.toContain('@editor.node.updateProps');
    expect(actionsSent()).not.toContain('@webframe.ready');
    expect(actionsSent()).not.toContain('@webframe.resize');

    expect(await axeViolations(page)).toEqual([]);
  });
});
