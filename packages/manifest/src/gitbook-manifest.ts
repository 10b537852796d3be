/**
 * The GitBook dialect's manifest (`gitbook-manifest.yaml`, DESIGN.md "Integrations written for
 * GitBook's runtime") translated to Portico's model. What has a meaning here is translated:
 * `configurations.space` becomes the site-level form (Portico has one form for space and site
 * installations), `page:feedback:read` becomes `site:views:read`, the `visitor-auth` category
 * `authenticated-access`; what Portico keeps beside its manifest (`target`,
 * `contentSecurityPolicy`, `{ componentId }` configurations, blocks' `urlUnfurl` and `markdown`,
 * `envs`) is read into a `GitBookDialect`. What has no meaning here is a positioned warning,
 * never silently dropped and never an error: the integration runs without it.
 *
 * Written from that platform's documented manifest format; none of its code is used.
 */
import { didYouMean } from './did-you-mean.js';
import {
  type Report,
  readPolicy,
  translateBlocks,
  translateConfigurations,
  translateList,
  translateName,
  translateSecrets,
} from './gitbook-manifest-fields.js';
import { formatPath, type ManifestError, type PathSegment } from './problem.js';
import { describeValue, isRecord } from './schema-issues.js';
import type { Position, Positions } from './source-map.js';
import { CATEGORIES, type Category, SCOPES, type Scope } from './vocabulary.js';

export const GITBOOK_MANIFEST_FILE = 'gitbook-manifest.yaml';

/** Where that platform lets an integration be installed; `all` when the manifest says nothing. */
export const GITBOOK_TARGETS = ['all', 'organization', 'space', 'site'] as const;
export type GitBookTarget = (typeof GITBOOK_TARGETS)[number];

/** Scopes of that platform that Portico names otherwise (DESIGN.md: `page_feedback` → `site:views:read`). */
const SCOPE_NAMES: ReadonlyMap<string, Scope> = new Map([['page:feedback:read', 'site:views:read']]);

/** Why a scope of that platform has no counterpart, when there is more to say than "none". */
const SCOPE_HINTS: ReadonlyMap<string, string> = new Map([
  [
    'space:views:read',
    'Portico sends `space_view` events to integrations with `space:content:read`; add that scope if the integration handles them',
  ],
]);

const CATEGORY_NAMES: ReadonlyMap<string, Category> = new Map([['visitor-auth', 'authenticated-access']]);

/** A block's extras: the links it unfurls and the Markdown code blocks it stands for. */
export interface GitBookBlock {
  urlUnfurl?: string[];
  markdown?: { codeblock: string; body: string };
}

/** What a GitBook-dialect manifest says that Portico's manifest has no field for. */
export interface GitBookDialect {
  target: GitBookTarget;
  /** The content security policy of the integration's scripts and frames: a policy, or directive → sources. */
  contentSecurityPolicy?: string | Record<string, string>;
  /** Configurations shown by a component instead of a generated form (`account`, or `site` for spaces and sites). */
  configurationComponents: { account?: string; site?: string };
  /** By block id. */
  blocks: Record<string, GitBookBlock>;
  /** The names under `envs`, and the one applied when the manifest was read with one. */
  envs: string[];
  env?: string;
}

export interface TranslateOptions {
  /** Apply `envs.<env>` over the top-level keys (as that platform's CLI does for `--env`). */
  env?: string;
}

export interface Translation {
  /** Manifest data in Portico's shape, to validate with Portico's schema and rules. */
  value: Record<string, unknown>;
  /**
   * Where each path of `value` is written in the GitBook manifest. Problems keep the path of the
   * data as read (after `envs` is applied; `configurations.site` for a form written under
   * `configurations.space`); their line and column point into the file.
   */
  positions: Positions;
  errors: ManifestError[];
  warnings: ManifestError[];
  dialect: GitBookDialect;
}

/**
 * Positions of translated data: a path under a renamed or moved prefix is looked up under the
 * prefix it came from (the longest rule that applies wins).
 */
export class MovedPositions implements Positions {
  private readonly rules: { from: PathSegment[]; to: PathSegment[] }[] = [];

  constructor(private readonly source: Positions) {}

  move(from: PathSegment[], to: PathSegment[]): void {
    this.rules.push({ from, to });
  }

  origin(path: readonly PathSegment[]): PathSegment[] {
    let best: { from: PathSegment[]; to: PathSegment[] } | undefined;
    for (const rule of this.rules) {
      const applies = rule.from.length <= path.length && rule.from.every((segment, i) => path[i] === segment);
      if (applies && (best === undefined || rule.from.length > best.from.length)) best = rule;
    }
    return best === undefined ? [...path] : [...best.to, ...path.slice(best.from.length)];
  }

  valueAt(path: readonly PathSegment[]): Position {
    return this.source.valueAt(this.origin(path));
  }

  keyAt(path: readonly PathSegment[]): Position {
    return this.source.keyAt(this.origin(path));
  }
}

