import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkAssets } from './manifest-assets.js';
import type { RuleOptions } from './manifest-rules.js';
import { analyzeManifest, type ManifestResult } from './parse-manifest.js';
import { formatBytes } from './parse-yaml.js';
import { byPosition, type ManifestError } from './problem.js';
import { MANIFEST_FILE, MAX_MANIFEST_BYTES } from './vocabulary.js';

export type LoadOptions = RuleOptions;

/**
 * Reads and validates `DIR/platform-manifest.yaml`: everything `parseManifest` checks, plus
 * the files it names (they must exist inside DIR) and the size of its preview images.
 * Never throws for a bad manifest or a missing file; every problem is in the result.
 */
export async function loadManifest(dir: string, options: LoadOptions = {}): Promise<ManifestResult> {
  const file = join(dir, MANIFEST_FILE);
  const fileError = (message: string): ManifestResult => ({
    ok: false,
    file,
    errors: [{ path: '', line: 1, column: 1, message }],
    warnings: [],
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
  const analysis = analyzeManifest(text, options);
  let errors: ManifestError[] = analysis.errors;
  let warnings: ManifestError[] = [];
  if (analysis.sourceMap !== undefined) {
    const assets = await checkAssets(analysis.value, analysis.sourceMap, dir);
    errors = [...errors, ...assets.errors].sort(byPosition);
    warnings = assets.warnings;
  }
  if (analysis.manifest !== undefined && errors.length === 0) {
    return { ok: true, file, manifest: analysis.manifest, errors: [], warnings };
  }
  return { ok: false, file, errors, warnings };
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
