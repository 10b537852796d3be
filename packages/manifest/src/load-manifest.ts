import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GITBOOK_MANIFEST_FILE, type GitBookDialect, type TranslateOptions } from './gitbook-manifest.js';
import { checkAssets } from './manifest-assets.js';
import type { RuleOptions } from './manifest-rules.js';
import { analyzeGitBookManifest } from './parse-gitbook-manifest.js';
import { type Analysis, analyzeManifest, type ManifestResult } from './parse-manifest.js';
import { formatBytes } from './parse-yaml.js';
import { byPosition, type ManifestError } from './problem.js';
import { MANIFEST_FILE, MAX_MANIFEST_BYTES } from './vocabulary.js';

/** `env`: for a GitBook-dialect manifest, the entry of its `envs` to apply. */
export type LoadOptions = RuleOptions & TranslateOptions;

/** How the integration is written: for Portico's SDK, or for GitBook's runtime (DESIGN.md, "the GitBook dialect"). */
export type Dialect = 'portico' | 'gitbook';

/** A loaded manifest, with its dialect; `gitbook` holds what a GitBook-dialect manifest says beyond Portico's model. */
export type LoadedManifest = ManifestResult & { dialect: Dialect; gitbook?: GitBookDialect };

/**
 * Reads and validates the manifest of DIR: `platform-manifest.yaml`, or, when there is none,
 * `gitbook-manifest.yaml` (translated to Portico's model, see gitbook-manifest.ts): everything
 * the parser checks, plus the files it names (they must exist inside DIR) and the size of its
 * preview images. Never throws for a bad manifest or a missing file; every problem is in the
 * result, whose `file` is the manifest that was read.
 */
export async function loadManifest(dir: string, options: LoadOptions = {}): Promise<LoadedManifest> {
  const dialect: Dialect =
    !(await exists(join(dir, MANIFEST_FILE))) && (await exists(join(dir, GITBOOK_MANIFEST_FILE)))
      ? 'gitbook'
      : 'portico';
  const file = join(dir, dialect === 'gitbook' ? GITBOOK_MANIFEST_FILE : MANIFEST_FILE);
  const fileError = (message: string): LoadedManifest => ({
    ok: false,
    file,
    errors: [{ path: '', line: 1, column: 1, message }],
    warnings: [],
    dialect,
  });

  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) return fileError(`${file} is not a file`);
    size = info.size;
  } catch (error) {
    if (isNotFound(error)) {
      return fileError(`there is no ${MANIFEST_FILE} in ${dir}; create one with \`portico new ${dir}\``);
    }
    return fileError(`${file} could not be read: ${(error as Error).message}`);
  }
  if (size > MAX_MANIFEST_BYTES) {
    return fileError(
      `the manifest is ${formatBytes(size)}; a manifest may be at most ${formatBytes(MAX_MANIFEST_BYTES)}: keep long text such as documentation out of it`,
    );
  }

  const text = await readFile(file, 'utf8');
  const analysis: Analysis & { gitbook?: GitBookDialect | undefined } =
    dialect === 'gitbook' ? analyzeGitBookManifest(text, options) : analyzeManifest(text, options);
  const extras = analysis.gitbook !== undefined ? { gitbook: analysis.gitbook } : {};
  let errors: ManifestError[] = analysis.errors;
  let warnings: ManifestError[] = analysis.warnings;
  if (analysis.positions !== undefined) {
    const assets = await checkAssets(analysis.value, analysis.positions, dir);
    errors = [...errors, ...assets.errors].sort(byPosition);
    warnings = [...warnings, ...assets.warnings].sort(byPosition);
  }
  if (analysis.manifest !== undefined && errors.length === 0) {
    return { ok: true, file, manifest: analysis.manifest, errors: [], warnings, dialect, ...extras };
  }
  return { ok: false, file, errors, warnings, dialect, ...extras };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
