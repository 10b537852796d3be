/**
 * The packages as npm packs them: each publishable package's tarball holds what it needs (and no
 * tests), installs into an empty directory outside the repository with its dependencies, and runs
 * there without the `source` condition: `portico --help`, `portico new` (whose package.json then
 * names the same tarballs), `portico check`, and the new integration's `npm install` and
 * `npm test`. Installs skip install scripts (better-sqlite3 would compile for a minute; nothing
 * here opens a database) and prefer npm's cache.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGES } from './portico-packages.js';

const checkout = new URL('../../../', import.meta.url).pathname;
const npmFlags = ['--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
let work: string;
let tarballs: string;
let project: string;

async function sh(command: string, args: string[], cwd: string, timeout = 180_000) {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, {
      cwd,
      timeout,
      env: { ...process.env, PORTICO_API: '', PORTICO_TOKEN: '', FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'portico-packaging-'));
  tarballs = join(work, 'tarballs');
  project = join(work, 'empty');
  await mkdir(tarballs);
  await mkdir(project);
  const workspaces = Object.keys(PACKAGES).flatMap((name) => ['-w', name]);
  const packed = await sh('npm', ['pack', '--silent', '--pack-destination', tarballs, ...workspaces], checkout);
  expect(packed.code, packed.stderr).toBe(0);
}, 180_000);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const contents = async (file: string) => {
  const { stdout } = await sh('tar', ['tzf', join(tarballs, file)], tarballs);
  return stdout.trim().split('\n');
};

describe('npm pack of every publishable package', () => {
  it('makes one tarball per package, with its built code and files, and no tests or sources', async () => {
    expect((await readdir(tarballs)).sort()).toEqual([
      'portico-0.1.0.tgz',
      'portico-client-0.1.0.tgz',
      'portico-dashboard-0.1.0.tgz',
      'portico-manifest-0.1.0.tgz',
      'portico-platform-0.1.0.tgz',
      'portico-runtime-0.1.0.tgz',
      'portico-testing-0.1.0.tgz',
      'portico-webhook-integration-0.1.0.tgz',
      'portico-webhooks-0.1.0.tgz',
    ]);
    for (const file of await readdir(tarballs)) {
      const files = await contents(file);
      expect(files, file).toContain('package/package.json');
      expect(
        files.filter((f) => /\.test\.|\/src\/|test-support/.test(f)),
        file,
      ).toEqual([]);
    }
    expect(await contents('portico-0.1.0.tgz')).toEqual(
      expect.arrayContaining(['package/bin/portico.js', 'package/dist/bin.js']),
    );
    expect(await contents('portico-platform-0.1.0.tgz')).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/migrations/sqlite/001_init.sql',
        'package/migrations/postgres/001_init.sql',
        'package/libexec/workerd-with-parent',
      ]),
    );
    expect(await contents('portico-webhook-integration-0.1.0.tgz')).toEqual(
      expect.arrayContaining(['package/dist/index.js', 'package/platform-manifest.yaml']),
    );
    expect(await contents('portico-dashboard-0.1.0.tgz')).toContain('package/dist/index.html');
    // The client's types are generated when it is built: the tarball carries them.
    expect(await contents('portico-client-0.1.0.tgz')).toEqual(
      expect.arrayContaining(['package/dist/index.js', 'package/dist/generated/schema.d.ts']),
    );
    expect(await contents('portico-manifest-0.1.0.tgz')).toContain('package/schema/platform-manifest.schema.json');
  });

  it('installs into an empty directory and runs portico --help, new and check there', async () => {
    const files = (await readdir(tarballs)).map((file) => join(tarballs, file));
    const installed = await sh('npm', ['install', ...npmFlags, ...files], project);
    expect(installed.code, installed.stderr).toBe(0);
    // Executable, as npm links it.
    expect((await stat(join(project, 'node_modules/portico/bin/portico.js'))).mode & 0o111).not.toBe(0);
    const bin = join(project, 'node_modules/.bin/portico');
    const help = await sh(bin, ['--help'], project);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: portico .*emit/s) });

    // Every package loads with the default conditions, its dependencies found where npm put them.
    const loaded = await sh(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `for (const name of ${JSON.stringify(Object.keys(PACKAGES).filter((n) => n !== '@portico/dashboard'))}) await import(name);
         const { createRequire } = await import('node:module');
         createRequire(import.meta.url).resolve('@portico/dashboard/package.json');
         console.log('loaded');`,
      ],
      project,
    );
    expect(loaded, loaded.stderr).toMatchObject({ code: 0, stdout: 'loaded\n' });

    const created = await sh(bin, ['new', 'demo', '--organization', 'acme', '--yes'], project);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(`names the packed tarballs this portico was installed from (${tarballs})`);
    const pkg = JSON.parse(await readFile(join(project, 'demo', 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({ '@portico/runtime': `file:${join(tarballs, 'portico-runtime-0.1.0.tgz')}` });
    expect(pkg.devDependencies.portico).toBe(`file:${join(tarballs, 'portico-0.1.0.tgz')}`);
    expect(pkg.overrides['@portico/platform']).toBe(`file:${join(tarballs, 'portico-platform-0.1.0.tgz')}`);
    expect(await sh(bin, ['check', 'demo'], project)).toMatchObject({ code: 0 });
  }, 240_000);

  it('lets the new integration install from those tarballs and pass its own test', async () => {
    const demo = join(project, 'demo');
    const installed = await sh('npm', ['install', ...npmFlags], demo);
    expect(installed.code, installed.stderr).toBe(0);
    const tested = await sh('npm', ['test'], demo);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/Tests +3 passed/);
    expect(await sh(join(demo, 'node_modules/.bin/portico'), ['check'], demo)).toMatchObject({ code: 0 });
  }, 240_000);
});
