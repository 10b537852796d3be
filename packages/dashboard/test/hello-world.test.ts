/**
 * The hello-world example as a new user meets it (issue 24, "What was seen" 7), in Chromium: its
 * preview image shows the block, its greeting is the organization's setting in every space, and an
 * inserted block can be removed, with the page saying it is a preview. Each screen at 1280 and 390
 * px, with axe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBothWidths } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;

beforeAll(async () => {
  world = await startDashboardWorld();
  await world.publish('hello-world', { HELLO_WORLD_API_KEY: 'hello-key' });
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe('the hello-world example', { timeout: 120_000 }, () => {
  it('shows a real preview, and no Connect that leads nowhere', async () => {
    const page = await world.page({ bypassCSP: true }); // axe's script runs in the page
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/integrations/hello-world`);
    const preview = page.getByRole('img', { name: 'Preview 1 of Hello World' });
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1600);
    // Not one flat colour: it shows the block.
    const colours = await preview.evaluate((img: HTMLImageElement) => {
      const canvas = document.createElement('canvas');
      canvas.width = 160;
      canvas.height = 80;
      const drawing = canvas.getContext('2d') as CanvasRenderingContext2D;
      drawing.drawImage(img, 0, 0, 160, 80);
      const data = drawing.getImageData(0, 0, 160, 80).data;
      const seen = new Set<string>();
      for (let i = 0; i < data.length; i += 4) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      return seen.size;
    });
    expect(colours).toBeGreaterThan(20);
    await checkBothWidths(page, 'the hello-world integration page');
    await page.getByRole('button', { name: 'Install' }).click();
    // The confirmation lists what it is granted; its Install installs.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Install' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hello World' }).waitFor();
    expect(await page.getByRole('button', { name: 'Connect' }).count()).toBe(0);
    await checkBothWidths(page, 'the hello-world installation');
  });

  it('greets with the organization’s greeting in a space, and an inserted block can be removed', async () => {
    const ada = world.as(world.tokens.ada);
    const org = (await ada('GET', '/v1/orgs/acme')).body.installations[0].id as string;
    expect((await ada('PATCH', `/v1/installations/${org}/configuration`, { greeting: 'Howdy' })).status).toBe(200);
    expect((await ada('POST', `/v1/installations/${org}/spaces/docs`)).status).toBe(201);
    const page = await world.page({ bypassCSP: true });
    await signIn(page, world.url, world.tokens.ada);
    await page.goto(`${world.url}/spaces/docs`);
    const preview = page.getByRole('region', { name: 'Page preview' });
    await preview.getByText(/This is a preview: what you insert here is not saved/).waitFor();
    await checkBothWidths(page, 'a space with hello-world');
    await page.getByRole('button', { name: 'Insert' }).click();
    // The item the keyboard is on stands out (the accent, not a faint grey).
    await page.keyboard.press('ArrowDown');
    const item = page.getByRole('menuitem', { name: 'Greeting' });
    await expect.poll(() => item.getAttribute('data-focused')).toBe('true');
    expect(await item.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(47, 91, 211)');
    await item.click();
    await preview.getByText('Howdy, reader!').waitFor();
    await screenshot(page, 'hello-world-block');
    await checkBothWidths(page, 'a hello-world block in the preview');
    await preview.getByRole('button', { name: 'Remove Greeting' }).click();
    await expect.poll(() => preview.getByText('Howdy, reader!').count()).toBe(0);
  });
});
