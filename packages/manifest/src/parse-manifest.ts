import { knownKeysOf } from './known-keys.js';
import { checkManifestRules, type RuleOptions } from './manifest-rules.js';
import { type Manifest, manifestSchema } from './manifest-schema.js';
import { parseYaml } from './parse-yaml.js';
import { byPosition, type ManifestError } from './problem.js';
import { isRecord, schemaIssuesToErrors } from './schema-issues.js';
import type { SourceMap } from './source-map.js';
import { MANIFEST_FILE } from './vocabulary.js';

export interface ParseOptions extends RuleOptions {
  /** The file name used in messages (default `platform-manifest.yaml`). */
  file?: string;
}

export type ManifestResult =
  | { ok: true; file: string; manifest: Manifest; errors: []; warnings: ManifestError[] }
  | { ok: false; file: string; errors: ManifestError[]; warnings: ManifestError[] };

/** What `analyzeManifest` found: the raw data and its source map when the YAML could be read. */
export interface Analysis {
  value: unknown;
  sourceMap: SourceMap | undefined;
  manifest: Manifest | undefined;
  errors: ManifestError[];
}

/**
 * Validates the text of a `platform-manifest.yaml`: every rule of the schema and the
 * cross-field rules, all reported at once, each with its path, line and column.
 * Never throws for any input.
 */
export function parseManifest(text: string, options: ParseOptions = {}): ManifestResult {
  const file = options.file ?? MANIFEST_FILE;
  const { manifest, errors } = analyzeManifest(text, options);
  if (manifest !== undefined && errors.length === 0) return { ok: true, file, manifest, errors: [], warnings: [] };
  return { ok: false, file, errors, warnings: [] };
}

export function analyzeManifest(text: string, options: RuleOptions): Analysis {
  const yaml = parseYaml(text);
  if (!yaml.ok) return { value: undefined, sourceMap: undefined, manifest: undefined, errors: yaml.errors };
  const { value, sourceMap } = yaml;
  const shapeError = checkDocumentShape(value);
  if (shapeError !== undefined) {
    return {
      value,
      sourceMap,
      manifest: undefined,
      errors: [{ path: '', ...sourceMap.valueAt([]), message: shapeError }],
    };
  }
  const parsed = manifestSchema.safeParse(value);
  const errors = [
    ...(parsed.success
      ? []
      : schemaIssuesToErrors(parsed.error.issues, value, sourceMap, knownKeysOf(manifestSchema, value))),
    ...checkManifestRules(value, sourceMap, options),
  ].sort(byPosition);
  return { value, sourceMap, manifest: parsed.success ? parsed.data : undefined, errors };
}

function checkDocumentShape(value: unknown): string | undefined {
  if (value === null || value === undefined) {
    return 'the manifest is empty; it needs at least name, title, description, organization, visibility and scopes (run `portico new` to create one)';
  }
  if (!isRecord(value)) {
    const kind = Array.isArray(value) ? 'a list' : `a single ${typeof value}`;
    return `the manifest must be a YAML mapping of keys to values (like \`name: my-integration\`), but it is ${kind}`;
  }
  return undefined;
}
