/**
 * ContentKit's breadth in Chromium, through a real platform: a card with its icon, hint, buttons and
 * a tooltip; labelled inputs with hints; radios and checkboxes; a stepper; `{ $state }` bindings
 * that follow an input in the browser with no round trip (text, a hint, a webframe's data, an
 * action's fields); a modal with a subtitle, a size and a submit whose action completes the
 * interaction; the `context` the integration receives; and axe finding no WCAG A/AA problem.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/axe.js';
import { description, screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
let world: DashboardWorld;
let page: Page;
let installation: string;
/** The render calls the page made: bindings must not add any. */
const renders: string[] = [];

beforeAll(async () => {
  world = await startDashboardWorld();
  await world.publish(`${fixtures}contentkit-breadth`);
  const ada = world.as(world.tokens.ada);
  installation = (await ada('POST', '/v1/orgs/acme/installations', { integration: 'contentkit-breadth' })).body.id;
  // bypassCSP lets the test inject axe, which the dashboard's policy would refuse.
  page = await world.page({ bypassCSP: true });
  page.on('request', (request) => {
    if (request.url().endsWith('/render')) renders.push(request.postData() ?? '');
  });
  await signIn(page, world.url, world.tokens.ada);
}, 120_000);

afterAll(async () => {
  await world?.close();
});

/**
 * The last render call whose action is `name`. Playwright reports a request some time after the
 * click that sent it, and the page may render the component again in between (without an action),
 * so the newest call is not always the one a click made.
 */
async function sentWith(name: string): Promise<{ action?: unknown; state?: unknown }> {
  const find = () =>
    renders
      .map((body) => JSON.parse(body || '{}') as { action?: { action?: string }; state?: unknown })
      .findLast((body) => body.action?.action === name);
  await expect.poll(find, { timeout: 30_000 }).toBeDefined();
  return find() ?? {};
}

const component = () => page.getByRole('region', { name: 'Profile', exact: true });
const card = () => component().getByRole('region', { name: 'Your profile', exact: true });

// Browser steps wait up to 30 s each on a busy machine; a whole test gets 2 minutes.
describe('ContentKit breadth in the dashboard', { timeout: 120_000 }, () => {
  it('renders a card, labelled inputs, choices and a stepper, and tells the integration where it renders', async () => {
    await page.goto(`${world.url}/installations/${installation}`);
    await component().getByText('Rendered for configuration_account').waitFor();
    // The card: a region named by its title, its hint, its buttons.
    await card().waitFor();
    expect(await card().getByRole('button', { name: 'Help' }).isVisible()).toBe(true);
    // The input's label names its control and its hint describes it.
    const name = card().getByRole('textbox', { name: 'Your name' });
    expect(await name.getAttribute('placeholder')).toBe('Ada Lovelace');
    expect(await description(name)).toBe('As teammates will see it');
    // Radios and checkboxes by their labels; a checkbox inside an input sits in a group named by its label.
    expect(await card().getByRole('radio', { name: 'Free' }).isChecked()).toBe(false);
    expect(await card().getByRole('radio', { name: 'Team' }).isChecked()).toBe(false);
    expect(await card().getByRole('group', { name: 'Topics' }).getByRole('checkbox', { name: 'News' }).count()).toBe(1);
    expect(await card().getByRole('checkbox', { name: 'Tips' }).isChecked()).toBe(false);
    // The stepper: its steps, the current one marked, and its content.
    const steps = component().getByRole('list', { name: 'Steps' });
    expect(await steps.getByRole('listitem').allTextContents()).toEqual(['Details', 'Review']);
    expect(await steps.locator('[aria-current="step"]').textContent()).toBe('Details');
    expect(await component().getByRole('region', { name: 'Details' }).textContent()).toBe('Fill in your profile');
    // A button's tooltip shows on hover (React Aria shows hover tooltips once the pointer is in use:
    // a click on the card's title first), and describes the button while it shows.
    await card().getByRole('heading', { name: 'Your profile' }).click();
    const help = card().getByRole('button', { name: 'Help' });
    await help.hover();
    expect(await page.getByRole('tooltip').textContent()).toBe('Opens the help page');
    expect(await description(help)).toBe('Opens the help page');
    await page.mouse.move(0, 0);
    await expect.poll(() => page.getByRole('tooltip').count()).toBe(0);
  });

  it('resolves { $state } bindings in the browser as a person types and chooses, with no round trip', async () => {
    const before = renders.length;
    await card().getByRole('textbox', { name: 'Your name' }).fill('Grace Hopper');
    await card().getByText('Hello, Grace Hopper!').waitFor();
    await card().getByText('Editing Grace Hopper').waitFor();
    // React Aria is not in play here: these are native radios and checkboxes.
    await card().getByRole('radio', { name: 'Team' }).check();
    await card().getByText('Chosen plan: team').waitFor();
    await card().getByRole('radio', { name: 'Free' }).check();
    await card().getByText('Chosen plan: free').waitFor();
    expect(await card().getByRole('radio', { name: 'Team' }).isChecked()).toBe(false);
    await card().getByRole('checkbox', { name: 'News' }).check();
    await card().getByRole('checkbox', { name: 'Tips' }).check();
    await card().getByRole('checkbox', { name: 'News' }).uncheck();
    // The webframe gets its data, the binding read now, as a message.
    await page.frameLocator('iframe').getByText('Frame sees Grace Hopper').waitFor();
    expect(renders.length).toBe(before);
    await screenshot(page, 'contentkit-breadth');
  });

  it('finds no WCAG A/AA problem (axe)', async () => {
    expect(await axeViolations(page)).toEqual([]);
  });

  it('sends an action with its bindings read, opens a sized modal, and ends the interaction on complete', async () => {
    await component().getByRole('button', { name: 'Review' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm profile' });
    await dialog.waitFor();
    const sent = await sentWith('review');
    expect(sent.action).toEqual({ action: 'review', name: 'Grace Hopper', topics: ['tips'] });
    expect(sent.state).toMatchObject({ name: 'Grace Hopper', plan: 'free', topics: ['tips'] });
    expect(await dialog.getByText('Plan: free').isVisible()).toBe(true);
    expect(await dialog.getByText('Topics: tips').isVisible()).toBe(true);
    expect(await description(dialog)).toBe('For Grace Hopper');
    expect(await dialog.getAttribute('class')).toMatch(/ck-modal-xlarge/);
    await screenshot(page, 'contentkit-modal');

    await dialog.getByRole('button', { name: 'Confirm' }).click();
    expect((await sentWith('confirm')).action).toEqual({ action: 'confirm', name: 'Grace Hopper' });
    await component().getByRole('status').getByText('Profile: done.').waitFor();
    await expect.poll(() => dialog.count()).toBe(0);
    // The component starts again from its first render.
    await card().waitFor();
    expect(await card().getByRole('textbox', { name: 'Your name' }).inputValue()).toBe('');
    expect(await component().getByRole('list', { name: 'Steps' }).locator('[aria-current="step"]').textContent()).toBe(
      'Details',
    );
  });

  it('answers complete through the API as { type: complete, returnValue }', async () => {
    const ada = world.as(world.tokens.ada);
    const answer = await ada('POST', `/v1/installations/${installation}/components/profile/render`, {
      state: { name: 'Ada' },
      action: { action: 'confirm', name: 'Ada' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ type: 'complete', returnValue: { name: 'Ada' } });
  });
});
