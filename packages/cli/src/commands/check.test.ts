import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { png } from '../../../manifest/src/test-support/images.js';
import { BASE } from '../../../manifest/src/test-support/manifests.js';
import { tempDir } from '../../../manifest/src/test-support/temp-dir.js';
import { run } from '../program.js';
import { memoryIo } from '../test-support/memory-io.js';

const example = new URL('../../../../examples/hello-world', import.meta.url).pathname;

describe('portico check', () => {
  it('exits 0 for a valid manifest and prints nothing on stdout', async () => {
    const io = memoryIo(example);
    expect(await run(['check'], io)).toBe(0);
    expect(io.stdout).toBe('');
    expect(io.stderr).toBe('platform-manifest.yaml: hello-world is valid\n');
  });

  it('takes the directory as an argument', async () => {
    const io = memoryIo('/');
    expect(await run(['check', example], io)).toBe(0);
  });

  it('exits 1 and prints each error as platform-manifest.yaml:LINE:COL: message, in order', async () => {
    const dir = await tempDir({
      'platform-manifest.yaml': `${BASE.replace('visibility: private', 'visibility: publik')}titel: x\n`,
    });
    const io = memoryIo(dir);
    expect(await run(['check'], io)).toBe(1);
    expect(io.stdout.split('\n')).toEqual([
      'platform-manifest.yaml:5:13: `visibility` must be one of private, unlisted, public, but it is "publik" (did you mean "public"?)',
      'platform-manifest.yaml:8:1: unknown key `titel` at the top level of the manifest (did you mean "title"?)',
      '',
    ]);
    expect(io.stderr).toBe('platform-manifest.yaml: 2 errors\n');
  });

  it('prints { valid, errors, warnings } with --json', async () => {
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}titel: x\n` });
    const io = memoryIo(dir);
    expect(await run(['check', '--json'], io)).toBe(1);
    expect(JSON.parse(io.stdout)).toEqual({
      valid: false,
      errors: [
        {
          path: 'titel',
          line: 8,
          column: 1,
          message: 'unknown key `titel` at the top level of the manifest (did you mean "title"?)',
        },
      ],
      warnings: [],
    });
  });

  it('--json on a valid manifest', async () => {
    const io = memoryIo(example);
    expect(await run(['check', '--json'], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('prints warnings without failing, unless --strict', async () => {
    const dir = await tempDir({
      'platform-manifest.yaml': `${BASE}previewImages: [small.png]\n`,
      'small.png': png(300, 300),
    });
    const io = memoryIo(dir);
    expect(await run(['check'], io)).toBe(0);
    expect(io.stdout).toMatch(
      /^platform-manifest.yaml:8:17: warning: `previewImages\[0\]`: "small.png" is 300 x 300 pixels/,
    );
    expect(io.stderr).toBe('platform-manifest.yaml: demo is valid with 1 warning\n');

    const strict = memoryIo(dir);
    expect(await run(['check', '--strict'], strict)).toBe(1);
    expect(strict.stderr).toMatch(/--strict: warnings fail the check/);
    const json = memoryIo(dir);
    expect(await run(['check', '--strict', '--json'], json)).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: false,
      errors: [],
      warnings: [{ path: 'previewImages[0]' }],
    });
  });

  it('refuses internal scopes unless --internal', async () => {
    const dir = await tempDir({ 'platform-manifest.yaml': `${BASE}  - site:script:inject\n` });
    expect(await run(['check'], memoryIo(dir))).toBe(1);
    expect(await run(['check', '--internal'], memoryIo(dir))).toBe(0);
  });

  it('says how to create a manifest in a directory without one', async () => {
    const dir = await tempDir();
    const io = memoryIo(dir);
    expect(await run(['check'], io)).toBe(1);
    expect(io.stdout).toBe(
      `platform-manifest.yaml:1:1: there is no platform-manifest.yaml in ${dir}; create one with \`portico new ${dir}\`\n`,
    );
  });

  it('checks the files the manifest names, relative to its directory', async () => {
    const dir = await tempDir();
    await cp(example, join(dir, 'copy'), { recursive: true });
    await writeFile(join(dir, 'copy', 'assets', 'preview.png'), png(1600, 1000));
    const io = memoryIo(dir);
    expect(await run(['check', 'copy'], io)).toBe(0);
    expect(io.stdout).toMatch(
      /^platform-manifest.yaml:16:5: warning: .*1600 x 1000 pixels, which is not a 2:1 aspect ratio/,
    );
    expect(io.stderr).toBe('copy/platform-manifest.yaml: hello-world is valid with 1 warning\n');
  });
});

