/** The built `portico` binary, run as a user runs it (`npm test` builds it first). */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadManifest } from '@portico/manifest';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../../manifest/src/test-support/manifests.js';
import { tempDir } from '../../manifest/src/test-support/temp-dir.js';
import { bin, runCli } from './test-support/dev-process.js';

const example = new URL('../../../examples/hello-world', import.meta.url).pathname;

const portico = (args: string[], cwd = process.cwd()) => runCli(args, cwd);

beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (\`npm test\` does)`);
});

describe('the portico binary', () => {
  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(await portico(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('exits 0 for a valid manifest and 1 for an invalid one', async () => {
    expect((await portico(['check', example])).code).toBe(0);
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}titel: x\n` });
    const result = await portico(['check', dir]);
    expect(result).toMatchObject({
      code: 1,
      stdout:
        'platform-manifest.yaml:8:1: unknown key `titel` at the top level of the manifest (did you mean "title"?)\n',
    });
  });

  it('scaffolds an entry script that type-checks against the SDK', async () => {
    // Inside the repository, so the scaffold resolves @portico/runtime from its node_modules.
    const dir = new URL(`../../../examples/.scaffold-${process.pid}`, import.meta.url).pathname;
    try {
      expect((await portico(['new', dir, '--yes'])).code).toBe(0);
      const tsc = new URL('../../../node_modules/.bin/tsc', import.meta.url).pathname;
      const result = spawnSync(tsc, ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
      expect(result.stdout + result.stderr).toBe('');
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('asks its questions in a real terminal', async () => {
    const cwd = await tempDir();
    // `script` runs the command on a pseudo-terminal and types the piped lines into it.
    const result = spawnSync('script', ['-qec', `"${process.execPath}" "${bin}" new`, '/dev/null'], {
      cwd,
      input: 'tty-demo\n\nFrom a terminal\nacme\n',
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Name: .*Title \(Tty Demo\): .*Organization \(id or subdomain\)/s);
    const manifest = await loadManifest(join(cwd, 'tty-demo'));
    expect(manifest.ok && manifest.manifest).toMatchObject({
      name: 'tty-demo',
      description: 'From a terminal',
      organization: 'acme',
    });
  });
});
