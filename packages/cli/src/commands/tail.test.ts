/**
 * `portico tail`, the real binary, against a real platform on 127.0.0.1: the dispatches and
 * deliveries of installations shown as they happen (through GET …/stream), filters, JSON lines,
 * and Ctrl-C. (Without INSTALLATION, in a `portico dev` directory: src/scaffold-e2e.test.ts.)
 */
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, spawnCli } from '../test-support/dev-process.js';
import { portico, Receiver, serverWorld } from '../test-support/server-world.js';

const world = serverWorld();
const receiver = new Receiver();
let space: string;
let site: string;
const started: CliProcess[] = [];

beforeAll(async () => {
  await receiver.start();
  const org = (await world.api('POST', '/v1/orgs/acme/installations', { integration: 'webhook' }, world.adaToken)).id;
  space = (await world.api('POST', `/v1/installations/${org}/spaces/docs`, undefined, world.adaToken)).id;
  site = (await world.api('POST', `/v1/installations/${org}/sites/site`, undefined, world.adaToken)).id;
  await world.api('PATCH', `/v1/installations/${space}/configuration`, {
    url: receiver.url,
    space_content_updated: true,
  });
  await world.api('PATCH', `/v1/installations/${site}/configuration`, { url: receiver.url, site_view: true });
  receiver.verifyWith(
    await Promise.all(
      [space, site].map(async (id) => (await world.api('GET', `/v1/installations/${id}/signing-secret`)).secret),
    ),
  );
}, 60_000);
afterEach(() => {
  for (const cli of started.splice(0)) cli.child.kill('SIGKILL');
});
afterAll(() => receiver.close());

function tail(args: string[]): CliProcess {
  const cli = spawnCli(['tail', ...args, '--api', world.url, '--token', world.adaToken], { cwd: tmpdir() });
  started.push(cli);
  return cli;
}

const emit = async (type: string, place: string[]) => {
  const result = await portico(['emit', type, ...place, '--api', world.url, '--token', world.adminToken]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
};

describe('portico tail', () => {
  it('shows each delivery (fanned out to the subscription: no dispatch) as it happens, until Ctrl-C', async () => {
    const cli = tail([space, site]);
    await cli.waitFor(/following webhook in space docs \(inst_\w+\), webhook in site site \(inst_\w+\) on http/);
    const first = await emit('space_content_updated', ['--space', 'docs']);
    await cli.waitFor(
      new RegExp(`delivery dlv_\\w+ \\(space_content_updated ${first}\\) for webhook in space docs .*: delivered`),
    );
    const second = await emit('site_view', ['--site', 'site']);
    await cli.waitFor(new RegExp(`\\(site_view ${second}\\) for webhook in site site .*: delivered`));
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).not.toMatch(/error/i);
    expect(cli.stdout()).not.toMatch(/→ webhook in space docs \([^)]*\): 204/);
  }, 30_000);

  it('shows an event sent while the installation is paused as skipped, not as failed', async () => {
    const cli = tail([space]);
    await cli.waitFor(/following webhook in space docs/);
    await world.api('POST', `/v1/installations/${space}/pause`, undefined, world.adaToken);
    try {
      await emit('space_content_updated', ['--space', 'docs']);
      await cli.waitFor(
        new RegExp(
          `space_content_updated → webhook in space docs \\(${space}\\): skipped while paused \\(not sent, and not kept\\)`,
        ),
      );
    } finally {
      await world.api('POST', `/v1/installations/${space}/resume`, undefined, world.adaToken);
    }
    // (Two CLI processes start in it, as in the tests beside it: under a loaded CI run that took
    // more than the default 20 s once.)
  }, 30_000);

  it('prints JSON lines, filtered by type and status, and stops after --count events', async () => {
    const cli = tail([space, site, '--json', '--type', 'site_view', '--status', 'delivered', '--count', '1']);
    await cli.waitFor(/following/);
    await emit('space_content_updated', ['--space', 'docs']);
    const eventId = await emit('site_view', ['--site', 'site']);
    expect(await cli.exited).toBe(0);
    const lines = cli
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({
        kind: 'delivery',
        installationId: site,
        type: 'site_view',
        eventId,
        status: 'delivered',
      }),
    ]);
  }, 30_000);

  it('shows what happened since a time', async () => {
    const eventId = await emit('site_view', ['--site', 'site']);
    const cli = tail([site, '--since', '5m', '--type', 'site_view', '--json', '--count', '50']);
    await cli.waitFor(new RegExp(`"kind":"delivery".*"eventId":"${eventId}"`));
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  }, 30_000);

  it('refuses an installation it cannot see (exit 1) and a bad filter (exit 2)', async () => {
    const unknown = await portico(['tail', 'inst_nope', '--api', world.url, '--token', world.adaToken]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/the installation inst_nope does not exist/);
    const status = await portico(['tail', site, '--status', 'great', '--api', world.url, '--token', world.adaToken]);
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(
      /--status "great" is not a status: give ok, failed, pending, delivered or an HTTP status/,
    );
  });
});