describe('portico --help', () => {
  for (const argv of [['--help'], ['new', '--help'], ['check', '--help'], ['help', 'check']]) {
    it(`${argv.join(' ')} prints usage and exits 0`, async () => {
      const io = memoryIo('/');
      expect(await run(argv, io)).toBe(0);
      expect(io.stdout).toMatch(/^Usage: portico/);
    });
  }

  it('suggests the command meant by a typo and exits 2 (usage)', async () => {
    const io = memoryIo('/');
    expect(await run(['chek'], io)).toBe(2);
    expect(io.stderr).toMatch(/unknown command 'chek'\n\(Did you mean check\?\)/);
  });

  it('refuses an unknown option', async () => {
    const io = memoryIo('/');
    expect(await run(['check', '--jsn'], io)).toBe(2);
    expect(io.stderr).toMatch(/unknown option '--jsn'\n\(Did you mean --json\?\)/);
  });
});

describe('portico check on a GitBook-dialect integration (gitbook-manifest.yaml)', () => {
  const GITBOOK = `name: tracker
title: Tracker
description: Counts page views
organization: acme
visibility: public
script: ./src/index.ts
target: site
scopes: [page:feedback:read, site:teleport]
`;

  it('exits 0 when valid, printing what has no meaning here as positioned warnings', async () => {
    const dir = await tempDir({ 'gitbook-manifest.yaml': GITBOOK, 'src/index.ts': '' });
    const io = memoryIo(dir);
    expect(await run(['check'], io)).toBe(0);
    expect(io.stdout).toBe(
      'gitbook-manifest.yaml:8:30: warning: the scope "site:teleport" has no meaning in Portico; it is ignored\n',
    );
    expect(io.stderr).toBe('gitbook-manifest.yaml: tracker is valid with 1 warning\n');
    const json = memoryIo(dir);
    expect(await run(['check', '--json'], json)).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      valid: true,
      errors: [],
      warnings: [
        {
          path: 'scopes[1]',
          line: 8,
          column: 30,
          message: 'the scope "site:teleport" has no meaning in Portico; it is ignored',
        },
      ],
    });
    expect(await run(['check', '--strict'], memoryIo(dir))).toBe(1);
  });

  it('exits 1 with positioned errors when invalid, and applies --env', async () => {
    const dir = await tempDir({
      'gitbook-manifest.yaml': `${GITBOOK.replace('target: site', 'target: sites')}envs:\n  dev:\n    visibility: hidden\n`,
      'src/index.ts': '',
    });
    const io = memoryIo(dir);
    expect(await run(['check'], io)).toBe(1);
    expect(io.stdout.split('\n')).toEqual([
      'gitbook-manifest.yaml:7:9: `target` must be one of all, organization, space, site, but it is "sites" (did you mean "site"?)',
      'gitbook-manifest.yaml:8:30: warning: the scope "site:teleport" has no meaning in Portico; it is ignored',
      '',
    ]);
    expect(io.stderr).toBe('gitbook-manifest.yaml: 1 error, 1 warning\n');
    const dev = memoryIo(dir);
    expect(await run(['check', '--env', 'dev', '--json'], dev)).toBe(1);
    expect(JSON.parse(dev.stdout).errors.map((e: { line: number }) => e.line)).toEqual([7, 11]);
  });

  it('reads their manifests as they are written: capitals in the name, blocks without a description, and says what to do with a 1Password reference', async () => {
    const manifest = `name: Tracker-Pro
title: Tracker
description: Counts page views
organization: acme
visibility: public
script: ./src/index.ts
scopes: []
blocks:
  - id: counter
    title: Counter
secrets:
  API_KEY: \${{ "op://integrations/tracker/API_KEY" }}
  REGION: \${{ env.TRACKER_REGION }}
envs:
  local:
    secrets:
      API_KEY: \${{ env.TRACKER_API_KEY }}
      REGION: \${{ env.TRACKER_REGION }}
`;
    const dir = await tempDir({ 'gitbook-manifest.yaml': manifest, 'src/index.ts': '' });
    const io = memoryIo(dir);
    expect(await run(['check', '--json'], io)).toBe(1);
    const { errors, warnings } = JSON.parse(io.stdout) as {
      errors: { line: number; message: string }[];
      warnings: { line: number; message: string }[];
    };
    expect(errors).toEqual([
      expect.objectContaining({
        path: 'secrets.API_KEY',
        line: 12,
        message:
          "`secrets.API_KEY` is a 1Password reference (op://integrations/tracker/API_KEY), which GitBook's CLI resolves from its vault when it publishes; Portico does not read 1Password. Write `API_KEY: ${{ env.API_KEY }}` here (or in an entry of `envs` you publish with --env) and set API_KEY in the environment of `portico publish`, e.g. `export API_KEY=\"$(op read 'op://integrations/tracker/API_KEY')\"`",
      }),
    ]);
    expect(warnings).toEqual([
      expect.objectContaining({
        path: 'name',
        line: 1,
        message: expect.stringMatching(/^Portico's names are lower case: "Tracker-Pro" is published as "tracker-pro"/),
      }),
    ]);
    // With an env whose secrets come from the environment, it is valid.
    const local = memoryIo(dir);
    expect(await run(['check', '--env', 'local'], local)).toBe(0);
    expect(local.stderr).toBe('gitbook-manifest.yaml: tracker-pro is valid with 1 warning\n');
  });
});
