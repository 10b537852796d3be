/**
 * `portico dev` with a GitBook-dialect site script (a copy of test-support/gitbook/gb-widget: scope
 * `site:script:inject`, `target: site`, a `.raw.js` widget), as a developer runs it: the real
 * binary in a directory outside the repository. It publishes to its own platform as that
 * platform's operator, so the internal scope is allowed; it is installed in the organization and
 * the dev site only (its target leaves spaces out), and `portico emit` sends there by default and
 * names the target for a space event. Its site installation, once configured, serves the widget
 * built in development mode, and a saved change to the `.raw.js` file is in the next script served.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devInDirectory } from '../test-support/dev-process.js';
import { gitbookFixture, until } from '../test-support/server-world.js';

const { dir, dev, server, portico } = devInDirectory('gb-widget', async (dir) => {
  await cp(gitbookFixture('gb-widget'), dir, { recursive: true });
});

describe('portico dev with a GitBook-dialect site script', () => {
  it('installs it with its internal scope in the organization and the site its target allows', async () => {
    expect(dev.output()).not.toMatch(/internal to the platform/);
    const out = dev.stdout();
    expect(out).toMatch(/gb-widget version \d+ is installed in the organization acme and the site dev-site \(ready/);
    expect(out).toMatch(/^Public endpoint: \S+ \(organization acme\)$/m);
    expect(out).toMatch(/^Public endpoint: \S+ \(site dev-site, pending: configure it in the dashboard\)$/m);
    expect(out).not.toMatch(/\(space dev-space/);
    expect(out).toContain(
      'Not installed in the space dev-space: its gitbook-manifest.yaml says `target: site` (installed in the organization and its sites only)\n',
    );
    expect(server()).toMatchObject({ target: 'site', space: 'dev-space', site: 'dev-site' });
    expect(server().installations.space).toBeUndefined();
    const space = await fetch(`${server().api}/v1/spaces/dev-space`, {
      headers: { authorization: `Bearer ${server().adminToken()}` },
    }).then((r) => r.json() as Promise<{ installations: unknown[] }>);
    expect(space.installations).toEqual([]);
  });

  it('emits to the site by default, and names the target for a space event', async () => {
    const sent = await portico('emit', 'site_view');
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^evt_\S+\n$/);

    const refused = await portico('emit', 'space_content_updated');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'space_content_updated happens in a space, and gb-widget is not installed in the space dev-space: its gitbook-manifest.yaml says `target: site` (installed in the organization and its sites only); give --space ID to send it elsewhere',
    );
    const setup = await portico('emit', 'space_installation_setup');
    expect(setup.code).toBe(2);
    expect(setup.stderr).toContain(
      'space_installation_setup goes to a space installation, and gb-widget is not installed in the space dev-space: its gitbook-manifest.yaml says `target: site`',
    );
    expect(setup.stderr).toContain('send installation_setup or site_installation_setup');
  });

  it('serves its widget built in development mode', async () => {
    const site = server().installations.site;
    const configured = await fetch(`${server().api}/v1/installations/${site}/configuration`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${server().adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ room: 'lobby' }),
    });
    expect(configured.status, await configured.text()).toBe(200);
    const script = await fetch(`${server().api}/v1/installations/${site}/published-script`);
    expect(script.status, await script.clone().text()).toBe(200);
    expect(await script.text()).toMatch(/\{ room: "lobby", site: "dev-site", mode: "development" \}/);
  });

  it('serves a saved change to its .raw.js widget in the next script', async () => {
    const from = dev.output().length;
    const widget = await readFile(join(dir, 'src/widget.raw.js'), 'utf8');
    await writeFile(join(dir, 'src/widget.raw.js'), widget.replace('window.widgetSettings', 'window.chatSettings'));
    await dev.waitFor(
      /Reloaded: gb-widget version \d+ is live, \d+ ms after the change \(src\/widget\.raw\.js\)/,
      10_000,
      from,
    );
    const url = `${server().api}/v1/installations/${server().installations.site}/published-script`;
    const changed = await until(
      'the new widget to be served',
      async () => {
        const text = await (await fetch(url)).text();
        return text.includes('window.chatSettings') ? text : undefined;
      },
      10_000,
    );
    expect(changed).toMatch(/room: "lobby"/);
  }, 30_000);

  it('stops on SIGINT', async () => {
    dev.child.kill('SIGINT');
    expect(await dev.exited).toBe(0);
  });
});
