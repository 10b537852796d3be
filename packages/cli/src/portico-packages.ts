/**
 * Where a new integration gets the Portico packages from, until they are on a registry: chosen
 * from where this CLI itself runs.
 * - From a Portico checkout (the workspace, or a `file:` link into it): `file:` links to the
 *   checkout's packages; npm links them, and they use the checkout's own dependencies.
 * - From packed tarballs (`npm install …/portico-0.1.0.tgz …`): `file:` specs of the same
 *   tarballs, found in the installing project's lockfile, and `overrides` so the Portico packages
 *   they depend on come from there too.
 * - Otherwise (installed from a registry): version ranges.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from './version.js';

/** The packages a new integration depends on directly, by package name. */
export const DIRECT = {
  runtime: '@portico/runtime',
  manifest: '@portico/manifest',
  testing: '@portico/testing',
  cli: 'portico',
} as const;

/** Every publishable package, by name, with its folder in the checkout. */
export const PACKAGES: Record<string, string> = {
  '@portico/manifest': 'packages/manifest',
  '@portico/runtime': 'packages/runtime',
  '@portico/webhooks': 'packages/webhooks',
  '@portico/testing': 'packages/testing',
  '@portico/webhook-integration': 'integrations/webhook',
  '@portico/dashboard': 'packages/dashboard',
  '@portico/platform': 'packages/platform',
  '@portico/client': 'packages/client',
  portico: 'packages/cli',
};

export type PackageSource =
  | { kind: 'checkout'; root: string }
  | { kind: 'tarballs'; tarballs: Record<string, string> }
  | { kind: 'registry' };

/** This CLI's package directory (packages/cli in a checkout, node_modules/portico when installed). */
const ownDir = () => dirname(fileURLToPath(new URL('../package.json', import.meta.url)));

export function packageSource(cliDir: string = ownDir()): PackageSource {
  const real = realpathSync(cliDir);
  const root = resolve(real, '..', '..');
  if (isCheckout(root)) return { kind: 'checkout', root };
  const tarballs = installedTarballs(cliDir);
  if (tarballs !== undefined) return { kind: 'tarballs', tarballs };
  return { kind: 'registry' };
}

/** The package.json fields of a new integration that name the Portico packages, and how to say where they come from. */
export function scaffoldDependencies(source: PackageSource): {
  spec(name: string): string;
  overrides?: Record<string, string>;
  note?: string;
} {
  if (source.kind === 'checkout') {
    return {
      spec: (name) => `file:${join(source.root, PACKAGES[name] as string)}`,
      note: `The Portico packages are not on a registry yet: package.json links them to the checkout at ${source.root} (file: links; build it there with npm run build).`,
    };
  }
  if (source.kind === 'tarballs') {
    const spec = (name: string) => `file:${source.tarballs[name]}`;
    const overrides = Object.fromEntries(
      Object.keys(source.tarballs)
        .filter((name) => !Object.values(DIRECT).includes(name as never))
        .map((name) => [name, spec(name)]),
    );
    const dirs = [...new Set(Object.values(source.tarballs).map((path) => dirname(path)))];
    return {
      spec,
      overrides,
      note: `The Portico packages are not on a registry yet: package.json names the packed tarballs this portico was installed from (${dirs.join(', ')}).`,
    };
  }
  return { spec: () => `^${VERSION}` };
}

function isCheckout(root: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
    return Array.isArray(pkg.workspaces) && pkg.workspaces.includes('packages/cli');
  } catch {
    return false;
  }
}

/**
 * The tarballs each Portico package was installed from, when this CLI was installed from one:
 * read from the hidden lockfile (`node_modules/.package-lock.json`) of the project it was
 * installed into; undefined unless every publishable package is there, as a `.tgz` that exists.
 */
function installedTarballs(cliDir: string): Record<string, string> | undefined {
  // <project>/node_modules/portico: the project is two levels up.
  const modules = dirname(cliDir);
  if (basename(modules) !== 'node_modules') return undefined;
  const project = dirname(modules);
  let lock: { packages?: Record<string, { resolved?: string }> };
  try {
    lock = JSON.parse(readFileSync(join(modules, '.package-lock.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const found: Record<string, string> = {};
  for (const name of Object.keys(PACKAGES)) {
    const resolved = lock.packages?.[`node_modules/${name}`]?.resolved;
    if (resolved === undefined || !resolved.startsWith('file:') || !resolved.endsWith('.tgz')) return undefined;
    const path = resolve(project, resolved.slice('file:'.length));
    if (!existsSync(path)) return undefined;
    found[name] = path;
  }
  return found;
}
