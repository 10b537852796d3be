import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../manifest/src/test-support/temp-dir.js';
import { bundleOptions } from './bundle.js';

/** An integration written for GitBook's runtime: it reads MODE and imports its injected script and style as text. */
const FIXTURE = {
  'src/index.ts': `import script from './script.raw.js';
import style from './style.raw.css';
export default { mode: MODE, script, style };
`,
  'src/script.raw.js': 'window.tracker = { id: "<TRACKING_ID>" };\n',
  'src/style.raw.css': '.tracker { display: none; }\n',
};

async function bundle(dir: string, dialect: 'portico' | 'gitbook', mode: 'production' | 'development' = 'production') {
  const result = await build({
    ...bundleOptions(dir, dialect, mode),
    absWorkingDir: dir,
    entryPoints: ['src/index.ts'],
  });
  return result.outputFiles?.[0]?.text ?? '';
}

/** The default export of a bundled module. */
async function evaluate(code: string): Promise<unknown> {
  const module = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  return module.default;
}

describe('the build conventions of GitBook-dialect integrations', () => {
  it('define MODE and import .raw.js and .raw.css files as their text', async () => {
    const dir = await tempDir(FIXTURE);
    expect(await evaluate(await bundle(dir, 'gitbook'))).toEqual({
      mode: 'production',
      script: FIXTURE['src/script.raw.js'],
      style: FIXTURE['src/style.raw.css'],
    });
    expect(await evaluate(await bundle(dir, 'gitbook', 'development'))).toMatchObject({ mode: 'development' });
  });

  it("keep Node's and Cloudflare's built-in modules for the runtime, as that platform's build does", async () => {
    const dir = await tempDir({
      'src/index.ts':
        "import { createHash } from 'node:crypto';\nimport { connect } from 'cloudflare:sockets';\nexport default { createHash, connect };\n",
    });
    const code = await bundle(dir, 'gitbook');
    expect(code).toMatch(/from "node:crypto"/);
    expect(code).toMatch(/from "cloudflare:sockets"/);
    await expect(bundle(dir, 'portico')).rejects.toThrow(/Could not resolve "node:crypto"/);
  });

  it('leave Portico integrations as they were: MODE is not defined, a .raw.css file does not build', async () => {
    const dir = await tempDir(FIXTURE);
    await expect(bundle(dir, 'portico')).rejects.toThrow(/Cannot import "src\/style\.raw\.css"/);
    const modeOnly = await tempDir({ 'src/index.ts': 'export default { mode: MODE };\n' });
    const code = await bundle(modeOnly, 'portico');
    expect(code).toMatch(/mode: MODE/);
    await expect(evaluate(code)).rejects.toThrow(/MODE is not defined/);
  });

  it('compile JSX through @gitbook/runtime when the integration depends on it', async () => {
    const files = {
      'src/index.ts': "import { view } from './view.jsx';\nexport default view;\n",
      'src/view.jsx': 'export const view = <block title="Hello"><text>{MODE}</text></block>;\n',
      // A stand-in for the package, written for this test: its automatic JSX runtime records what it is given.
      'node_modules/@gitbook/runtime/package.json': JSON.stringify({
        name: '@gitbook/runtime',
        type: 'module',
        exports: { './jsx-runtime': './jsx-runtime.js' },
      }),
      'node_modules/@gitbook/runtime/jsx-runtime.js':
        'export const jsx = (type, props) => ({ via: "gitbook", type, props });\nexport const jsxs = jsx;\nexport const Fragment = "fragment";\n',
    };
    const withRuntime = await tempDir({
      ...files,
      'package.json': JSON.stringify({ name: 'x', dependencies: { '@gitbook/runtime': '*' } }),
    });
    expect(bundleOptions(withRuntime, 'gitbook', 'production')).toMatchObject({
      jsx: 'automatic',
      jsxImportSource: '@gitbook/runtime',
    });
    expect(await evaluate(await bundle(withRuntime, 'gitbook'))).toEqual({
      via: 'gitbook',
      type: 'block',
      props: { title: 'Hello', children: { via: 'gitbook', type: 'text', props: { children: 'production' } } },
    });

    const without = await tempDir({ ...files, 'package.json': JSON.stringify({ name: 'x' }) });
    expect(bundleOptions(without, 'gitbook', 'production')).not.toHaveProperty('jsx');
    expect(await bundle(without, 'gitbook')).toMatch(/React\.createElement/);
  });
});
