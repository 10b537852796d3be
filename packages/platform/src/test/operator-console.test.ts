/**
 * What the operator console lists across organizations, on SQLite and PostgreSQL: every user with
 * their memberships (`GET /v1/users`) and the endpoints that are disabled or failing, with their
 * installation and place (`GET /v1/endpoints`). Both are for the admin token only.
 */
import { describe, expect, it } from 'vitest';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

describe.each(backends)('operator console listings on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  /** Points the installation at `url`, sends a test event and waits for it to fail. */
  async function failOnce(installation: string, url: string) {
    expect((await world.ada('PATCH', `/v1/installations/${installation}/configuration`, { url })).status).toBe(200);
    const test = await world.ada('POST', `/v1/installations/${installation}/test-delivery`);
    expect(test.status).toBe(202);
    await until('the test delivery to fail', async () => {
      const { body } = await world.ada('GET', `/v1/deliveries/${test.body.id}`);
      return body.status === 'failed' ? body : undefined;
    });
  }

  it('lists every user by name with their organizations and roles, for the operator only', async () => {
    await world.admin('POST', '/v1/orgs', { id: 'globex', title: 'Globex' });
    expect((await world.admin('POST', '/v1/users', { id: 'zed', name: 'Zed' })).status).toBe(201);
    await world.admin('PUT', '/v1/orgs/globex/members/zed', { role: 'member' });
    await world.admin('PUT', '/v1/orgs/acme/members/zed', { role: 'admin' });
    const { status, body } = await world.admin('GET', '/v1/users');
    expect(status).toBe(200);
    expect(body.map((u: { id: string }) => u.id)).toEqual(['ada', 'zed']);
    expect(body[1]).toEqual({
      id: 'zed',
      name: 'Zed',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      memberships: [
        { organization: 'acme', role: 'admin' },
        { organization: 'globex', role: 'member' },
      ],
    });
    const refused = await world.ada('GET', '/v1/users');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.body.error.message).toMatch(/admin token/);
  });

  it('lists disabled, then failing endpoints across organizations with where they belong; enabling one takes it off', async () => {
    expect((await world.admin('GET', '/v1/endpoints')).body).toEqual([]);
    const gone = receiver.script('/gone', [410]);
    const broken = receiver.script('/broken', [400]);
    await failOnce(world.space, gone);
    await failOnce(world.site, broken);

    const all = await world.admin('GET', '/v1/endpoints');
    expect(all.status).toBe(200);
    expect(all.body.map((e: { url: string; state: string }) => [e.url, e.state])).toEqual([
      [gone, 'disabled'],
      [broken, 'failing'],
    ]);
    const [disabled, failing] = all.body;
    expect(disabled.installation).toEqual({
      id: world.space,
      integration: 'webhook',
      organization: { id: 'acme', title: 'Acme' },
      target: { type: 'space', id: 'docs', title: 'Docs' },
    });
    expect(disabled.disabledReason).toMatch(/410 Gone/);
    expect(failing.installation.target).toEqual({ type: 'site', id: 'site', title: 'Site' });
    expect(failing.consecutiveFailures).toBe(1);
    expect(failing.lastError).toMatch(/400/);

    const onlyFailing = await world.admin('GET', '/v1/endpoints?state=failing');
    expect(onlyFailing.body.map((e: { url: string }) => e.url)).toEqual([broken]);
    const onlyDisabled = await world.admin('GET', '/v1/endpoints?state=disabled');
    expect(onlyDisabled.body.map((e: { url: string }) => e.url)).toEqual([gone]);

    const bad = await world.admin('GET', '/v1/endpoints?state=broken');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/state/);
    const refused = await world.ada('GET', '/v1/endpoints');
    expect(refused.status).toBe(403);

    const enabled = await world.admin('POST', `/v1/installations/${world.space}/endpoints/${disabled.id}/enable`);
    expect(enabled.status).toBe(200);
    expect((await world.admin('GET', '/v1/endpoints?state=disabled')).body).toEqual([]);
    expect((await world.admin('GET', '/v1/endpoints')).body.map((e: { url: string }) => e.url)).toEqual([broken]);
  });
});
