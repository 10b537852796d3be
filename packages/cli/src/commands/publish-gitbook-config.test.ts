/**
 * What a GitBook-dialect integration is given as that platform gives it, end to end on SQLite and
 * PostgreSQL: test-support/gitbook/gb-config (copied, with its icon), built and published with the
 * real CLI (`portico publish`), installed with `portico install` in the organization, a space and
 * a site, its configuration screens rendered with `portico emit ui_render`. Its configuration
 * component gets `props.installation` and `props.spaceInstallation` / `siteInstallation` with
 * their configurations (its `initialState` reads them); its environment's `integration` is whole
 * (title, summary, `externalLinks`, `urls.icon`, its `contentSecurityPolicy` as one header value); the compat API's spaces and sites have `urls`.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../../platform/src/test-support/backends.js';
import { gitbookFixture, portico, serverWorld } from '../test-support/server-world.js';

/** A 1 x 1 PNG. */
const ICON = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

interface Installed {
  organization: { id: string };
  spaces: { id: string }[];
  sites: { id: string }[];
}

describe.each(backends)('a GitBook-dialect integration’s props, environment and places on $name', (backend) => {
  const world = serverWorld({ backend });
  let dir: string;
  let installed: Installed;
  const as = () => ['--api', world.url, '--token', world.adaToken];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-gb-config-'));
    await cp(gitbookFixture('gb-config'), dir, { recursive: true });
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'assets/icon.png'), ICON);
    const published = await portico(['publish', dir, ...as()]);
    expect(published.stderr).toBe('');
    expect(published.stdout).toMatch(/^Published gb-config version 1 /);
    const install = await portico([
      'install',
      'gb-config',
      '--org',
      'acme',
      '--space',
      'docs',
      '--site',
      'site',
      '--json',
      ...as(),
    ]);
    expect(install.code, install.stderr).toBe(0);
    installed = JSON.parse(install.stdout) as Installed;
    await world.api('PATCH', `/v1/installations/${installed.organization.id}/configuration`, { greeting: 'Hello' });
    await world.api('PATCH', `/v1/installations/${installed.spaces[0]?.id}/configuration`, { room: 'Blue' });
    await world.api('PATCH', `/v1/installations/${installed.sites[0]?.id}/configuration`, { room: 'Green' });
  }, 90_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const render = async (installation: string) => {
    const args = ['emit', 'ui_render', '--installation', installation, '--field', 'componentId=config'];
    const result = await portico([...args, '--json', ...as()]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { componentId: string; state: unknown; element: unknown };
  };

  it('gives its configuration component its installations as props, read by its initialState', async () => {
    const organization = await render(installed.organization.id);
    expect(organization).toMatchObject({ componentId: 'config', state: { greeting: 'Hello', room: null } });
    expect(await render(installed.spaces[0]?.id ?? '')).toMatchObject({ state: { greeting: 'Hello', room: 'Blue' } });
    const site = await render(installed.sites[0]?.id ?? '');
    expect(site).toMatchObject({ state: { greeting: 'Hello', room: 'Green' } });
    expect(site.element).toEqual({
      type: 'configuration',
      children: [{ type: 'markdown', content: 'Greeting: Hello; room: Green' }],
    });
  }, 30_000);

  it('renders a block for an editor, and read-only with editable=false', async () => {
    const space = installed.spaces[0]?.id ?? '';
    const block = async (...fields: string[]) => {
      const args = ['emit', 'ui_render', '--installation', space, '--field', 'componentId=preview'];
      const result = await portico([...args, ...fields.flatMap((field) => ['--field', field]), '--json', ...as()]);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { element: { children: { type: string }[] } }).element.children;
    };
    expect((await block()).map((child) => child.type)).toEqual(['text', 'input']);
    expect((await block('editable=false')).map((child) => child.type)).toEqual(['text']);
    const wrong = await portico(['emit', 'ui_render', '--installation', space, '--field', 'editable=maybe', ...as()]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/editable must be true or false/);
  }, 30_000);

  it('has its whole description in environment.integration', async () => {
    const response = await fetch(`${world.url}/v1/integrations/gb-config/public/integration`);
    expect(response.status, await response.clone().text()).toBe(200);
    const seen = (await response.json()) as { icon: string };
    expect(seen).toEqual({
      title: 'Configured',
      summary: 'Shows what its configuration screens are given.',
      link: 'https://docs.example.com/gb-config',
      icon: `${world.url}/v1/integrations/gb-config/assets/icon?v=1`,
      // Written over lines with a trailing ";" in its manifest: one header value.
      contentSecurityPolicy: 'script-src https://cdn.example.com; connect-src https://api.example.com',
    });
    const icon = await fetch(seen.icon, { headers: { authorization: `Bearer ${world.adaToken}` } });
    expect(icon.status).toBe(200);
    expect(new Uint8Array(await icon.arrayBuffer())).toEqual(new Uint8Array(ICON));
  }, 30_000);

  it('reads the urls of its space and site through the compat API', async () => {
    const space = installed.spaces[0]?.id ?? '';
    const response = await fetch(`${world.url}/v1/installations/${space}/public/places?site=site`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({
      space: `${world.url}/spaces/docs`,
      spaceApp: `${world.url}/spaces/docs`,
      site: `${world.url}/sites/site`,
    });
  }, 30_000);
});
