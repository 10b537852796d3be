/**
 * The contract's Roles on the real server, on SQLite and PostgreSQL: an organization's admins
 * manage its integrations (install, choose places, configure, pause and resume, reveal and rotate
 * signing secrets, send test events, redeliver, recover, enable endpoints, set alert URLs,
 * uninstall); a member reads all of it and is refused every management call with 403 `forbidden`
 * naming the admin role and what was asked, and nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

describe.each(backends)('roles on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  /** Mia, a plain member of acme, and a failed delivery of the space installation to redeliver. */
  async function setUp() {
    const token = (await world.admin('POST', '/v1/users', { id: `mia-${Date.now()}`, name: 'Mia' })).body;
    await world.admin('PUT', `/v1/orgs/acme/members/${token.id}`, { role: 'member' });
    const mia = client(world.platform.url, token.token);
    const url = receiver.script('/roles-fail', [400]);
    expect((await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url })).status).toBe(200);
    await world.admin('POST', '/v1/orgs/acme/spaces', { id: `extra-${token.id}`, title: 'Extra' });
    const test = await world.ada('POST', `/v1/installations/${world.space}/test-delivery`);
    expect(test.status).toBe(202);
    const failed = await until('the test delivery to fail', async () => {
      const { body } = await world.ada('GET', `/v1/deliveries/${test.body.id}`);
      return body.status === 'failed' ? body : undefined;
    });
    return { mia, memberId: token.id as string, url, failed, extraSpace: `extra-${token.id}` };
  }

  it('lets a member read everything and refuses each management call, naming the admin role', async () => {
    const { mia, failed, url, extraSpace } = await setUp();
    const { space, orgInstallation } = world;
    // What a member may read.
    for (const path of [
      `/v1/installations/${space}`,
      `/v1/installations/${space}?view=page`,
      `/v1/installations/${space}/deliveries`,
      `/v1/deliveries/${failed.id}`,
      `/v1/installations/${space}/dispatches`,
      `/v1/installations/${space}/recoveries`,
      `/v1/installations/${space}/endpoints`,
      `/v1/orgs/acme/alert-url`,
    ]) {
      expect({ path, status: (await mia('GET', path)).status }).toEqual({ path, status: 200 });
    }
    const endpointId = (await mia('GET', `/v1/installations/${space}/endpoints`)).body[0].id as string;
    const before = (await mia('GET', `/v1/installations/${space}`)).body;
    const deliveriesBefore = (await mia('GET', `/v1/installations/${space}/deliveries`)).body.length;
    const received = receiver.received.length;

    const refused: [string, string, unknown, RegExp][] = [
      ['POST', '/v1/orgs/acme/installations', { integration: 'webhook' }, /^installing an integration needs/],
      [
        'POST',
        `/v1/installations/${orgInstallation}/spaces/${extraSpace}`,
        undefined,
        /^installing into a space needs/,
      ],
      [
        'PATCH',
        `/v1/installations/${orgInstallation}`,
        { space_selection: { mode: 'all' } },
        /^choosing where it is installed needs/,
      ],
      [
        'PATCH',
        `/v1/installations/${space}/configuration`,
        { url: 'https://attacker.example/hook' },
        /^changing the configuration needs/,
      ],
      ['POST', `/v1/installations/${space}/pause`, undefined, /^pausing an installation needs/],
      ['POST', `/v1/installations/${space}/resume`, undefined, /^resuming an installation needs/],
      ['GET', `/v1/installations/${space}/signing-secret`, undefined, /^revealing the signing secret needs/],
      ['POST', `/v1/installations/${space}/signing-secret/rotate`, undefined, /^rotating the signing secret needs/],
      ['POST', `/v1/installations/${space}/test-delivery`, undefined, /^sending a test event needs/],
      ['POST', `/v1/deliveries/${failed.id}/redeliver`, undefined, /^redelivering needs/],
      [
        'POST',
        `/v1/installations/${space}/deliveries/recover`,
        { since: new Date(Date.now() - 60_000).toISOString() },
        /^recovering failed deliveries needs/,
      ],
      [
        'POST',
        `/v1/installations/${space}/deliveries`,
        { url: 'https://attacker.example/hook', eventId: 'e1', type: 'space_content_updated', payload: {} },
        /^asking for a delivery needs/,
      ],
      ['POST', `/v1/installations/${space}/endpoints/${endpointId}/enable`, undefined, /^enabling an endpoint needs/],
      ['PUT', '/v1/orgs/acme/alert-url', { url: 'https://ops.example.com/a' }, /^setting the alert URL needs/],
      ['DELETE', '/v1/orgs/acme/alert-url', undefined, /^clearing the alert URL needs/],
      ['POST', `/v1/installations/${space}/token/rotate`, undefined, /^rotating the installation token needs/],
      ['DELETE', `/v1/installations/${space}`, undefined, /^uninstalling needs/],
    ];
    for (const [method, path, body, message] of refused) {
      const answer = await mia(method, path, body);
      expect({ method, path, status: answer.status, code: answer.body?.error?.code }).toEqual({
        method,
        path,
        status: 403,
        code: 'forbidden',
      });
      expect(answer.body.error.message).toMatch(message);
      expect(answer.body.error.message).toMatch(/the admin role in the organization acme, and you are a member/);
    }

    // Nothing changed: the configuration, status, selection, deliveries and what the receiver got.
    const after = (await mia('GET', `/v1/installations/${space}`)).body;
    expect(after.configuration).toEqual(before.configuration);
    expect(after.configuration.url).toBe(url);
    expect(after.status).toBe(before.status);
    expect((await mia('GET', `/v1/installations/${space}/deliveries`)).body.length).toBe(deliveriesBefore);
    expect((await mia('GET', `/v1/installations/${space}/recoveries`)).body).toEqual([]);
    expect(receiver.received.length).toBe(received);
    const org = (await mia('GET', `/v1/installations/${orgInstallation}`)).body;
    expect(org.space_selection).toEqual({ mode: 'selected', spaces: ['docs'] });
  });

  it('lets an admin make each of those calls', async () => {
    const { failed, extraSpace } = await setUp();
    const { space, orgInstallation, ada } = world;
    const ok = async (method: string, path: string, body?: unknown) => {
      const answer = await ada(method, path, body);
      expect({ method, path, status: answer.status < 300 ? 'ok' : answer.status, body: answer.body }).toMatchObject({
        status: 'ok',
      });
      return answer.body;
    };
    await ok('POST', `/v1/installations/${orgInstallation}/spaces/${extraSpace}`);
    await ok('PATCH', `/v1/installations/${space}/configuration`, { url: receiver.script('/roles-ok', [200]) });
    expect((await ok('GET', `/v1/installations/${space}/signing-secret`)).secret).toMatch(/^whsec_/);
    await ok('POST', `/v1/installations/${space}/signing-secret/rotate`);
    await ok('POST', `/v1/installations/${space}/test-delivery`);
    await ok('POST', `/v1/deliveries/${failed.id}/redeliver`);
    await ok('POST', `/v1/installations/${space}/deliveries/recover`, {
      since: new Date(Date.now() - 60_000).toISOString(),
    });
    await ok('POST', `/v1/installations/${space}/pause`);
    await ok('POST', `/v1/installations/${space}/resume`);
    await ok('PUT', '/v1/orgs/acme/alert-url', { url: 'https://ops.example.com/a' });
    await ok('DELETE', '/v1/orgs/acme/alert-url');
    // The installation's own token still asks for its deliveries and reads its secret.
    const own = client(world.platform.url, world.spaceToken);
    expect((await own('GET', `/v1/installations/${space}/signing-secret`)).status).toBe(200);
    // And the operator may do all of it.
    expect((await world.admin('POST', `/v1/installations/${space}/test-delivery`)).status).toBe(202);
  });
});
