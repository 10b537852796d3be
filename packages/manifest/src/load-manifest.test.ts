import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifest } from './load-manifest.js';
import { jpeg, png } from './test-support/images.js';
import { BASE } from './test-support/manifests.js';
import { tempDir } from './test-support/temp-dir.js';

const example = new URL('../../../examples/hello-world', import.meta.url).pathname;

describe('loadManifest', () => {
  it('loads the example integration with its files and no warnings', async () => {
    const result = await loadManifest(example);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.ok && result.manifest.name).toBe('hello-world');
  });

  it('says how to create a manifest when the directory has none', async () => {
    const dir = await tempDir();
    const result = await loadManifest(dir);
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([
      {
        path: '',
        line: 1,
        column: 1,
        message: `there is no platform-manifest.yaml in ${dir}; create one with \`portico new ${dir}\``,
      },
    ]);
  });

  it('refuses a directory that does not exist the same way', async () => {
    const result = await loadManifest('/nonexistent/portico');
    expect(result.errors[0]?.message).toMatch(/there is no platform-manifest.yaml in \/nonexistent\/portico/);
  });

  it('refuses a 10 MB manifest file without reading it', async () => {
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}summary: "${'x'.repeat(10 * 1024 * 1024)}"\n` });
    const result = await loadManifest(dir);
    expect(result.errors).toEqual([
      expect.objectContaining({ line: 1, column: 1, message: expect.stringMatching(/is 10 MiB; .* at most 256 KiB/) }),
    ]);
  });

  it('requires the script, icon and preview images to exist, pointing at each path', async () => {
    const dir = await tempDir({
      'platform-manifest.yaml': `${BASE}script: src/index.ts\nicon: icon.png\npreviewImages:\n  - missing.png\n`,
      'src/index.ts': 'export default {};\n',
    });
    const result = await loadManifest(dir);
    expect(result.errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ['icon', 9, 7],
      ['previewImages[0]', 11, 5],
    ]);
    expect(result.errors[0]?.message).toBe(
      `\`icon\`: the file "icon.png" does not exist (looked for ${join(dir, 'icon.png')}); add it or fix the path`,
    );
  });

  it('refuses a path that is a directory', async () => {
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}script: src\n`, 'src/index.ts': '' });
    const result = await loadManifest(dir);
    expect(result.errors).toEqual([
      expect.objectContaining({ path: 'script', line: 8, column: 9, message: expect.stringMatching(/is not a file/) }),
    ]);
  });

  it('refuses a symbolic link that leads outside the integration directory', async () => {
    const outside = await tempDir({ 'secret.txt': 'top secret' });
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}icon: assets/icon.png\n` });
    await mkdir(join(dir, 'assets'));
    await symlink(join(outside, 'secret.txt'), join(dir, 'assets', 'icon.png'));
    const result = await loadManifest(dir);
    expect(result.errors).toEqual([
      expect.objectContaining({
        path: 'icon',
        line: 8,
        column: 7,
        message: expect.stringMatching(/leads outside the integration's directory \(through a symbolic link/),
      }),
    ]);
  });

  it('accepts a symbolic link that stays inside', async () => {
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}icon: icon.png\n`, 'assets/real.png': png(8, 8) });
    await symlink(join(dir, 'assets', 'real.png'), join(dir, 'icon.png'));
    expect((await loadManifest(dir)).ok).toBe(true);
  });

  it('reports file problems together with schema problems', async () => {
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}icon: nope.png\nvisibility2: x\n` });
    const result = await loadManifest(dir);
    expect(result.errors.map((e) => e.path)).toEqual(['icon', 'visibility2']);
  });
});

