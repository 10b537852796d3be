/**
 * A webhook installation's page in Chromium: configure it through the generated form (its one
 * editor), then the Deliveries region (a delivery appears after an event, every attempt, Redeliver,
 * Recover failed since…), the signing secret (Reveal/Hide, Copy, Rotate after a question, current
 * and previous) and Send test event in the endpoint panel. Each screen at 1280 and 390 px, with axe.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedReceiver } from '../../platform/src/test-support/webhook-world.js';
import { checkBothWidths } from './support/axe.js';
import { description, screenshot } from './support/browser.js';
import { type DashboardWorld, signIn, startDashboardWorld } from './support/dashboard-world.js';

let world: DashboardWorld;
let page: Page;
let receiver: ScriptedReceiver;
let spaceInstallation: string;

beforeAll(async () => {
  // An endpoint that fails every attempt for 4 s is disabled (5 days by default).
  world = await startDashboardWorld({ tuning: { endpointDisableAfterMs: 4000 } });
  receiver = new ScriptedReceiver();
  await receiver.start();
  page = await world.page({ bypassCSP: true }); // axe's script runs in the page
  await signIn(page, world.url, world.tokens.ada);
}, 120_000);

afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const deliveries = () => page.getByRole('region', { name: 'Deliveries' });
const rows = () => deliveries().locator('tbody tr[data-delivery]');
const form = () => page.getByRole('form', { name: 'Configuration' });
/** The status the newest row shows (its Status cell: a redelivery's note lists earlier ones too). */
const newestStatus = (status: string) => rows().first().locator('td').nth(2).getByText(status, { exact: true });

