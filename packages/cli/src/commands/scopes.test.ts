/**
 * `portico scopes` against a real platform: it shows what an installation was granted and the new
 * permissions a later version asks for, the operator's list of pending requests, and `--accept`
 * grants them (an admin's token).
 */
import { describe, expect, it } from 'vitest';
import { portico, serverWorld } from '../test-support/server-world.js';

const world = serverWorld();
const manifest = (scopes: string) =>
  `name: asker\ntitle: Asker\ndescription: test\norganization: acme\nvisibility: private\nscopes: [${scopes}]\n`;

describe('portico scopes', () => {
  it('shows a request, lists it for the operator, and accepts it', async () => {
    await world.api('POST', '/v1/integrations', { manifest: manifest('space:content:read'), script: '// v1' });
    const installed = await world.api('POST', '/v1/orgs/acme/installations', { integration: 'asker' }, world.adaToken);
    const id = installed.id as string;
    await world.api('POST', '/v1/integrations', {
      manifest: manifest('space:content:read, space:git:sync'),
      script: '// v2',
    });
    const ada = ['--api', world.url, '--token', world.adaToken];
    const shown = await portico(['scopes', id, ...ada]);
    expect(shown).toMatchObject({
      code: 0,
      stdout: `${id}  asker  granted: space:content:read  asks for new permissions: space:git:sync\n`,
    });
    const listed = await portico(['scopes', '--json', '--api', world.url, '--token', world.adminToken]);
    expect(JSON.parse(listed.stdout)).toEqual([
      { installationId: id, integration: 'asker', granted: ['space:content:read'], requested: ['space:git:sync'] },
    ]);
    // Only the operator lists every request.
    const refused = await portico(['scopes', ...ada]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/operator admin token/);

    const accepted = await portico(['scopes', id, '--accept', ...ada]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toBe(`portico scopes: ${id} granted space:git:sync\n`);
    expect(accepted.stdout).toBe(`${id}  asker  granted: space:content:read, space:git:sync\n`);
    expect((await world.api('GET', `/v1/installations/${id}`)).scopes).toEqual({
      granted: ['space:content:read', 'space:git:sync'],
      requested: [],
    });
    const none = await portico(['scopes', '--api', world.url, '--token', world.adminToken]);
    expect(none).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'portico scopes: no installation asks for new permissions\n',
    });
  });
});
