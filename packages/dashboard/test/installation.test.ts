/**
 * The installation page in Chromium: the generated configuration form (every property type, an
 * enum, a completion dropdown served by the integration, a default) turning pending into active,
 * an undeclared property refused, a configuration-screen component with state and actions, and a
 * block from a space's quick insert menu.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
let world: DashboardWorld;
let page: Page;
let installationId: string;

beforeAll(async () => {
  world = await startDashboardWorld();
  await world.publish(`${fixtures}showcase`);
  page = await world.page();
  await signIn(page, world.url, world.tokens.ada);
}, 120_000);

afterAll(async () => {
  await world?.close();
});

const form = () => page.getByRole('form', { name: 'Configuration' });
const stored = async () => (await world.admin('GET', `/v1/installations/${installationId}`)).body.configuration;

// Browser steps wait up to 30 s each on a busy machine; a whole test gets 2 minutes.
describe('the installation page', { timeout: 120_000 }, () => {
  it('installs, shows what is missing, and turns active once the generated form is filled and saved', async () => {
    await page.goto(`${world.url}/integrations/showcase`);
    await page.getByRole('button', { name: 'Install' }).click();
    // The confirmation lists what it is granted; its Install installs.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Install' }).click();
    await page.waitForURL(/\/installations\/[^/]+$/);
    await page.getByRole('heading', { level: 1, name: 'Showcase' }).waitFor();
    installationId = page.url().split('/').pop() as string;
    await page.getByText('pending', { exact: true }).waitFor();
    const missing = page.getByRole('list', { name: 'What is missing' });
    // Named by their titles, not by property names in backticks.
    expect(await missing.textContent()).toMatch(/API key is required/);
    expect(await missing.textContent()).toMatch(/Project is required/);

    // Every field labelled by its property's title; defaults filled in.
    expect(await form().getByLabel('Limit').inputValue()).toBe('10');
    expect(
      await form()
        .getByRole('button', { name: /Region/ })
        .textContent(),
    ).toMatch(/eu/);
    expect(await form().getByRole('switch', { name: 'Notify on publish' }).isChecked()).toBe(false);

    await form().getByLabel('API key').fill('key-123');
    await form()
      .getByRole('button', { name: /Region/ })
      .click();
    await page.getByRole('option', { name: 'us' }).click();
    // The completion dropdown: options served by the integration, narrowed as the person types.
    await form().getByRole('combobox', { name: 'Project' }).click();
    await page.getByRole('option', { name: 'Apollo' }).waitFor();
    expect(await page.getByRole('option').allTextContents()).toEqual(['Apollo', 'Gemini', 'Mercury']);
    await form().getByRole('combobox', { name: 'Project' }).fill('gem');
    await expect.poll(() => page.getByRole('option').allTextContents()).toEqual(['Gemini']);
    await page.getByRole('option', { name: 'Gemini' }).click();
    // React Aria's switch is a label around a visually hidden input: a person clicks the label.
    await form().getByText('Notify on publish').click();
    expect(await form().getByRole('switch', { name: 'Notify on publish' }).isChecked()).toBe(true);
    await form().getByLabel('Limit').fill('25');
    await screenshot(page, 'installation-form');
    await form().getByRole('button', { name: 'Save' }).click();

    await page.getByText('active', { exact: true }).waitFor();
    expect(await stored()).toEqual({ api_key: 'key-123', region: 'us', project: 'gemini', limit: 25, notify: true });
  });

  it('refuses an undeclared property whole, naming it, and stores nothing', async () => {
    const before = await stored();
    const refused = await page.evaluate(async (id) => {
      const { csrfToken } = await (await fetch('/v1/session')).json();
      const response = await fetch(`/v1/installations/${id}/configuration`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: JSON.stringify({ colour: 'red', api_key: 'changed' }),
      });
      return { status: response.status, body: await response.json() };
    }, installationId);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('unknown_property');
    expect(refused.body.error.message).toContain('colour');
    expect(await stored()).toEqual(before);
    await page.reload();
    await page.getByText('active', { exact: true }).waitFor();
    expect(await form().getByLabel('API key').inputValue()).toBe('key-123');
  });

  it('shows the server’s errors beside the fields and keeps the status when a save leaves it invalid', async () => {
    await form().getByLabel('API key').fill('');
    await form().getByRole('button', { name: 'Save' }).click();
    // Emptying a required field of an active installation asks first (issue 41, item 10).
    await page
      .getByRole('alertdialog', { name: 'Clear API key?' })
      .getByRole('button', { name: 'Clear and save' })
      .click();
    await page.getByText('pending', { exact: true }).waitFor();
    expect(await form().textContent()).toMatch(/API key is required/);
    await form().getByLabel('API key').fill('key-456');
    await form().getByRole('button', { name: 'Save' }).click();
    await page.getByText('active', { exact: true }).waitFor();
  });

  it('renders the configuration screen’s component, and its state changes with each action', async () => {
    const notes = page.getByRole('region', { name: 'notes' });
    await notes.getByText('0 note(s)').waitFor();
    await notes.getByRole('textbox', { name: 'New note' }).fill('first');
    await notes.getByRole('button', { name: 'Add note' }).click();
    await notes.getByText('1 note(s): first').waitFor();
    await notes.getByRole('textbox', { name: 'New note' }).fill('second');
    await notes.getByRole('button', { name: 'Add note' }).click();
    await notes.getByText('2 note(s): first, second').waitFor();
    // A modal root, and its Close back.
    await notes.getByRole('button', { name: 'Show all' }).click();
    const dialog = page.getByRole('dialog', { name: 'All notes' });
    await dialog.getByText('first, second').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await notes.getByText('2 note(s): first, second').waitFor();
    await screenshot(page, 'installation');
  });

  it('fits a phone’s width: one column, nothing wider than the screen', async () => {
    const phone = await world.page({ width: 390, height: 844 });
    await signIn(phone, world.url, world.tokens.ada);
    await phone.goto(`${world.url}/installations/${installationId}`);
    await phone.getByRole('form', { name: 'Configuration' }).waitFor();
    await phone
      .getByRole('region', { name: 'notes' })
      .getByText(/note\(s\)/)
      .waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(phone, 'installation-phone');
  });

  it('installs into a chosen space, whose quick insert menu inserts a block that responds to presses', async () => {
    const spaces = page.getByRole('radiogroup', { name: 'Spaces' });
    // React Aria's radios and checkboxes are labels around visually hidden inputs: a person clicks the label.
    await spaces.getByText('Chosen spaces').click();
    expect(await spaces.getByRole('radio', { name: 'Chosen spaces' }).isChecked()).toBe(true);
    await page.getByText('Docs', { exact: true }).click();
    expect(await page.getByRole('checkbox', { name: 'Docs' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Save spaces' }).click();
    await page.getByRole('list', { name: 'Installed in' }).getByRole('link', { name: 'Docs' }).waitFor();

    await page.goto(`${world.url}/spaces/docs`);
    await page.getByRole('heading', { level: 1, name: 'Docs' }).waitFor();
    await page.getByRole('button', { name: 'Insert' }).click();
    await page.getByRole('menuitem', { name: 'Counter', exact: true }).click();
    const preview = page.getByRole('region', { name: 'Page preview' });
    await preview.getByText('Pressed 0 times').waitFor();
    await preview.getByRole('button', { name: 'Press' }).click();
    await preview.getByText('Pressed 1 times').waitFor();
    await preview.getByRole('button', { name: 'Press' }).click();
    await preview.getByText('Pressed 2 times').waitFor();
    await screenshot(page, 'space-insert');

    // Every ContentKit element, rendered and interactive.
    await page.getByRole('button', { name: 'Insert' }).click();
    await page.getByRole('menuitem', { name: 'Gallery', exact: true }).click();
    const gallery = preview.getByRole('region', { name: 'Gallery' });
    await gallery.getByText('Switch changed 0 times').waitFor();
    expect(await gallery.locator('strong').first().textContent()).toBe('bold');
    expect(await gallery.locator('em').first().textContent()).toBe('italic');
    expect(await gallery.locator('s').textContent()).toBe('struck');
    expect(await gallery.locator('p code').textContent()).toBe('code');
    expect(await gallery.locator('pre code').textContent()).toBe('const answer = 42;');
    expect(await gallery.getByRole('link', { name: 'link' }).getAttribute('href')).toBe('https://example.com/md');
    expect(await gallery.getByRole('link', { name: "The gallery's page" }).getAttribute('target')).toBe('_blank');
    expect(await gallery.getByRole('separator').count()).toBe(1);
    expect(await gallery.getByText('in a box').isVisible()).toBe(true);
    const picture = gallery.getByRole('img', { name: 'A test picture' });
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(200);
    // The webframe: sandboxed, in an opaque origin of its own (no access to this page, nor this page to it).
    const frame = gallery.locator('iframe');
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-popups');
    await page.frameLocator('iframe').getByText('Hello from the frame').waitFor();
    expect(await frame.evaluate((f: HTMLIFrameElement) => f.contentDocument)).toBeNull();

    await gallery.getByRole('button', { name: /Pick a colour/ }).click();
    await page.getByRole('option', { name: 'Green' }).click();
    const sizes = gallery.getByRole('listbox', { name: 'Pick sizes' });
    await sizes.getByRole('option', { name: 'Small' }).click();
    await sizes.getByRole('option', { name: 'Large' }).click();
    await gallery.getByRole('textbox', { name: 'A longer text' }).fill('Once upon a time');
    // The switch by keyboard: its change sends its action at once.
    await gallery.getByRole('switch', { name: 'notify' }).focus();
    await page.keyboard.press('Space');
    await gallery.getByText('Switch changed 1 times').waitFor();
    expect(await gallery.getByRole('switch', { name: 'notify' }).isChecked()).toBe(true);
    await gallery.getByRole('button', { name: 'Show choice' }).click();
    await gallery.getByText('Shown: green; sizes s, l').waitFor();
    expect(await gallery.getByRole('button', { name: 'Never' }).isDisabled()).toBe(true);
    await screenshot(page, 'contentkit-gallery');

    // A block whose tree ContentKit does not allow: a clear error, not a blank.
    await page.getByRole('button', { name: 'Insert' }).click();
    await page.getByRole('menuitem', { name: 'Broken block', exact: true }).click();
    await expect
      .poll(() => preview.getByRole('alert').textContent())
      .toMatch(/Broken block could not be shown.*onPress/);
  });

  it('pauses and resumes, then uninstalls', async () => {
    await page.goto(`${world.url}/installations/${installationId}`);
    await page.getByText('active', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('alertdialog', { name: 'Pause Showcase?' }).getByRole('button', { name: 'Pause' }).click();
    await page.getByText('paused', { exact: true }).waitFor();
    expect((await world.admin('GET', `/v1/installations/${installationId}`)).body.status).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('active', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Uninstall' }).click();
    await page
      .getByRole('alertdialog', { name: 'Uninstall Showcase?' })
      .getByRole('button', { name: 'Uninstall' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Acme' }).waitFor();
    await page.getByRole('status').getByText('Showcase was uninstalled').waitFor();
    await page.getByText('No integration is installed in this organization.').waitFor();
    expect((await world.admin('GET', `/v1/installations/${installationId}`)).status).toBe(404);
  });
});
