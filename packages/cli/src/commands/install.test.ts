/**
 * `portico install` and `portico configure` for scripted setups, against a real platform: installing
 * again keeps what is there, values are JSON when they parse, and the server's refusals name the
 * property.
 */
import { describe, expect, it } from 'vitest';
import { portico, serverWorld } from '../test-support/server-world.js';

const world = serverWorld();
const as = () => ['--api', world.url, '--token', world.adaToken];

describe('portico install and configure', () => {
  let space: string;

  it('installs in the organization and into a space and a site, and prints what keeps them pending', async () => {
    const result = await portico(['install', 'webhook', '--org', 'acme', '--space', 'docs', '--site', 'site', ...as()]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^inst_\w+ organization acme active$/);
    expect(lines[1]).toMatch(/^inst_\w+ space docs pending$/);
    expect(lines[2]).toMatch(/^inst_\w+ site site pending$/);
    space = lines[1]?.split(' ')[0] as string;
    expect(result.stderr).toMatch(`portico install: ${space} is pending: \`url\` is required`);
    expect(result.stderr).toMatch(`configure what is missing with portico configure ${space} key=value…`);
    const installation = await world.api('GET', `/v1/installations/${space}`);
    expect(installation).toMatchObject({ integration: 'webhook', target: { type: 'space', id: 'docs' } });
  });

  it('keeps what is installed already, so a script can run it again', async () => {
    const result = await portico(['install', 'webhook', '--org', 'acme', '--space', 'docs', '--json', ...as()]);
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer.spaces).toEqual([expect.objectContaining({ id: space, existing: true, status: 'pending' })]);
    expect(answer.organization).toMatchObject({ existing: true, target: { type: 'organization', id: 'acme' } });
    expect(answer.sites).toEqual([]);
  });

  it('sets properties, reading JSON values, and prints the status', async () => {
    const pending = await portico(['configure', space, 'space_content_updated=true', ...as()]);
    expect(pending).toMatchObject({ code: 0, stdout: `${space} pending\n` });
    expect(pending.stderr).toBe('portico configure: still pending: `url` is required\n');
    const active = await portico(['configure', space, 'url=https://hooks.example.com/portico', '--json', ...as()]);
    expect(active.code, active.stderr).toBe(0);
    expect(JSON.parse(active.stdout)).toMatchObject({
      status: 'active',
      configuration: { url: 'https://hooks.example.com/portico', space_content_updated: true },
      errors: [],
    });
    // A string where the schema wants a boolean is refused whole (nothing wrong is saved).
    const quoted = await portico(['configure', space, 'space_content_updated="true"', ...as()]);
    expect(quoted).toMatchObject({ code: 1, stdout: '' });
    expect(quoted.stderr).toMatch(/^portico configure: .*space_content_updated/);
    expect((await world.api('GET', `/v1/installations/${space}`)).configuration.space_content_updated).toBe(true);
    const removed = await portico(['configure', space, 'space_content_updated=null', '--json', ...as()]);
    expect(JSON.parse(removed.stdout)).toMatchObject({ status: 'active' });
    expect(JSON.parse(removed.stdout).configuration).not.toHaveProperty('space_content_updated');
  });

  it('sets a webhook installation’s delivery policy with --delivery-policy; a bad one changes nothing', async () => {
    const extended = await portico(['configure', space, '--delivery-policy', 'extended', '--json', ...as()]);
    expect(extended.code, extended.stderr).toBe(0);
    expect(JSON.parse(extended.stdout).configuration.delivery_policy).toBe('extended');
    const bad = await portico(['configure', space, '--delivery-policy', 'Weekly', ...as()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^portico configure: --delivery-policy must be one of standard, extended, not "Weekly":/,
    );
    expect(bad.stderr).toMatch(/Standard: the first attempt, then retries after 1, 2 and 4 seconds/);
    expect(bad.stderr).toMatch(/Extended: the first attempt, then retries after 5 s/);
    // The server judges a value given as key=value, naming the property and the choices.
    const refused = await portico(['configure', space, 'delivery_policy=weekly', ...as()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/nothing was saved: .*`delivery_policy` must be one of standard, extended/);
    expect((await world.api('GET', `/v1/installations/${space}`)).configuration.delivery_policy).toBe('extended');
    const standard = await portico(['configure', space, '--delivery-policy', 'standard', ...as()]);
    expect(standard.code, standard.stderr).toBe(0);
    expect((await world.api('GET', `/v1/installations/${space}`)).configuration.delivery_policy).toBe('standard');
  });

  it('prints the server’s refusal naming the property, with exit status 1, and saves nothing', async () => {
    const result = await portico(['configure', space, 'urll=https://x.example', ...as()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^portico configure: the server refused the configuration of inst_\w+, nothing was saved: `urll` is not a property .*\(did you mean "url"\?\)/,
    );
    expect((await world.api('GET', `/v1/installations/${space}`)).configuration).not.toHaveProperty('urll');
  });

  it('refuses what cannot work with exit status 1 or 2', async () => {
    const missing = await portico(['install', 'no-such-integration', '--org', 'acme', ...as()]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/the integration no-such-integration does not exist/);
    const elsewhere = await portico(['install', 'webhook', '--org', 'acme', '--space', 'nowhere', ...as()]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/the space nowhere does not exist/);
    for (const [args, message] of [
      [['install', 'webhook'], /give the organization to install into with --org ORG/],
      [['configure', space, 'url'], /"url" is not key=value: give each property as name=value/],
      [['configure', space, 'url=a', 'url=b'], /url is set twice/],
      [['configure', space], /nothing to set: give properties as name=value .* or --delivery-policy/],
      [
        ['configure', space, '--delivery-policy', 'weekly'],
        /--delivery-policy must be one of standard, extended, not "weekly"/,
      ],
      [
        ['configure', space, '--delivery-policy', 'extended', 'delivery_policy=standard'],
        /delivery_policy is set twice/,
      ],
    ] as [string[], RegExp][]) {
      const result = await portico([...args, ...as()]);
      expect(result.stderr).toMatch(message);
      expect(result.code).toBe(2);
    }
  });
});
