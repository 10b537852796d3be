import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../manifest/src/test-support/temp-dir.js';
import { type DevServer, readDevServer, removeDevServer, writeDevServer } from './dev-server-file.js';

const server = (dir: string, pid = process.pid): DevServer => ({
  api: 'http://127.0.0.1:8787',
  adminTokenFile: join(dir, '.portico-dev', 'admin-token'),
  pid,
  space: 'dev-space',
  site: 'dev-site',
  installations: { organization: 'inst_o', space: 'inst_s', site: 'inst_t' },
});

/** A pid no process has: above the kernel's limit. */
const GONE = 2 ** 22 + 1;

describe('dev-server.json', () => {
  it('is found from the directory and from below it, with the admin token it names', async () => {
    const dir = await tempDir({ '.portico-dev/admin-token': 'pta_secret\n', 'src/lib/x.ts': '' });
    writeDevServer(dir, server(dir));
    for (const from of [dir, join(dir, 'src', 'lib')]) {
      const found = readDevServer(from);
      expect(found).toMatchObject({ ...server(dir), dir, file: join(dir, '.portico-dev', 'dev-server.json') });
      expect(found?.adminToken()).toBe('pta_secret');
    }
  });

  it('is ignored when its process has ended, and absent when portico dev never ran', async () => {
    const dir = await tempDir({ '.portico-dev/admin-token': 'x' });
    expect(readDevServer(dir)).toBeUndefined();
    writeDevServer(dir, server(dir, GONE));
    expect(readDevServer(dir)).toBeUndefined();
  });

  it('is removed only by the process that wrote it', async () => {
    const dir = await tempDir({ '.portico-dev/admin-token': 'x' });
    writeDevServer(dir, server(dir));
    removeDevServer(dir, GONE);
    expect(readDevServer(dir)).toBeDefined();
    removeDevServer(dir);
    expect(readDevServer(dir)).toBeUndefined();
  });

  it('is read without the space or site installation a GitBook-dialect target leaves out, and not with a malformed one', async () => {
    const dir = await tempDir({ '.portico-dev/admin-token': 'x' });
    const siteOnly: DevServer = {
      ...server(dir),
      target: 'site',
      installations: { organization: 'inst_o', site: 'inst_t' },
    };
    writeDevServer(dir, siteOnly);
    expect(readDevServer(dir)).toMatchObject(siteOnly);
    expect(readDevServer(dir)?.installations.space).toBeUndefined();
    writeDevServer(dir, { ...siteOnly, installations: { organization: 'inst_o', space: 3 as unknown as string } });
    expect(() => readDevServer(dir)).toThrow('was not written by this version of portico dev');
  });

  it('says what to do with a file it cannot read', async () => {
    const dir = await tempDir();
    mkdirSync(join(dir, '.portico-dev'));
    const file = join(dir, '.portico-dev', 'dev-server.json');
    writeFileSync(file, '{ "api": ');
    expect(() => readDevServer(dir)).toThrow(`${file} is not valid JSON`);
    writeFileSync(file, '{ "api": "http://x" }');
    expect(() => readDevServer(dir)).toThrow(
      `${file} was not written by this version of portico dev; delete it and start portico dev again`,
    );
  });
});
