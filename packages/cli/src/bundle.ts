/**
 * How integrations are bundled (`portico publish` and `portico dev`): the manifest's `script`
 * and everything it imports, as one ES module for any Workers-style runtime; and how bundling
 * problems are printed, as `FILE:LINE:COL: message` for editors and problem matchers.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Dialect } from '@portico/manifest';
import type { BuildOptions, Message, Plugin } from 'esbuild';

export const BUNDLE_OPTIONS = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2022',
  write: false,
  logLevel: 'silent',
} as const satisfies BuildOptions;

export type BuildMode = 'production' | 'development';

/**
 * How that platform's CLI resolves and keeps imports (DESIGN.md, "The measure is their own
 * integrations"): a dependency's worker or browser entry before its Node one, the same in
 * `exports` conditions, and Node's and Cloudflare's built-in modules left for the runtime (the
 * worker runs with `nodejs_compat`). With Portico's defaults a dependency that ships a Node entry
 * (`jose`, `@vercel/oidc`, `@octokit/webhooks-methods`) does not build: `Could not resolve "fs"`.
 */
export const GITBOOK_RESOLUTION = {
  mainFields: ['worker', 'browser', 'module', 'jsnext', 'main'],
  conditions: ['worker', 'browser', 'import', 'production'],
  external: ['node:*', 'cloudflare:*'],
} as const satisfies BuildOptions;

/**
 * The build options of an integration in `dir`: BUNDLE_OPTIONS, plus, for the GitBook dialect,
 * that platform's build conventions (DESIGN.md): `MODE` defined as "production" (or
 * "development" in `portico dev`), `*.raw.js` and `*.raw.css` imported as text (the scripts
 * analytics and chat integrations inject), and JSX through `@gitbook/runtime` when the
 * integration depends on it (else esbuild's defaults and the directory's tsconfig.json apply), with
 * its imports resolved as there (GITBOOK_RESOLUTION).
 */
export function bundleOptions(dir: string, dialect: Dialect, mode: BuildMode): BuildOptions {
  if (dialect !== 'gitbook') return { ...BUNDLE_OPTIONS };
  return {
    ...BUNDLE_OPTIONS,
    mainFields: [...GITBOOK_RESOLUTION.mainFields],
    conditions: [...GITBOOK_RESOLUTION.conditions],
    external: [...GITBOOK_RESOLUTION.external],
    define: { MODE: JSON.stringify(mode) },
    plugins: [rawText],
    ...(dependsOn(dir, '@gitbook/runtime') ? { jsx: 'automatic', jsxImportSource: '@gitbook/runtime' } : {}),
  };
}

/** `import script from './script.raw.js'`: the file's text, not its module. */
const rawText: Plugin = {
  name: 'raw-text',
  setup(build) {
    build.onLoad({ filter: /\.raw\.(js|css)$/ }, async (args) => ({
      contents: await readFile(args.path, 'utf8'),
      loader: 'text',
    }));
  },
};

/** Whether `dir/package.json` lists `name` among its dependencies of any kind. */
function dependsOn(dir: string, name: string): boolean {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return false;
  }
  return ['dependencies', 'devDependencies', 'peerDependencies'].some((field) => {
    const deps = manifest[field];
    return typeof deps === 'object' && deps !== null && Object.hasOwn(deps, name);
  });
}

/**
 * The problems of a failed build, one line each, with their file relative to `cwd`; an empty
 * list when `error` is not a build failure.
 */
export function buildProblems(error: unknown, dir: string, cwd: string): string[] {
  const messages = (error as { errors?: Message[] }).errors ?? [];
  return messages.map((message) => {
    const at = message.location;
    if (!at) return message.text;
    const file = relative(cwd, resolve(dir, at.file)) || at.file;
    // esbuild counts columns from 0; editors from 1.
    return `${file}:${at.line}:${at.column + 1}: ${message.text}`;
  });
}
