/**
 * `portico deliveries`, `portico redeliver` and `portico recover` against a real platform and the
 * reference webhook receiver (examples/webhook-receiver) on 127.0.0.1: deliveries fail while the
 * receiver verifies with the wrong secret (401, not retried), are listed and filtered, and reach it
 * once delivered again, one by one or all those of a time window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portico, Receiver, serverWorld, until } from '../test-support/server-world.js';

const world = serverWorld();
const receiver = new Receiver();
let site: string;
let secret: string;
const as = () => ['--api', world.url, '--token', world.adaToken];

beforeAll(async () => {
  await receiver.start();
  const org = (await world.api('POST', '/v1/orgs/acme/installations', { integration: 'webhook' }, world.adaToken)).id;
  site = (await world.api('POST', `/v1/installations/${org}/sites/site`, undefined, world.adaToken)).id;
  await world.api('PATCH', `/v1/installations/${site}/configuration`, { url: receiver.url, site_view: true });
  secret = (await world.api('GET', `/v1/installations/${site}/signing-secret`)).secret;
}, 60_000);
afterAll(() => receiver.close());

/** Emits a site_view and waits until its delivery ended; answers the eventId. */
async function siteView(): Promise<string> {
  const result = await portico([
    'emit',
    'site_view',
    '--site',
    'site',
    '--wait',
    '--api',
    world.url,
    '--token',
    world.adminToken,
  ]);
  return result.stdout.split('\n')[0] as string;
}

describe('portico deliveries, redeliver and recover', () => {
  let failedEvent: string;
  let otherFailedEvent: string;

  it('lists the deliveries with their attempts, newest first, filtered by status and event', async () => {
    receiver.verifyWith('whsec_wrong');
    failedEvent = await siteView();
    otherFailedEvent = await siteView();
    receiver.verifyWith(secret);
    const delivered = await siteView();

    const all = await portico(['deliveries', site, ...as()]);
    expect(all.code, all.stderr).toBe(0);
    const [header, ...rows] = all.stdout.trim().split('\n');
    expect(header).toMatch(/^DELIVERY +STATUS +TYPE +EVENT +ATTEMPTS +LAST ATTEMPT +CREATED +URL$/);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(
      new RegExp(`^dlv_\\w+ +delivered +site_view +${delivered} +1 +200 in \\d+ ms +\\S+ \\S+ +${receiver.url}$`),
    );
    expect(rows[2]).toMatch(new RegExp(`^dlv_\\w+ +failed +site_view +${failedEvent} +1 +401 in \\d+ ms`));

    const failed = await portico(['deliveries', site, '--status', 'failed', '--json', ...as()]);
    expect(JSON.parse(failed.stdout).map((d: { eventId: string }) => d.eventId)).toEqual([
      otherFailedEvent,
      failedEvent,
    ]);
    expect(JSON.parse(failed.stdout)[0]).toMatchObject({
      installationId: site,
      status: 'failed',
      attempts: [{ number: 1, status: 401 }],
    });

    const one = await portico(['deliveries', site, '--event', delivered, '--json', ...as()]);
    expect(JSON.parse(one.stdout)).toHaveLength(1);
    const none = await portico(['deliveries', site, '--event', 'evt_none', ...as()]);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toMatch(`portico deliveries: none with event evt_none for ${site}`);
  });

  it('redelivers a failed delivery and follows it until the receiver has it', async () => {
    const failed = JSON.parse((await portico(['deliveries', site, '--event', failedEvent, '--json', ...as()])).stdout);
    const result = await portico(['redeliver', failed[0].id, '--wait', ...as()]);
    expect(result.code, result.stderr).toBe(0);
    const [id, line] = result.stdout.trim().split('\n');
    expect(id).toMatch(/^dlv_/);
    expect(line).toMatch(
      new RegExp(
        `delivery ${id} \\(site_view ${failedEvent}, again for ${failed[0].id}\\) → ${receiver.url}: delivered`,
      ),
    );
    expect(result.stderr).toMatch(`${failed[0].id} is delivered again as ${id}`);
    expect(receiver.accepted.map((e) => e.eventId)).toContain(failedEvent);
  });

  it('recovers every failed delivery since a time, as the server’s job, with its progress', async () => {
    const result = await portico(['recover', site, '--since', '10m', '--wait', ...as()]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^rcv_\w+\n$/);
    // The one redelivered already is not sent again: only the other.
    expect(result.stderr).toMatch(/\(1 found\)/);
    expect(result.stderr).toMatch(/done: 1 of 1 failed deliveries redelivered/);
    await until('the receiver to accept the recovered event', () =>
      receiver.accepted.find((e) => e.eventId === otherFailedEvent),
    );
    const job = await portico([
      'recover',
      site,
      '--since',
      new Date(Date.now() - 60_000).toISOString(),
      '--json',
      ...as(),
    ]);
    expect(JSON.parse(job.stdout)).toMatchObject({ installationId: site, status: 'running' });
  });

  it('lists the subscriptions with what they receive and their health: the configured one, then one added', async () => {
    const added = await world.api(
      'POST',
      `/v1/installations/${site}/endpoints`,
      { url: `${receiver.url}/second`, eventTypes: ['page_feedback'], policy: 'extended', rateLimit: 20 },
      world.adaToken,
    );
    const listed = await portico(['endpoints', site, ...as()]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^ep_\\S+  ${receiver.url}  configured: site_view \\(policy standard\\)  (healthy|failing \\(\\d+ in a row\\))$`,
      ),
    );
    expect(lines[1]).toBe(
      `${added.id}  ${receiver.url}/second  subscribed: page_feedback (policy extended; at most 20 / s)  healthy`,
    );
    const json = JSON.parse((await portico(['endpoints', site, '--json', ...as()])).stdout);
    expect(json.map((e: { id: string }) => e.id)[1]).toBe(added.id);
    const usageError = await portico(['endpoints', ...as()]);
    expect(usageError.code).toBe(2);
    expect(usageError.stderr).toMatch(/give the installation whose endpoints to list/);
  });

  it('gives the server’s refusal with exit status 1, and usage mistakes with 2', async () => {
    const unknown = await portico(['redeliver', 'dlv_nope', ...as()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'portico redeliver: POST /v1/deliveries/dlv_nope/redeliver was refused (404 not_found): the delivery dlv_nope does not exist\n',
    );
    const stranger = await portico(['deliveries', 'inst_nope', ...as()]);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/the installation inst_nope does not exist/);
    for (const [args, message] of [
      [
        ['deliveries', site, '--status', 'lost'],
        /--status "lost" is not a delivery status: give pending, delivered, failed/,
      ],
      [['deliveries', site, '--limit', '500'], /--limit must be a whole number from 1 to 200, got "500"/],
      [['recover', site, '--since', 'yesterday'], /--since "yesterday" is not a time: give an ISO 8601 time/],
      [['recover', site], /required option '--since <time>' not specified/],
      [['redeliver'], /missing required argument 'delivery'/],
      [['deliveries'], /give the installation whose deliveries to list/],
    ] as [string[], RegExp][]) {
      const result = await portico([...args, ...as()]);
      expect(result.stderr).toMatch(message);
      expect(result.code).toBe(2);
    }
  });
});
