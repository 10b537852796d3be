/**
 * `portico dev` with a GitBook-dialect integration whose manifest's `target` leaves places out, as
 * a developer runs it: the real binary, a directory outside the repository. `target: space` is
 * installed in the organization and the dev space only, with the links that apply and one line
 * saying why the dev site is not used; `portico emit` sends to the space by default and names the
 * target for a site event. A saved change of `target` reloads it like any change and installs it
 * where the new target allows, uninstalling it where it no longer does. The integration is written
 * for this test in the shapes of that runtime's wire format (`GET /v1` a 500, text form fields).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDevServer } from '../dev-server-file.js';
import { devInDirectory } from '../test-support/dev-process.js';

const MANIFEST = `name: gb-target
title: GitBook target
description: Renders a banner where its target lets it be installed
organization: acme
visibility: private
script: ./src/index.ts
target: space
scopes: [space:content:read]
blocks:
  - id: banner
    title: Banner
    description: A banner
`;

const SOURCE = `import note from './note.raw.js';

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const form = await request.formData();
    const event = JSON.parse(form.get('event') as string);
    const environment = JSON.parse(form.get('environment') as string);
    if (event.type !== 'ui_render') return Response.json({ error: 'not handled' }, { status: 406 });
    const where = environment.spaceInstallation ? 'space' : environment.siteInstallation ? 'site' : 'organization';
    const text = note.trim() + ' in the ' + where + ' (' + MODE + ')';
    return Response.json({ element: { type: 'block', children: [{ type: 'text', children: text }] }, state: {} });
  },
};
`;

const { dir, dev, server, portico } = devInDirectory('gb-target', async (dir) => {
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'gitbook-manifest.yaml'), MANIFEST);
  await writeFile(join(dir, 'src/index.ts'), SOURCE);
  await writeFile(join(dir, 'src/note.raw.js'), 'note 0\n');
});

async function api<T>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server().api}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server().adminToken()}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** What the banner block of an installation renders. */
async function render(installation: string | undefined): Promise<string> {
  if (installation === undefined) throw new Error(`no installation to render in:\n${dev.output()}`);
  const { status, body } = await api<{ element?: unknown }>(
    `/v1/installations/${installation}/components/banner/render`,
    { props: {} },
  );
  expect(status, JSON.stringify(body)).toBe(200);
  return JSON.stringify(body.element);
}

/** The integrations installed in a place of the dev world. */
async function installedIn(kind: 'space' | 'site', id: string): Promise<string[]> {
  const { body } = await api<{ installations: { integration: string }[] }>(`/v1/${kind}s/${id}`);
  return body.installations.map((i) => i.integration);
}

/** Saves the manifest with another `target` line (none: `all`) and waits for the reload it causes. */
async function retarget(line: string): Promise<number> {
  const from = dev.output().length;
  const manifest = await readFile(join(dir, 'gitbook-manifest.yaml'), 'utf8');
  await writeFile(join(dir, 'gitbook-manifest.yaml'), manifest.replace(/^target: \w+\n/m, line));
  await dev.waitFor(
    /Reloaded: gb-target version \d+ is live, \d+ ms after the change \(gitbook-manifest\.yaml\)/,
    10_000,
    from,
  );
  return from;
}

