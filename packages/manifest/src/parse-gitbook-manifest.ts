import {
  GITBOOK_MANIFEST_FILE,
  type GitBookDialect,
  type TranslateOptions,
  translateGitBookManifest,
} from './gitbook-manifest.js';
import type { RuleOptions } from './manifest-rules.js';
import {
  type Analysis,
  type ManifestResult,
  type ParseOptions,
  readDocument,
  validateManifestValue,
} from './parse-manifest.js';
import { byPosition } from './problem.js';

/** A manifest of the GitBook dialect, read into Portico's model; `gitbook` holds what the model has no field for. */
export type GitBookManifestResult = ManifestResult & { dialect: 'gitbook'; gitbook?: GitBookDialect };

export interface GitBookAnalysis extends Analysis {
  gitbook: GitBookDialect | undefined;
}

/**
 * Validates the text of a `gitbook-manifest.yaml` as Portico reads it: translated to Portico's
 * manifest, then checked by Portico's schema and rules with positions in the GitBook manifest.
 * What has no meaning here is a warning, and leaves the manifest valid. Never throws.
 */
export function parseGitBookManifest(
  text: string,
  options: ParseOptions & TranslateOptions = {},
): GitBookManifestResult {
  const file = options.file ?? GITBOOK_MANIFEST_FILE;
  const { manifest, errors, warnings, gitbook } = analyzeGitBookManifest(text, options);
  const dialect = { dialect: 'gitbook' as const, ...(gitbook !== undefined ? { gitbook } : {}) };
  if (manifest !== undefined && errors.length === 0)
    return { ok: true, file, manifest, errors: [], warnings, ...dialect };
  return { ok: false, file, errors, warnings, ...dialect };
}

export function analyzeGitBookManifest(text: string, options: RuleOptions & TranslateOptions): GitBookAnalysis {
  const document = readDocument(text);
  if (!document.ok) return { ...document.analysis, gitbook: undefined };
  const translation = translateGitBookManifest(document.value, document.sourceMap, options);
  const checked = validateManifestValue(translation.value, translation.positions, options, 'warn');
  return {
    value: checked.value,
    positions: translation.positions,
    manifest: checked.manifest,
    errors: [...translation.errors, ...checked.errors].sort(byPosition),
    warnings: [...translation.warnings, ...checked.warnings].sort(byPosition),
    gitbook: translation.dialect,
  };
}
