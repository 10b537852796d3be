import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../manifest/src/test-support/temp-dir.js';
import { resolveTarget } from './api-target.js';
import { writeDevServer } from './dev-server-file.js';
import { memoryIo } from './test-support/memory-io.js';

/** A directory where a `portico dev` (this process, as far as the file says) runs. */
async function devDirectory() {
  const dir = await tempDir();
  mkdirSync(join(dir, '.portico-dev'));
  writeFileSync(join(dir, '.portico-dev', 'admin-token'), 'pta_dev\n');
  writeDevServer(dir, {
    api: 'http://127.0.0.1:8787',
    adminTokenFile: join(dir, '.portico-dev', 'admin-token'),
    pid: process.pid,
    space: 'dev-space',
    site: 'dev-site',
    installations: { organization: 'inst_o', space: 'inst_s', site: 'inst_t' },
  });
  mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
  return dir;
}

const target = (options: { api?: string; token?: string }, cwd: string, env: NodeJS.ProcessEnv = {}) => {
  const found = resolveTarget(options, memoryIo(cwd), env);
  return { api: found.client.api, described: found.client.described, dev: found.dev?.space };
};

describe('which server a command talks to', () => {
  it('is the portico dev platform of the directory or one above it, with its admin token', async () => {
    const dir = await devDirectory();
    expect(target({}, join(dir, 'src', 'deep'), { PORTICO_API: 'https://elsewhere.example' })).toEqual({
      api: 'http://127.0.0.1:8787',
      described: `the portico dev platform of ${dir} (http://127.0.0.1:8787)`,
      dev: 'dev-space',
    });
  });

  it('is --api when given (still with the dev platform’s token and places when it is that one)', async () => {
    const dir = await devDirectory();
    expect(target({ api: 'http://127.0.0.1:8787/' }, dir)).toMatchObject({
      api: 'http://127.0.0.1:8787',
      dev: 'dev-space',
    });
    expect(target({ api: 'https://other.example', token: 't' }, dir)).toEqual({
      api: 'https://other.example',
      described: 'https://other.example',
      dev: undefined,
    });
    expect(() => target({ api: 'https://other.example' }, dir)).toThrow(
      'give the API token for https://other.example with --token TOKEN (or PORTICO_TOKEN)',
    );
  });

  it('is PORTICO_API with PORTICO_TOKEN outside a dev directory, and else nothing, said how to fix', async () => {
    const dir = await tempDir();
    expect(target({}, dir, { PORTICO_API: 'https://p.example/', PORTICO_TOKEN: 't' })).toMatchObject({
      api: 'https://p.example',
    });
    expect(() => target({}, dir, { PORTICO_API: 'p.example', PORTICO_TOKEN: 't' })).toThrow(
      'PORTICO_API "p.example" is not a server address',
    );
    expect(() => target({}, dir)).toThrow(/no server to talk to: run `portico dev` in this directory/);
  });

  it('says what is wrong with a dev-server.json it cannot read', async () => {
    const dir = await tempDir({ '.portico-dev/dev-server.json': '{"api":' });
    expect(() => target({}, dir)).toThrow(/dev-server.json is not valid JSON .*delete it and start portico dev again/);
  });
});