/** A time as a datetime-local input takes it, in the browser's (and this machine's) time zone. */
function localInput(date: Date): string {
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

async function emit(revisionId: string) {
  const answer = await world.admin('POST', '/v1/events', {
    type: 'space_content_updated',
    spaceId: 'docs',
    revisionId,
    eventId: `event-${revisionId}`,
  });
  expect(answer.status).toBe(202);
}

// Browser steps wait up to 30 s each on a busy machine; a whole test gets 2 minutes.
describe('a webhook installation', { timeout: 120_000 }, () => {
  it('is installed into a space and configured through its form', async () => {
    await page.goto(`${world.url}/integrations/webhook`);
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await checkBothWidths(page, 'the Webhooks integration page');
    await page.getByRole('button', { name: 'Install' }).click();
    // The confirmation lists what it is granted; its Install installs.
    await page.getByRole('alertdialog').getByRole('button', { name: 'Install' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('Docs', { exact: true }).click();
    await page.getByRole('button', { name: 'Save spaces' }).click();
    await page.getByText('Saved: installed in Docs.').waitFor();
    // The organization installation's component says where the URL and events are set, not to install it.
    await page.getByText(/^Each space or site it is installed in has its own URL and events/).waitFor();
    expect(await page.getByText(/into a space/i).count()).toBe(0);
    await page.getByRole('list', { name: 'Installed in' }).getByRole('link', { name: 'Docs' }).click();
    await page.getByText('pending', { exact: true }).waitFor();
    spaceInstallation = page.url().split('/').pop() as string;

    await form()
      .getByLabel('Webhook URL')
      .fill(receiver.script('/hooks', [200]));
    // React Aria's switch is a label around a visually hidden input: a person clicks the label.
    await form().getByText('Content updates (spaces)').click();
    expect(await form().getByRole('switch', { name: 'Content updates (spaces)' }).isChecked()).toBe(true);
    await form().getByRole('button', { name: 'Save' }).click();
    await page.getByText('active', { exact: true }).waitFor();
    await checkBothWidths(page, 'a configured webhook installation');
  });

  it('shows a delivery live after an event, with its attempts, and redelivers it', async () => {
    // The page follows the installation's stream (server-sent events): no reload, no polling.
    await page.getByText(/what the platform sent to the integration, live/i).waitFor();
    await emit('r1');
    await newestStatus('delivered').waitFor();
    expect(await rows().count()).toBe(1);
    const first = rows().first();
    expect(await first.textContent()).toContain('event-r1');
    await first.getByText('1 attempt', { exact: true }).click();
    expect(await first.locator('details table tbody tr').count()).toBe(1);
    expect(await first.locator('details table tbody tr td').nth(2).textContent()).toBe('200');
    expect(receiver.received.filter((r) => r.path === '/hooks')).toHaveLength(1);
    // The dispatch log got the event live too.
    const events = page.getByRole('region', { name: 'Events' });
    await events.locator('tbody tr', { hasText: 'event-r1' }).getByText('Content updated').waitFor();

    const firstId = await first.getAttribute('data-delivery');
    // Named Redeliver (every row has one); its description says which event it sends again.
    const again = first.getByRole('button', { name: 'Redeliver', exact: true });
    expect(await description(again)).toBe('Content updated event-r1');
    await again.click();
    // One row per event: the redelivery takes the place of the delivery it repeats, which it lists.
    await expect.poll(() => rows().first().getAttribute('data-delivery'), { timeout: 15_000 }).not.toBe(firstId);
    await newestStatus('delivered').waitFor();
    expect(await rows().count()).toBe(1);
    // The redelivery names the delivery it repeats in words, as a link that moves to it.
    const earlier = rows()
      .first()
      .getByRole('link', { name: /^the delivery made \d.* \(delivered\)$/ });
    expect(await rows().first().textContent()).toMatch(/Redelivery of the delivery made .* \(delivered\)/);
    expect(await rows().first().textContent()).not.toContain('dlv_');
    const list = rows().first().getByRole('list', { name: 'Earlier deliveries' });
    expect(await list.isVisible()).toBe(false);
    await earlier.click();
    const focused = page.locator('li:focus');
    await expect.poll(() => focused.getAttribute('id')).toMatch(new RegExp(`-earlier-${firstId}$`));
    expect(await list.isVisible()).toBe(true);
    expect(await focused.textContent()).toMatch(/delivered 1 attempt$/);
    // It says when that delivery was made, as the link did.
    expect(await focused.locator('time').getAttribute('datetime')).toBe(
      await earlier.locator('time').getAttribute('datetime'),
    );
    await checkBothWidths(page, 'a redelivery with the delivery it repeats');
    const bodies = receiver.received.filter((r) => r.path === '/hooks').map((r) => JSON.parse(r.body).eventId);
    expect(bodies).toEqual(['event-r1', 'event-r1']);
    await screenshot(page, 'webhook-deliveries');
  });

  it('shows a failing endpoint disabled, re-enables it, and recovers failed deliveries since a time with the job’s progress', async () => {
    // The receiver fails every attempt: the delivery is retried (1 s, 2 s, 4 s); after 4 s of
    // failures the endpoint is disabled, and the delivery ends failed.
    receiver.script('/hooks', [500]);
    await emit('r2');
    await newestStatus('failed').waitFor({ timeout: 20_000 });
    expect(await rows().first().textContent()).toContain('event-r2');
    const health = page.getByRole('region', { name: 'Endpoint health' });
    await health.getByText('Endpoint: disabled').waitFor();
    const alert = page.getByRole('alert').filter({ hasText: 'are disabled since' });
    expect(await alert.textContent()).toMatch(/Re-enable it under Endpoint health, then redeliver what failed/);
    expect(await alert.textContent()).not.toContain('/v1/');
    await screenshot(page, 'webhook-endpoint-disabled');
    await checkBothWidths(page, 'a disabled endpoint');

    receiver.script('/hooks', [200]);
    await health.getByRole('button', { name: 'Re-enable' }).click();
    await health.getByText('Endpoint: healthy').waitFor();

    const recover = page.getByRole('region', { name: 'Recover failed deliveries' });
    await recover.getByLabel('Failed since').fill(localInput(new Date(Date.now() - 3600_000)));
    // It asks first (item 13 of issue 41): Cancel starts nothing.
    await recover.getByRole('button', { name: 'Recover failed since…' }).click();
    const ask = page.getByRole('alertdialog', { name: 'Recover failed deliveries?' });
    await ask.getByText(/to the URL configured now, with its original webhook-id/).waitFor();
    await checkBothWidths(page, 'the question before Recover failed since…');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'hidden' });
    expect(await recover.getByRole('status').count()).toBe(0);
    await recover.getByRole('button', { name: 'Recover failed since…' }).click();
    await ask.getByRole('button', { name: 'Recover' }).click();
    await recover.getByText('1 of 1 failed deliveries redelivered').waitFor();
    await expect.poll(() => recover.getByRole('status').textContent()).toMatch(/Recovery: done/);
    await newestStatus('delivered').waitFor();
    expect(await rows().first().textContent()).toContain('event-r2');
    await rows()
      .first()
      .getByRole('link', { name: /^the delivery made \d.* \(failed\)$/ })
      .waitFor();
  });

  it('filters the deliveries by status and by event', async () => {
    await deliveries()
      .getByRole('button', { name: /Status/ })
      .click();
    await page.getByRole('option', { name: 'Failed only' }).click();
    // event-r2 failed, then its recovery delivered it: its latest result decides, so nothing failed is left.
    await deliveries().getByText('No delivery matches.').waitFor();
    await checkBothWidths(page, 'the deliveries filtered to none');
    await deliveries()
      .getByRole('button', { name: /Status/ })
      .click();
    await page.getByRole('option', { name: 'Any status' }).click();
    await expect.poll(() => rows().count()).toBe(2);
    // Each row's Redeliver is described by its event, so a screen reader tells them apart.
    const described = await Promise.all(
      (await deliveries().getByRole('button', { name: 'Redeliver', exact: true }).all()).map(description),
    );
    expect(described.sort()).toEqual(['Content updated event-r1', 'Content updated event-r2']);
    await deliveries().getByLabel('Event ID').fill('event-r1');
    await expect.poll(() => rows().count()).toBe(1);
    await deliveries().getByLabel('Event ID').fill('event-none');
    await deliveries().getByText('No delivery matches.').waitFor();
    await deliveries().getByLabel('Event ID').fill('');
    await expect.poll(() => rows().count()).toBe(2);
  });

  it('reveals, hides and copies the signing secret, and rotates it after a question, showing current and previous', async () => {
    const region = page.getByRole('region', { name: 'Signing secret' });
    const secrets = async () =>
      (await world.as(world.tokens.ada)('GET', `/v1/installations/${spaceInstallation}/signing-secret`)).body as {
        secret: string;
        previous: { secret: string }[];
      };
    expect(await region.textContent()).toMatch(/24 hours/);
    expect(await region.locator('code.secret').count()).toBe(0);
    await region.getByRole('button', { name: 'Reveal', exact: true }).click();
    const current = (await secrets()).secret;
    await region.getByText(current).waitFor();
    await region.getByRole('button', { name: 'Hide', exact: true }).click();
    await expect.poll(() => region.locator('code.secret').count()).toBe(0);
    await region.getByRole('button', { name: 'Reveal', exact: true }).click();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.url });
    await region.getByRole('button', { name: 'Copy secret' }).click();
    await region.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(current);

    // Rotate asks first; Cancel changes nothing.
    await region.getByRole('button', { name: 'Rotate', exact: true }).click();
    const question = page.getByRole('alertdialog', { name: 'Rotate the signing secret?' });
    expect(await question.textContent()).toMatch(/keeps signing for 24 hours/);
    await checkBothWidths(page, 'the Rotate question');
    await question.getByRole('button', { name: 'Cancel' }).click();
    expect((await secrets()).secret).toBe(current);
    await region.getByRole('button', { name: 'Rotate', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate secret' }).click();
    await region.getByText(/Rotated: the new secret signs every delivery from now on/).waitFor();
    const rotated = await secrets();
    expect(rotated.secret).not.toBe(current);
    expect(rotated.previous.map((p) => p.secret)).toEqual([current]);
    // The panel shows both, each with its own Copy, and when the previous one stops signing.
    await region.getByText(rotated.secret).waitFor();
    await region.getByText(current).waitFor();
    await region.getByText(/Previous, signs until/).waitFor();
    await region.getByRole('button', { name: 'Copy current secret' }).waitFor();
    await region.getByRole('button', { name: 'Copy previous secret' }).waitFor();
    await checkBothWidths(page, 'the signing secret after Rotate');
    await screenshot(page, 'webhook-secret-rotated');
  });

  it('sends a test event from the endpoint panel, signed, marked as a test in Deliveries', async () => {
    const health = page.getByRole('region', { name: 'Endpoint health' });
    await health.getByRole('button', { name: 'Send test event' }).click();
    await health.getByText(/Test event sent to http:\/\/127\.0\.0\.1:\d+\/hooks: follow it under Deliveries/).waitFor();
    await expect.poll(() => rows().count(), { timeout: 15_000 }).toBe(3);
    await rows().first().getByText('Test event', { exact: true }).waitFor();
    await newestStatus('delivered').waitFor();
    await rows().first().getByRole('button', { name: 'Redeliver', exact: true }).waitFor();
    expect(await description(rows().first().getByRole('button', { name: 'Redeliver', exact: true }))).toMatch(
      /^Test event \S+$/,
    );
    const last = receiver.received.filter((r) => r.path === '/hooks').at(-1);
    expect(JSON.parse(last?.body ?? '{}')).toMatchObject({ type: 'webhook_test', test: true });
  });

  it('has one editor for the URL and events: the integration’s component only says what is sent where, fresh', async () => {
    const screen = page.getByRole('region', { name: 'Webhook configuration' });
    await screen.getByText(/^Sends content updates to http:\/\/127\.0\.0\.1:\d+\/hooks\.$/).waitFor();
    expect(await screen.getByRole('textbox').count()).toBe(0);
    expect(await screen.getByRole('button').count()).toBe(0);
    const other = receiver.script('/other', [200]);
    await form().getByLabel('Webhook URL').fill(other);
    await form().getByRole('button', { name: 'Save' }).click();
    await form().getByText('Saved.').waitFor();
    await screen.getByText(`Sends content updates to ${other}.`).waitFor();
    // The endpoint panel follows the saved URL too.
    await page.getByRole('region', { name: 'Endpoint health' }).getByText(other).waitFor();
    await form()
      .getByLabel('Webhook URL')
      .fill(receiver.script('/hooks', [200]));
    await form().getByRole('button', { name: 'Save' }).click();
    await form().getByText('Saved.').waitFor();
    // A subscription added through the API is listed under the configured one, with what it receives.
    const ada = world.as(world.tokens.ada);
    const added = await ada('POST', `/v1/installations/${spaceInstallation}/endpoints`, {
      url: receiver.script('/more', [200]),
      eventTypes: ['space_content_updated'],
      policy: 'extended',
    });
    expect(added.status).toBe(201);
    await page.reload();
    const health = page.getByRole('region', { name: 'Endpoint health' });
    await health.getByRole('heading', { name: 'More subscriptions' }).waitFor();
    await health.getByText('Receives Content updated · extended retries').waitFor();
    expect((await ada('DELETE', `/v1/installations/${spaceInstallation}/endpoints/${added.body.id}`)).status).toBe(204);
    await page.reload();
    await health
      .getByText(/Endpoint: /)
      .first()
      .waitFor();
    expect(await health.getByRole('heading', { name: 'More subscriptions' }).count()).toBe(0);
  });

  it('pages through the delivery log, 50 at a time', async () => {
    const events = Array.from({ length: 50 }, (_, i) => ({
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: `bulk-${i}`,
      eventId: `bulk-${i}`,
    }));
    expect((await world.admin('POST', '/v1/events/batch', { events })).status).toBe(202);
    const total = async () =>
      (await world.admin('GET', `/v1/installations/${spaceInstallation}/deliveries?limit=200`)).body.length;
    await expect.poll(total, { timeout: 20_000 }).toBe(55);
    await page.reload();
    // (The reloaded page reads its session, the installation and both logs first.)
    await expect.poll(() => rows().count(), { timeout: 15_000 }).toBe(50);
    await deliveries().getByRole('button', { name: 'Older deliveries' }).click();
    // 55 deliveries, of 53 events (two were delivered again): one row per event.
    await expect.poll(() => rows().count()).toBe(53);
    expect(await deliveries().getByRole('button', { name: 'Older deliveries' }).count()).toBe(0);
    const names = await Promise.all(
      (await rows().getByRole('button', { name: 'Redeliver', exact: true }).all()).map(description),
    );
    expect(names).toHaveLength(53);
    expect(new Set(names).size).toBe(53);
  });
});
