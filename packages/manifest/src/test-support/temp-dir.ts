import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh directory holding `files` (path → contents), removed after the test. */
export async function tempDir(files: Record<string, string | Uint8Array> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-test-'));
  created.push(dir);
  for (const [path, contents] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), contents);
  }
  return dir;
}
