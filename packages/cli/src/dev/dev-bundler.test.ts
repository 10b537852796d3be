import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../manifest/src/test-support/temp-dir.js';
import { DevBundler } from './dev-bundler.js';
import { SourceMaps } from './stack-traces.js';

const bundlers: DevBundler[] = [];
afterEach(async () => {
  await Promise.all(bundlers.splice(0).map((b) => b.dispose()));
});

const helper = `export function fail(reason: string): never {
  // A comment, so the bundle's lines differ from the source's.
  throw new Error(reason);
}
`;

describe('the dev bundler and its source maps', () => {
  it('names each bundle for stack traces, and maps its positions back to the TypeScript files', async () => {
    const dir = await tempDir({
      'src/index.ts':
        "import { fail } from './fail';\n\ntype T = { a: number };\nexport default { fetch: (t: T) => fail(String(t.a)) };\n",
      'src/fail.ts': helper,
    });
    const bundler = new DevBundler(dir, dir);
    bundlers.push(bundler);
    const built = await bundler.build('src/index.ts');
    if (!built.ok) throw new Error(built.problems.join('\n'));
    expect(built.sourceURL).toMatch(/^bundle-[0-9a-f]{12}\.js$/);
    expect(built.script.endsWith(`//# sourceURL=${built.sourceURL}\n`)).toBe(true);
    const lines = built.script.split('\n');
    const row = lines.findIndex((line) => line.includes('throw new Error(reason)'));
    const column = (lines[row] as string).indexOf('throw') + 1;
    const maps = new SourceMaps(dir);
    maps.add(built.sourceURL, built.map, built.outfile);
    expect(maps.map(`    at fail (${built.sourceURL}:${row + 1}:${column})`)).toBe('    at fail (src/fail.ts:3:3)');
    // Other names, and positions of bundles it does not know, stay as they are.
    expect(maps.map('at x (other.js:1:1) and bundle-000000000000.js:2:2')).toBe(
      'at x (other.js:1:1) and bundle-000000000000.js:2:2',
    );
  });

  it('rebuilds what changed, and reports a problem at its file, line and column (from 1)', async () => {
    const dir = await tempDir({ 'src/index.ts': 'export default { v: 1 };\n' });
    const bundler = new DevBundler(dir, join(dir, 'src'));
    bundlers.push(bundler);
    const first = await bundler.build('src/index.ts');
    expect(first.ok && first.script).toContain('v: 1');
    await writeFile(join(dir, 'src/index.ts'), 'export default { v: 2 };\n');
    const second = await bundler.build('src/index.ts');
    expect(second.ok && second.script).toContain('v: 2');
    await writeFile(join(dir, 'src/index.ts'), 'export default { v: };\n');
    expect(await bundler.build('src/index.ts')).toEqual({ ok: false, problems: ['index.ts:1:21: Unexpected "}"'] });
    expect(await bundler.build('src/missing.ts')).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/Could not resolve/)],
    });
  });

  it('builds a GitBook-dialect integration in development mode, and rebuilds its .raw.js text', async () => {
    const dir = await tempDir({
      'src/index.ts': "import script from './inject.raw.js';\nexport default MODE + ':' + script;\n",
      'src/inject.raw.js': 'one();\n',
    });
    const bundler = new DevBundler(dir, dir);
    bundlers.push(bundler);
    const first = await bundler.build('src/index.ts', 'gitbook');
    if (!first.ok) throw new Error(first.problems.join('\n'));
    expect(first.script).toMatch(/"development:" \+ inject_raw_default/);
    expect(first.script).toMatch(/inject_raw_default = "one\(\);\\n"/);
    await writeFile(join(dir, 'src/inject.raw.js'), 'two();\n');
    const second = await bundler.build('src/index.ts', 'gitbook');
    if (!second.ok) throw new Error(second.problems.join('\n'));
    expect(second.script).toMatch(/inject_raw_default = "two\(\);\\n"/);
    // The same directory as a Portico integration: no MODE, and .raw.js is code again.
    const portico = await bundler.build('src/index.ts');
    if (!portico.ok) throw new Error(portico.problems.join('\n'));
    expect(portico.script).toMatch(/MODE \+ ":"/);
  });
});
