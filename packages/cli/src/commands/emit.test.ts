/**
 * `portico emit` against a real platform on 127.0.0.1 whose webhook integration delivers to the
 * reference receiver: the defaults make whole spec 2.9 events, `--field`/`--data` change them,
 * `--wait` prints each dispatch and delivery, and every mistake has its message and exit code.
 * (Each event type of spec 2.9 and 6.1 through `portico dev`: src/scaffold-e2e.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, portico, Receiver, serverWorld, until } from '../test-support/server-world.js';

const world = serverWorld();
const receiver = new Receiver();
let org: string;
let space: string;
let site: string;
const as = () => ['--api', world.url, '--token', world.adminToken];

beforeAll(async () => {
  await receiver.start();
  org = (await world.api('POST', '/v1/orgs/acme/installations', { integration: 'webhook' }, world.adaToken)).id;
  space = (await world.api('POST', `/v1/installations/${org}/spaces/docs`, undefined, world.adaToken)).id;
  site = (await world.api('POST', `/v1/installations/${org}/sites/site`, undefined, world.adaToken)).id;
  await world.api('PATCH', `/v1/installations/${space}/configuration`, {
    url: receiver.url,
    space_content_updated: true,
  });
  await world.api('PATCH', `/v1/installations/${site}/configuration`, {
    url: receiver.url,
    site_view: true,
    page_feedback: true,
  });
  receiver.verifyWith(await secrets());
}, 60_000);
afterAll(() => receiver.close());

/** The signing secrets of the space and site installations: the receiver takes both. */
const secrets = async () =>
  Promise.all(
    [space, site].map(
      async (id) => (await world.api('GET', `/v1/installations/${id}/signing-secret`)).secret as string,
    ),
  );

const received = (eventId: string) =>
  until(`the receiver to accept ${eventId}`, () => receiver.accepted.find((e) => e.eventId === eventId));

