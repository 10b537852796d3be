import { didYouMean } from './did-you-mean.js';
import { knownKeysOf } from './known-keys.js';
import { checkManifestRules, type RuleOptions } from './manifest-rules.js';
import { type Manifest, manifestSchema } from './manifest-schema.js';
import { parseYaml } from './parse-yaml.js';
import { byPosition, formatPath, type ManifestError, type PathSegment } from './problem.js';
import { isRecord, lookup, schemaIssuesToErrors } from './schema-issues.js';
import type { Positions, SourceMap } from './source-map.js';
import { MANIFEST_FILE } from './vocabulary.js';

export interface ParseOptions extends RuleOptions {
  /** The file name used in messages (default `platform-manifest.yaml`). */
  file?: string;
}

export type ManifestResult =
  | { ok: true; file: string; manifest: Manifest; errors: []; warnings: ManifestError[] }
  | { ok: false; file: string; errors: ManifestError[]; warnings: ManifestError[] };

/** What `analyzeManifest` found: the raw data and where it is written, when the YAML could be read. */
export interface Analysis {
  value: unknown;
  positions: Positions | undefined;
  manifest: Manifest | undefined;
  errors: ManifestError[];
  warnings: ManifestError[];
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
  const document = readDocument(text);
  if (!document.ok) return document.analysis;
  const { value, sourceMap } = document;
  return { ...validateManifestValue(value, sourceMap, options), positions: sourceMap };
}

/** The YAML of a manifest as data, or an analysis that says why it cannot be read. */
export function readDocument(
  text: string,
): { ok: true; value: Record<string, unknown>; sourceMap: SourceMap } | { ok: false; analysis: Analysis } {
  const yaml = parseYaml(text);
  const failed = (errors: ManifestError[], value?: unknown, positions?: Positions) => ({
    ok: false as const,
    analysis: { value, positions, manifest: undefined, errors, warnings: [] },
  });
  if (!yaml.ok) return failed(yaml.errors);
  const { value, sourceMap } = yaml;
  const shapeError = checkDocumentShape(value);
  if (shapeError !== undefined || !isRecord(value)) {
    return failed([{ path: '', ...sourceMap.valueAt([]), message: shapeError ?? '' }], value, sourceMap);
  }
  return { ok: true, value, sourceMap };
}

/**
 * Checks manifest data against the schema and the cross-field rules. With `unknownKeys:
 * 'warn'` (manifests of another dialect), a key Portico does not know is a warning and is left
 * out of the manifest instead of an error; the data without those keys is answered as `value`.
 */
export function validateManifestValue(
  input: Record<string, unknown>,
  positions: Positions,
  options: RuleOptions,
  unknownKeys: 'error' | 'warn' = 'error',
): Omit<Analysis, 'positions'> {
  let value = input;
  let parsed = manifestSchema.safeParse(value);
  const warnings: ManifestError[] = [];
  if (unknownKeys === 'warn' && !parsed.success) {
    const unknown = parsed.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    if (unknown.length > 0) {
      const known = knownKeysOf(manifestSchema, value);
      value = structuredClone(value);
      for (const issue of unknown) {
        const path = issue.path as PathSegment[];
        const holder = lookup(value, path);
        for (const key of issue.keys) {
          const where = path.length === 0 ? ' at the top level' : ` in \`${formatPath(path)}\``;
          warnings.push({
            path: formatPath([...path, key]),
            ...positions.keyAt([...path, key]),
            message: `\`${key}\`${where} has no meaning in Portico; it is ignored${didYouMean(key, known.at(path))}`,
          });
          if (isRecord(holder)) delete holder[key];
        }
      }
      parsed = manifestSchema.safeParse(value);
    }
  }
  const errors = [
    ...(parsed.success
      ? []
      : schemaIssuesToErrors(parsed.error.issues, value, positions, knownKeysOf(manifestSchema, value))),
    ...checkManifestRules(value, positions, options),
  ].sort(byPosition);
  return { value, manifest: parsed.success ? parsed.data : undefined, errors, warnings: warnings.sort(byPosition) };
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
