/**
 * `portico dev` with a GitBook-dialect integration (a directory with `gitbook-manifest.yaml`), as a
 * developer runs it: the real binary, a directory outside the repository, the platform it embeds.
 * It is built as that platform builds it in development (`MODE` is "development", `.raw.js` files
 * are text), installed, and reloaded on a saved change as a Portico integration is: a change to
 * its source, to a `.raw.js` file it imports, and to its manifest, each live in the next render; a
 * broken save keeps the running version. The integration is written for this test in the shapes of
 * that runtime's wire format (`GET /v1` a 500, the envelope's parts read as text).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDevServer } from '../dev-server-file.js';
import { devInDirectory } from '../test-support/dev-process.js';

const MANIFEST = `name: gb-dev
title: GitBook dev
description: Renders a banner, for portico dev
organization: acme
visibility: private
script: ./src/index.ts
scopes: [space:content:read]
blocks:
  - id: banner
    title: Banner
    description: A banner
`;

const source = (text: string) => `import footer from './footer.raw.js';

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method === 'GET') return new Response('no such route', { status: 500 });
    const form = await request.formData();
    const event = JSON.parse(form.get('event') as string);
    if (event.type !== 'ui_render') return Response.json({ error: 'not handled' }, { status: 406 });
    const text = '${text} (' + MODE + ') ' + footer.trim();
    return Response.json({ element: { type: 'block', children: [{ type: 'text', children: text }] }, state: {} });
  },
};
`;

const { dir, dev, server } = devInDirectory('gb-dev', async (dir) => {
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'gitbook-manifest.yaml'), MANIFEST);
  await writeFile(join(dir, 'src/index.ts'), source('version 0'));
  await writeFile(join(dir, 'src/footer.raw.js'), 'footer 0\n');
});

async function render(): Promise<string> {
  const response = await fetch(
    `${server().api}/v1/installations/${server().installations.space}/components/banner/render`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${server().adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ props: {} }),
    },
  );
  const body = (await response.json()) as { element?: unknown };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return JSON.stringify(body.element);
}

/** Renders until the banner shows `text` (a bounded wait: 10 s). */
async function rendered(text: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const element = await render();
    if (element.includes(text)) return element;
    if (Date.now() > deadline) throw new Error(`"${text}" was not live after 10 s; the banner shows ${element}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('portico dev with a gitbook-manifest.yaml', () => {
  it('builds it in development mode and installs it where its target allows', async () => {
    expect(dev.stdout()).toMatch(/gb-dev version \d+ is installed/);
    expect(server()).toMatchObject({ integration: 'gb-dev' });
    expect(await render()).toContain('version 0 (development) footer 0');
    const integration = await fetch(`${server().api}/v1/integrations/gb-dev`, {
      headers: { authorization: `Bearer ${server().adminToken()}` },
    }).then((r) => r.json() as Promise<{ gitbook: unknown }>);
    expect(integration.gitbook).toMatchObject({ target: 'all' });
  });

  it('reloads on a saved change to its source, to a .raw.js file and to its manifest', async () => {
    for (let edit = 1; edit <= 3; edit++) {
      const from = dev.output().length;
      await writeFile(join(dir, 'src/index.ts'), source(`version ${edit}`));
      expect(await rendered(`version ${edit} (development)`)).toContain(`version ${edit} (development) footer 0`);
      await dev.waitFor(/Reloaded: gb-dev version \d+ is live, \d+ ms after the change \(src\/index\.ts\)/, 5000, from);
    }
    let from = dev.output().length;
    await writeFile(join(dir, 'src/footer.raw.js'), 'footer 1\n');
    await rendered('footer 1');
    await dev.waitFor(
      /Reloaded: gb-dev version \d+ is live, \d+ ms after the change \(src\/footer\.raw\.js\)/,
      5000,
      from,
    );

    from = dev.output().length;
    const manifest = await readFile(join(dir, 'gitbook-manifest.yaml'), 'utf8');
    await writeFile(join(dir, 'gitbook-manifest.yaml'), manifest.replace('title: GitBook dev', 'title: GitBook dev 2'));
    await dev.waitFor(
      /Reloaded: gb-dev version \d+ is live, \d+ ms after the change \(gitbook-manifest\.yaml\)/,
      5000,
      from,
    );
    const integration = await fetch(`${server().api}/v1/integrations/gb-dev`, {
      headers: { authorization: `Bearer ${server().adminToken()}` },
    }).then((r) => r.json() as Promise<{ title: string }>);
    expect(integration.title).toBe('GitBook dev 2');
  }, 60_000);

  it('prints a broken save at its line and keeps the previous version running', async () => {
    const from = dev.output().length;
    await writeFile(join(dir, 'src/index.ts'), source('version 9').replace('export default', 'export default {'));
    await dev.waitFor(/^src\/index\.ts:\d+:\d+: .+$/m, 5000, from);
    await dev.waitFor(
      /Not reloaded \(src\/index\.ts changed\): fix the problem above; version \d+ keeps running/,
      5000,
      from,
    );
    expect(await render()).toContain('version 3 (development) footer 1');
    const manifest = await readFile(join(dir, 'gitbook-manifest.yaml'), 'utf8');
    await writeFile(join(dir, 'gitbook-manifest.yaml'), manifest.replace('visibility: private', 'visibility: privat'));
    await dev.waitFor(/gitbook-manifest\.yaml:\d+:\d+: `visibility` must be one of/, 5000, from);
    await writeFile(join(dir, 'gitbook-manifest.yaml'), manifest);
    await writeFile(join(dir, 'src/index.ts'), source('version 10'));
    await rendered('version 10 (development)');
  });

  it('stops on SIGINT', async () => {
    dev.child.kill('SIGINT');
    expect(await dev.exited).toBe(0);
    expect(readDevServer(dir)).toBeUndefined();
  });
});