export function translateGitBookManifest(
  source: Record<string, unknown>,
  sourcePositions: Positions,
  options: TranslateOptions = {},
): Translation {
  const errors: ManifestError[] = [];
  const warnings: ManifestError[] = [];
  // Two layers: `envs.<env>` over the top level, then the translation of the merged data.
  const merged = new MovedPositions(sourcePositions);
  const positions = new MovedPositions(merged);
  const report = (list: ManifestError[], path: PathSegment[], message: string, where: 'key' | 'value' = 'value') =>
    list.push({
      path: formatPath(path),
      ...(where === 'key' ? merged.keyAt(path) : merged.valueAt(path)),
      message,
    });
  const error = (path: PathSegment[], message: string) => report(errors, path, message);
  const warn = (path: PathSegment[], message: string, where: 'key' | 'value' = 'value') =>
    report(warnings, path, message, where);

  const dialect: GitBookDialect = { target: 'all', configurationComponents: {}, blocks: {}, envs: [] };
  const data = applyEnv(source, options.env, dialect, merged, error);

  const value: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(data)) {
    switch (key) {
      case 'envs':
        break; // read by applyEnv
      case 'target':
        if (typeof field === 'string' && (GITBOOK_TARGETS as readonly string[]).includes(field)) {
          dialect.target = field as GitBookTarget;
        } else {
          const suggestion = typeof field === 'string' ? didYouMean(field, GITBOOK_TARGETS) : '';
          error(
            ['target'],
            `\`target\` must be one of ${GITBOOK_TARGETS.join(', ')}, but it is ${describeValue(field)}${suggestion}`,
          );
        }
        break;
      case 'contentSecurityPolicy': {
        const policy = readPolicy(field, error);
        if (policy !== undefined) dialect.contentSecurityPolicy = policy;
        break;
      }
      case 'scopes':
        value.scopes = translateList(field, 'scopes', positions, warn, (scope) => {
          const renamed = SCOPE_NAMES.get(scope);
          if (renamed !== undefined) return renamed;
          if ((SCOPES as readonly string[]).includes(scope)) return scope;
          const hint = SCOPE_HINTS.get(scope);
          const why = hint !== undefined ? `: ${hint}` : didYouMean(scope, [...SCOPES, ...SCOPE_NAMES.keys()]);
          return { ignored: `the scope "${scope}" has no meaning in Portico; it is ignored${why}` };
        });
        break;
      case 'categories':
        value.categories = translateList(field, 'categories', positions, warn, (category) => {
          const renamed = CATEGORY_NAMES.get(category);
          if (renamed !== undefined) return renamed;
          if ((CATEGORIES as readonly string[]).includes(category)) return category;
          return {
            ignored: `the category "${category}" has no meaning in Portico; it is ignored (Portico's categories are ${CATEGORIES.join(', ')})`,
          };
        });
        break;
      case 'blocks':
        value.blocks = translateBlocks(field, dialect, error, warn);
        break;
      case 'name':
        value.name = translateName(field, warn);
        break;
      case 'secrets':
        value.secrets = translateSecrets(field, error);
        break;
      case 'configurations':
        value.configurations = translateConfigurations(field, dialect, positions, error, warn);
        break;
      default:
        value[key] = field; // Portico's schema judges it; keys it does not know become warnings
    }
  }
  return { value, positions, errors, warnings, dialect };
}

/** The data with `envs.<env>` applied over its top-level keys; records the env names. */
function applyEnv(
  source: Record<string, unknown>,
  env: string | undefined,
  dialect: GitBookDialect,
  merged: MovedPositions,
  error: Report,
): Record<string, unknown> {
  const envs = source.envs;
  if (envs !== undefined && !isRecord(envs)) {
    error(
      ['envs'],
      `\`envs\` must be a mapping of environment names to the keys they change, but it is ${describeValue(envs)}`,
    );
  }
  const names = isRecord(envs) ? Object.keys(envs) : [];
  dialect.envs = names;
  for (const name of names) {
    const overrides = (envs as Record<string, unknown>)[name];
    if (!isRecord(overrides) && overrides !== null) {
      error(
        ['envs', name],
        `\`envs.${name}\` must be a mapping of the top-level keys it changes (such as \`organization:\`), but it is ${describeValue(overrides)}`,
      );
    }
  }
  if (env === undefined) return source;
  if (!names.includes(env)) {
    const others = names.length > 0 ? `; the manifest's envs are ${names.join(', ')}` : '; add it under `envs`';
    error(['envs'], `there is no env "${env}" in \`envs\`${didYouMean(env, names) || others}`);
    return source;
  }
  dialect.env = env;
  const overrides = (envs as Record<string, unknown>)[env];
  if (!isRecord(overrides)) return source;
  const data = { ...source };
  for (const [key, field] of Object.entries(overrides)) {
    if (key === 'envs') {
      error(['envs', env, 'envs'], `\`envs\` cannot be nested in \`envs.${env}\`; remove it`);
      continue;
    }
    data[key] = field;
    merged.move([key], ['envs', env, key]);
  }
  return data;
}