describe('portico dev with a gitbook-manifest.yaml whose target leaves places out', () => {
  it('installs `target: space` in the organization and the dev space only, and says why not in the site', async () => {
    const out = dev.stdout();
    expect(out).toMatch(/gb-target version \d+ is installed in the organization acme and the space dev-space \(ready/);
    expect(out).toMatch(/^Public endpoint: \S+ \(organization acme\)$/m);
    expect(out).toMatch(/^Public endpoint: \S+ \(space dev-space\)$/m);
    expect(out).not.toMatch(/\(site dev-site/);
    expect(out).toContain(
      'Not installed in the site dev-site: its gitbook-manifest.yaml says `target: space` (installed in the organization and its spaces only)\n',
    );
    expect(server()).toMatchObject({ integration: 'gb-target', target: 'space' });
    expect(server().installations.site).toBeUndefined();
    expect(await installedIn('site', 'dev-site')).toEqual([]);
    expect(await render(server().installations.space)).toContain('note 0 in the space (development)');
  });

  it('emits to the space by default, and names the target for a site event', async () => {
    const sent = await portico('emit', 'space_content_updated');
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^evt_\S+\n$/);

    const refused = await portico('emit', 'site_view');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      'site_view happens on a site, and gb-target is not installed in the site dev-site: its gitbook-manifest.yaml says `target: space` (installed in the organization and its spaces only); give --site ID to send it elsewhere',
    );
    const setup = await portico('emit', 'site_installation_setup');
    expect(setup.code).toBe(2);
    expect(setup.stderr).toContain('gb-target is not installed in the site dev-site');
  });

  it('reloads a saved change of target, installing and uninstalling where it now may be', async () => {
    let from = await retarget('target: site\n');
    let printed = dev.stdout().slice(from);
    expect(printed).toMatch(/Installed into the site dev-site \(target: site\): Public endpoint: \S+/);
    expect(printed).toMatch(
      /Uninstalled from the space dev-space \(inst_\w+\): its gitbook-manifest\.yaml says `target: site`/,
    );
    expect(server()).toMatchObject({ target: 'site' });
    expect(server().installations.space).toBeUndefined();
    expect(await installedIn('space', 'dev-space')).toEqual([]);
    expect(await installedIn('site', 'dev-site')).toEqual(['gb-target']);
    expect(await render(server().installations.site)).toContain('note 0 in the site (development)');
    expect((await portico('emit', 'site_view')).code).toBe(0);
    expect((await portico('emit', 'space_view')).stderr).toContain('says `target: site`');

    from = await retarget('target: organization\n');
    printed = dev.stdout().slice(from);
    expect(printed).toMatch(
      /Uninstalled from the site dev-site \(inst_\w+\): its gitbook-manifest\.yaml says `target: organization` \(installed in the organization only\)/,
    );
    expect(server().installations).toEqual({ organization: expect.stringMatching(/^inst_/) });
    expect(await installedIn('site', 'dev-site')).toEqual([]);
    // ui_render goes to the one installation there is.
    const rendered = await portico('emit', 'ui_render', '--field', 'componentId=banner');
    expect(rendered.code, rendered.stderr).toBe(0);
    expect(rendered.stdout).toContain('note 0 in the organization (development)');
    const feedback = await portico('emit', 'page_feedback');
    expect(feedback.code).toBe(2);
    expect(feedback.stderr).toContain(
      'page_feedback happens in a space and on a site, and gb-target is not installed in the space dev-space or the site dev-site: its gitbook-manifest.yaml says `target: organization` (installed in the organization only); give --space ID or --site ID to send it elsewhere',
    );

    // No `target` is `all`: both places again, as a Portico integration is installed.
    from = await retarget('');
    printed = dev.stdout().slice(from);
    expect(printed).toMatch(/Installed into the space dev-space \(target: all\)/);
    expect(printed).toMatch(/Installed into the site dev-site \(target: all\)/);
    expect(server().target).toBeUndefined();
    expect(await installedIn('space', 'dev-space')).toEqual(['gb-target']);
    expect(await installedIn('site', 'dev-site')).toEqual(['gb-target']);

    // A change to a .raw.js file still reloads it where it is installed now.
    from = dev.output().length;
    await writeFile(join(dir, 'src/note.raw.js'), 'note 1\n');
    await dev.waitFor(
      /Reloaded: gb-target version \d+ is live, \d+ ms after the change \(src\/note\.raw\.js\)/,
      10_000,
      from,
    );
    expect(await render(server().installations.space)).toContain('note 1 in the space (development)');
    expect(await render(server().installations.site)).toContain('note 1 in the site (development)');
  }, 60_000);

  it('stops on SIGINT', async () => {
    dev.child.kill('SIGINT');
    expect(await dev.exited).toBe(0);
    expect(readDevServer(dir)).toBeUndefined();
  });
});