describe('portico emit', () => {
  it('sends site_view with every spec 2.9 field and prints the eventId alone', async () => {
    const result = await portico(['emit', 'site_view', '--site', 'site', ...as()]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^evt_\w+\n$/);
    const eventId = result.stdout.trim();
    const { body } = await received(eventId);
    expect(body).toEqual({
      eventId,
      type: 'site_view',
      installationId: site,
      siteId: 'site',
      visitor: {
        anonymousId: expect.stringMatching(/^anon_/),
        userAgent: expect.stringMatching(/^portico-emit\//),
        ip: '203.0.113.10',
        cookies: {},
      },
      url: 'https://docs.example.com/site/getting-started',
      referrer: 'https://www.example.com/',
    });
  });

  it('--wait prints each change of the delivery fanned out to the subscription until it is delivered', async () => {
    const result = await portico(['emit', 'space_content_updated', '--space', 'docs', '--wait', ...as()]);
    expect(result.code, result.stderr).toBe(0);
    const [eventId, ...lines] = result.stdout.trim().split('\n');
    expect(eventId).toMatch(/^evt_/);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d space_content_updated → webhook in space docs \\(${space}\\): written for its webhook subscriptions when accepted$`,
      ),
    );
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `delivery dlv_\\w+ \\(space_content_updated ${eventId}\\) → ${receiver.url}: delivered \\(attempt 1: 200 in \\d+ ms\\)$`,
      ),
    );
    expect(result.stderr).toMatch(/space_content_updated sent to space docs; waiting for what it causes/);
    expect((await received(eventId as string)).body).toMatchObject({ revisionId: expect.stringMatching(/^rev_/) });
  });

  it('sets nested fields with --field and merges --data, for page_feedback in the site’s organization’s space', async () => {
    const result = await portico([
      'emit',
      'page_feedback',
      '--site',
      'site',
      '--data',
      '{"feedback":{"comment":"Too short"},"referrer":"https://search.example/"}',
      '--field',
      'feedback.rating=bad',
      '--field',
      'visitor.cookies={"theme":"dark"}',
      '--field',
      'pageId=123',
      '--wait',
      '--json',
      ...as(),
    ]);
    expect(result.code, result.stderr).toBe(0);
    const trace = JSON.parse(result.stdout);
    expect(trace).toMatchObject({
      over: true,
      duplicate: false,
      // Fanned out to the site's subscription when accepted: no dispatch owed.
      installations: [],
      deliveries: [{ installationId: site, status: 'delivered' }],
    });
    expect((await received(trace.eventId)).body).toMatchObject({
      spaceId: 'docs',
      pageId: '123',
      feedback: { rating: 'bad', comment: 'Too short' },
      visitor: { cookies: { theme: 'dark' } },
      referrer: 'https://search.example/',
    });
  });

  it('says when an eventId was accepted before, and sends nothing again', async () => {
    const args = ['emit', 'space_visibility_updated', '--space', 'docs', '--field', 'eventId=evt_fixed_1', ...as()];
    expect(await portico(args)).toMatchObject({ code: 0, stdout: 'evt_fixed_1\n', stderr: '' });
    const again = await portico(args);
    expect(again).toMatchObject({ code: 0, stdout: 'evt_fixed_1\n' });
    expect(again.stderr).toMatch(/evt_fixed_1 was accepted before: this is a duplicate, and nothing is sent again/);
  });

  it('says when no installation received the event', async () => {
    const result = await portico(['emit', 'space_view', '--space', 'docs', '--wait', ...as()]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /no installation received space_view: none in space docs is active, allowed by its scopes and handles it or subscribed to it/,
    );
  });

  it('exits 1 with --wait when the delivery failed, and when the wait timed out', async () => {
    receiver.verifyWith('whsec_wrong');
    try {
      const failed = await portico(['emit', 'site_view', '--site', 'site', '--wait', ...as()]);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toMatch(/→ .*\/hook: failed \(1 attempt\): .*401/);
      expect(failed.stderr).toMatch(/a dispatch or a delivery of evt_\w+ failed \(see above\)/);
    } finally {
      receiver.verifyWith(await secrets());
    }
    const hanging: Server = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/slow`;
    await world.api('PATCH', `/v1/installations/${space}/configuration`, { url });
    try {
      const slow = await portico([
        'emit',
        'space_content_updated',
        '--space',
        'docs',
        '--wait',
        '--timeout',
        '0.5',
        ...as(),
      ]);
      expect(slow.code).toBe(1);
      expect(slow.stderr).toMatch(
        /gave up waiting after 0.5 s for the delivery dlv_\w+ to http:\/\/127.0.0.1:\d+\/slow/,
      );
    } finally {
      await world.api('PATCH', `/v1/installations/${space}/configuration`, { url: receiver.url });
      hanging.closeAllConnections();
      hanging.close();
    }
  });

  it('says the built-in webhook integration is sent no setup event, and refuses the wrong kind of installation', async () => {
    // (A setup event emitted to an integration with code: scaffold-e2e and first-integration tests.)
    const result = await portico(['emit', 'installation_setup', '--installation', org, '--wait', ...as()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      `webhook in organization acme (${org}) is the built-in webhook integration's: it runs no code and is sent no setup event`,
    );
    const wrong = await portico(['emit', 'space_installation_setup', '--installation', org, ...as()]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      `${org} is a organization installation: space_installation_setup goes to space installations (send it installation_setup)`,
    );
  });

  it('renders a component for ui_render and prints what it rendered', async () => {
    const result = await portico(['emit', 'ui_render', '--installation', space, '--json', ...as()]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      installationId: space,
      componentId: 'webhook-configuration',
      element: { type: 'configuration' },
    });
  });

  it('prints the server’s refusal, naming the field, with exit status 1', async () => {
    const result = await portico(['emit', 'site_view', '--site', 'site', '--field', 'color=blue', ...as()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^portico emit: POST \/v1\/events was refused \(400 \w+\): .*color/);
    const unknownSite = await portico(['emit', 'page_feedback', '--site', 'nowhere', ...as()]);
    expect(unknownSite.code).toBe(1);
    expect(unknownSite.stderr).toMatch(/the site nowhere does not exist/);
    const wrongToken = await portico(['emit', 'site_view', '--site', 'site', '--api', world.url, '--token', 'pta_no']);
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/\(401 unauthorized\).*check the token given with --token or PORTICO_TOKEN/);
  });

  const usage: [string[], RegExp][] = [
    [
      ['emit', 'sit_view'],
      /"sit_view" is not an event type \(did you mean "site_view"\?\); the types are space_content_updated, /,
    ],
    [['emit', 'site_view'], /site_view needs a site: give --site ID \(or run portico dev in this directory\)/],
    [['emit', 'site_view', '--space', 'docs'], /site_view happens on a site: give --site ID, not --space/],
    [['emit', 'space_view', '--site', 'x'], /space_view happens in a space: give --space ID, not --site/],
    [
      ['emit', 'space_view', '--installation', 'i'],
      /space_view is sent to a space.*give --space ID, not --installation/,
    ],
    [['emit', 'space_view', '--space', 'd', '--field', 'nope'], /--field "nope" is not key=value/],
    [['emit', 'space_view', '--space', 'd', '--field', 'url.x=1'], /--field url.x=1: url is "https:.*", not an object/],
    [['emit', 'space_view', '--space', 'd', '--data', '{nope'], /--data is not JSON/],
    [['emit', 'space_view', '--space', 'd', '--data', '[1]'], /--data must be a JSON object/],
    [['emit', 'space_view', '--space', 'd', '--timeout', 'soon'], /--timeout must be a number of seconds/],
    [
      ['emit', 'installation_setup', '--space', 'd'],
      /installation_setup goes to one installation.*give --installation ID/,
    ],
    [
      ['emit', 'installation_setup'],
      /installation_setup goes to one organization installation: give --installation ID/,
    ],
    [['emit', 'space_view', '--space', 'd', '--api', 'localhost:1'], /--api "localhost:1" is not a server address/],
    [
      ['emit', 'space_view', '--space', 'd', '--api', 'http://127.0.0.1:9'],
      /give the API token for http:\/\/127.0.0.1:9 with --token/,
    ],
  ];
  for (const [args, message] of usage) {
    it(`refuses \`${args.join(' ')}\` as usage (exit status 2)`, async () => {
      const withServer = args.includes('--api') ? args : [...args, '--api', world.url, '--token', world.adminToken];
      const result = await portico(withServer);
      expect(result.stderr).toMatch(message);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
    });
  }

  it('says how to point it at a server when there is none', async () => {
    const saved = { api: process.env.PORTICO_API, token: process.env.PORTICO_TOKEN };
    delete process.env.PORTICO_API;
    delete process.env.PORTICO_TOKEN;
    try {
      const result = await portico(['emit', 'site_view', '--site', 'x']);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toBe(
        'portico emit: no server to talk to: run `portico dev` in this directory (the other commands find it), or pass --api URL --token TOKEN (or set PORTICO_API and PORTICO_TOKEN)\n',
      );
      const api = `http://127.0.0.1:${await closedPort()}`;
      const unreachable = await portico(['emit', 'site_view', '--site', 'x', '--api', api, '--token', 't']);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toBe(
        `portico emit: could not reach ${api} (ECONNREFUSED): is the server running at ${api}?\n`,
      );
    } finally {
      if (saved.api !== undefined) process.env.PORTICO_API = saved.api;
      if (saved.token !== undefined) process.env.PORTICO_TOKEN = saved.token;
    }
  });
});
