import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadManifest } from '@portico/manifest';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../manifest/src/test-support/temp-dir.js';
import { run } from '../program.js';
import { memoryIo } from '../test-support/memory-io.js';

const FILES = ['.gitignore', 'README.md', 'package.json', 'platform-manifest.yaml', 'src', 'tsconfig.json'];

describe('portico new, unattended', () => {
  it('creates an integration that passes portico check as created', async () => {
    const cwd = await tempDir();
    const io = memoryIo(cwd);
    const argv = [
      'new',
      'weather',
      '--title',
      'Weather: now #1',
      '--description',
      'Shows the weather',
      '--organization',
      'acme',
    ];
    expect(await run(argv, io)).toBe(0);
    expect((await readdir(join(cwd, 'weather'))).sort()).toEqual(FILES);
    const manifest = await loadManifest(join(cwd, 'weather'));
    expect(manifest.ok && manifest.manifest).toEqual({
      name: 'weather',
      title: 'Weather: now #1',
      description: 'Shows the weather',
      organization: 'acme',
      visibility: 'private',
      scopes: [],
      script: 'src/index.ts',
    });
    expect(await run(['check', 'weather'], memoryIo(cwd))).toBe(0);
    expect(io.stdout).toMatch(/^Created Weather: now #1 \(weather\) in weather:/);
    expect(io.stdout).not.toMatch(/Set `organization`/);
  });

  it('writes an entry script that calls createIntegration and a package.json that names the SDK', async () => {
    const cwd = await tempDir();
    expect(await run(['new', 'demo'], memoryIo(cwd))).toBe(0);
    const script = await readFile(join(cwd, 'demo', 'src', 'index.ts'), 'utf8');
    expect(script).toMatch(/import \{ createIntegration \} from '@portico\/runtime';/);
    expect(script).toMatch(/export default createIntegration\(\{/);
    const pkg = JSON.parse(await readFile(join(cwd, 'demo', 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: 'demo', type: 'module', scripts: { check: 'portico check' } });
    expect(Object.keys(pkg.dependencies)).toEqual(['@portico/runtime']);
    const manifest = await readFile(join(cwd, 'demo', 'platform-manifest.yaml'), 'utf8');
    expect(manifest.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=./node_modules/@portico/manifest/schema/platform-manifest.schema.json',
    );
  });

  it('derives the name and title from the directory and says to set the organization', async () => {
    const cwd = await tempDir();
    const io = memoryIo(cwd);
    expect(await run(['new', 'My Cool_App'], io)).toBe(0);
    const result = await loadManifest(join(cwd, 'My Cool_App'));
    expect(result.ok && [result.manifest.name, result.manifest.title, result.manifest.organization]).toEqual([
      'my-cool-app',
      'My Cool App',
      'my-organization',
    ]);
    expect(io.stdout).toMatch(/Set `organization` in platform-manifest.yaml/);
  });

  it('creates the directory from --name when no directory is given', async () => {
    const cwd = await tempDir();
    expect(await run(['new', '--name', 'from-flag'], memoryIo(cwd))).toBe(0);
    expect((await readdir(cwd)).sort()).toEqual(['from-flag']);
  });

  it('asks nothing with --yes even in a terminal', async () => {
    const cwd = await tempDir();
    const io = memoryIo(cwd, []);
    expect(await run(['new', 'quiet', '--yes'], io)).toBe(0);
    expect(io.questions).toEqual([]);
  });

  const refusals: [string[], RegExp][] = [
    [['new'], /give a directory \(`portico new my-integration`\) or a name \(`--name my-integration`\)/],
    [['new', 'x', '--name', 'Not_Valid'], /--name "Not_Valid" is not a valid name: use lowercase words/],
    [['new', '123'], /the directory name "123" does not make a valid integration name; pass --name/],
    [['new', 'ok', '--title', '  '], /--title must not be empty/],
    [
      ['new', 'ok', '--organization', 'Acme Inc'],
      /--organization "Acme Inc" must be your organization's id or subdomain/,
    ],
  ];
  for (const [argv, message] of refusals) {
    it(`refuses \`${argv.join(' ')}\` with a clear message and writes nothing`, async () => {
      const cwd = await tempDir();
      const io = memoryIo(cwd);
      expect(await run(argv, io)).toBe(1);
      expect(io.stderr).toMatch(message);
      expect(await readdir(cwd)).toEqual([]);
    });
  }

  it('refuses a directory that is not empty and leaves it as it was', async () => {
    const cwd = await tempDir({ 'taken/notes.txt': 'mine' });
    const io = memoryIo(cwd);
    expect(await run(['new', 'taken'], io)).toBe(1);
    expect(io.stderr).toBe('portico new: taken already exists and is not empty; choose a new directory\n');
    expect(await readdir(join(cwd, 'taken'))).toEqual(['notes.txt']);
  });

  it('accepts an existing empty directory', async () => {
    const cwd = await tempDir();
    await writeFile(join(cwd, 'placeholder'), '');
    expect(await run(['new', '.', '--name', 'here'], memoryIo(join(cwd)))).toBe(1);
    const empty = await tempDir();
    expect(await run(['new', '.', '--name', 'here'], memoryIo(empty))).toBe(0);
    expect((await readdir(empty)).sort()).toEqual(FILES);
  });
});

describe('portico new, in a terminal', () => {
  it('asks for what the flags did not give, offering defaults, and re-asks an invalid name', async () => {
    const cwd = await tempDir();
    const io = memoryIo(cwd, ['Bad Name', 'status-page', '', 'Shows service status', 'acme']);
    expect(await run(['new'], io)).toBe(0);
    expect(io.questions).toEqual([
      'Name: ',
      'Name: ',
      'Title (Status Page): ',
      'Description (Status Page: an integration for Portico.): ',
      'Organization (id or subdomain) (my-organization): ',
    ]);
    expect(io.stdout).toMatch(/"Bad Name" is not a valid name/);
    const result = await loadManifest(join(cwd, 'status-page'));
    expect(result.ok && result.manifest).toMatchObject({
      name: 'status-page',
      title: 'Status Page',
      description: 'Shows service status',
      organization: 'acme',
    });
  });

  it('offers the name derived from the directory and skips questions answered by flags', async () => {
    const cwd = await tempDir();
    const io = memoryIo(cwd, ['', '']);
    expect(await run(['new', 'my-dir', '--title', 'T', '--description', 'D'], io)).toBe(0);
    expect(io.questions).toEqual(['Name (my-dir): ', 'Organization (id or subdomain) (my-organization): ']);
  });

  it('writes nothing when input ends before the questions are answered', async () => {
    const cwd = await tempDir();
    const io = memoryIo(cwd, ['half-done']);
    expect(await run(['new'], io)).toBe(1);
    expect(io.stderr).toMatch(/input ended before every question was answered; nothing was written/);
    expect(await readdir(cwd)).toEqual([]);
  });
});