describe('preview images', () => {
  const manifest = `${BASE}previewImages:\n  - preview.img\n`;
  const load = async (image: Uint8Array) =>
    loadManifest(await tempDir({ 'platform-manifest.yaml': manifest, 'preview.img': image }));

  it('accepts a 1600 x 800 PNG and a 1600 x 800 JPEG without a warning', async () => {
    for (const image of [png(1600, 800), jpeg(1600, 800)]) {
      const result = await load(image);
      expect(result.ok).toBe(true);
      expect(result.warnings).toEqual([]);
    }
  });

  it('accepts a larger 2:1 image without a warning', async () => {
    expect((await load(png(3200, 1600))).warnings).toEqual([]);
  });

  it('warns, without failing, about an image that is not 2:1', async () => {
    for (const image of [png(1600, 900), jpeg(1024, 768)]) {
      const result = await load(image);
      expect(result.ok).toBe(true);
      expect(result.warnings).toEqual([
        {
          path: 'previewImages[0]',
          line: 9,
          column: 5,
          message: expect.stringMatching(
            /is \d+ x \d+ pixels, which is not a 2:1 aspect ratio; 1600 x 800 pixels \(2:1\)/,
          ),
        },
      ]);
    }
  });

  it('warns about a 2:1 image smaller than recommended', async () => {
    const result = await load(png(800, 400));
    expect(result.ok).toBe(true);
    expect(result.warnings[0]?.message).toMatch(/is 800 x 400 pixels, smaller than recommended/);
  });

  it('refuses a file that is not a PNG or JPEG', async () => {
    for (const bytes of [
      new TextEncoder().encode('not an image at all'),
      Buffer.from('GIF89a\x10\x00\x08\x00', 'latin1'),
    ]) {
      const result = await load(bytes);
      expect(result.ok).toBe(false);
      expect(result.errors).toEqual([
        expect.objectContaining({
          path: 'previewImages[0]',
          line: 9,
          column: 5,
          message: expect.stringMatching(/must be PNG or JPEG/),
        }),
      ]);
    }
  });

  it('checks every preview image', async () => {
    const dir = await tempDir({
      'platform-manifest.yaml': `${BASE}previewImages:\n  - a.png\n  - b.png\n  - c.jpg\n`,
      'a.png': png(1600, 800),
      'b.png': png(100, 100),
      'c.jpg': jpeg(1600, 800),
    });
    const result = await loadManifest(dir);
    expect(result.warnings.map((w) => w.path)).toEqual(['previewImages[1]']);
  });
});

describe('the file is read as the developer wrote it', () => {
  it('reports positions in the file on disk, including after a byte-order mark', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'platform-manifest.yaml'), `\uFEFF${BASE}titel: x\n`);
    const result = await loadManifest(dir);
    expect(result.errors).toEqual([expect.objectContaining({ path: 'titel', line: 8, column: 1 })]);
  });
});

describe('a GitBook-dialect integration (gitbook-manifest.yaml and no platform-manifest.yaml)', () => {
  const GITBOOK = `name: tracker
title: Tracker
description: Counts page views
organization: acme
visibility: public
script: ./src/index.ts
scopes: [page:feedback:read]
categories: [gitsync]
`;

  it('is loaded through the same loader, translated, with its warnings and its files checked', async () => {
    const dir = await tempDir({ 'gitbook-manifest.yaml': GITBOOK, 'src/index.ts': 'export default {};\n' });
    const result = await loadManifest(dir);
    expect(result).toMatchObject({ ok: true, dialect: 'gitbook', file: join(dir, 'gitbook-manifest.yaml') });
    expect(result.ok && result.manifest.scopes).toEqual(['site:views:read']);
    expect(result.gitbook?.target).toBe('all');
    expect(result.warnings).toEqual([
      expect.objectContaining({ line: 8, column: 14, message: expect.stringMatching(/category "gitsync"/) }),
    ]);

    const missing = await loadManifest(await tempDir({ 'gitbook-manifest.yaml': GITBOOK }));
    expect(missing.ok).toBe(false);
    expect(missing.errors).toEqual([
      expect.objectContaining({
        line: 6,
        column: 9,
        message: expect.stringMatching(/the file "\.\/src\/index\.ts" does not exist/),
      }),
    ]);
  });

  it('applies the env it is asked for', async () => {
    const dir = await tempDir({
      'gitbook-manifest.yaml': `${GITBOOK}envs:\n  dev:\n    organization: acme-dev\n`,
      'src/index.ts': '',
    });
    const result = await loadManifest(dir, { env: 'dev' });
    expect(result.ok && result.manifest.organization).toBe('acme-dev');
  });

  it('is not the dialect when platform-manifest.yaml is there too', async () => {
    const dir = await tempDir({ 'gitbook-manifest.yaml': GITBOOK, 'platform-manifest.yaml': BASE });
    const result = await loadManifest(dir);
    expect(result).toMatchObject({ ok: true, dialect: 'portico', file: join(dir, 'platform-manifest.yaml') });
    expect(result).not.toHaveProperty('gitbook');
  });
});
