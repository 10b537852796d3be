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
class MovedPositions implements Positions {
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

type Report = (path: PathSegment[], message: string, where?: 'key' | 'value') => void;

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

function readPolicy(field: unknown, error: Report): string | Record<string, string> | undefined {
  const help =
    'a policy (`script-src https://cdn.example.com`) or a mapping of directives to sources (`script-src: https://cdn.example.com`)';
  if (typeof field === 'string') return field;
  if (!isRecord(field)) {
    error(['contentSecurityPolicy'], `\`contentSecurityPolicy\` must be ${help}, but it is ${describeValue(field)}`);
    return undefined;
  }
  const policy: Record<string, string> = {};
  for (const [directive, sources] of Object.entries(field)) {
    if (typeof sources === 'string') policy[directive] = sources;
    else if (Array.isArray(sources) && sources.every((s) => typeof s === 'string'))
      policy[directive] = sources.join(' ');
    else {
      error(
        ['contentSecurityPolicy', directive],
        `the sources of \`${directive}\` must be text (\`https://cdn.example.com 'self'\`) or a list of sources, but they are ${describeValue(sources)}`,
      );
    }
  }
  return policy;
}

/**
 * A list of names translated one by one: `translate` answers the Portico name, or the warning
 * for a name left out. Positions follow the items' new indexes.
 * A name that two items translate to is kept once; an item repeated as written is kept twice,
 * so Portico's rules report the duplicate as in its own manifests.
 */
function translateList(
  field: unknown,
  key: 'scopes' | 'categories',
  positions: MovedPositions,
  warn: Report,
  translate: (name: string) => string | { ignored: string },
): unknown {
  if (!Array.isArray(field)) return field;
  const out: unknown[] = [];
  const writtenAs = new Map<string, string>();
  field.forEach((item, index) => {
    if (typeof item !== 'string') {
      positions.move([key, out.length], [key, index]);
      out.push(item);
      return;
    }
    const name = translate(item);
    if (typeof name !== 'string') {
      warn([key, index], name.ignored);
      return;
    }
    const first = writtenAs.get(name);
    if (first !== undefined && first !== item) return;
    writtenAs.set(name, item);
    positions.move([key, out.length], [key, index]);
    out.push(name);
  });
  return out;
}

/**
 * The name, in lower case: that platform's names may have capitals, Portico's are lower-case
 * words joined by hyphens (they are part of URLs and commands). Said in a warning, because the
 * integration is then published, installed and named in its environment by the lower-case name.
 */
function translateName(field: unknown, warn: Report): unknown {
  if (typeof field !== 'string' || field === field.toLowerCase()) return field;
  const lower = field.toLowerCase();
  warn(
    ['name'],
    `Portico's names are lower case: "${field}" is published as "${lower}" (its environment's \`integration.name\` and the name to give \`portico install\` and \`portico dev\`)`,
  );
  return lower;
}

/** `${{ "op://vault/item/field" }}`: a 1Password reference, as that platform's CLI reads secrets. */
const ONE_PASSWORD_REFERENCE = /^\$\{\{\s*["']?(op:\/\/[^"'}]*)["']?\s*\}\}$/;

/**
 * The secrets, without the 1Password references (`${{ "op://…" }}`), each refused: that
 * platform's CLI resolves them from its 1Password vault when it publishes; Portico reads secret
 * values from the environment of `portico publish` only. The other values are Portico's to judge.
 */
function translateSecrets(field: unknown, error: Report): unknown {
  if (!isRecord(field)) return field;
  const out: Record<string, unknown> = {};
  for (const [name, reference] of Object.entries(field)) {
    const onePassword = typeof reference === 'string' ? ONE_PASSWORD_REFERENCE.exec(reference.trim())?.[1] : undefined;
    if (onePassword === undefined) {
      out[name] = reference;
      continue;
    }
    error(
      ['secrets', name],
      `\`secrets.${name}\` is a 1Password reference (${onePassword}), which GitBook's CLI resolves from its vault when it publishes; Portico does not read 1Password. Write \`${name}: \${{ env.${name} }}\` here (or in an entry of \`envs\` you publish with --env) and set ${name} in the environment of \`portico publish\`, e.g. \`export ${name}="$(op read '${onePassword}')"\``,
    );
  }
  return out;
}

function translateBlocks(field: unknown, dialect: GitBookDialect, error: Report, warn: Report): unknown {
  if (!Array.isArray(field)) return field;
  return field.map((block, index) => {
    if (!isRecord(block)) return block;
    const { urlUnfurl, markdown, ...rest } = block;
    // Their blocks may go without a description; the quick insert menu then shows the title.
    if (rest.description === undefined && typeof rest.title === 'string') rest.description = rest.title;
    const extras: GitBookBlock = {};
    const path = ['blocks', index];
    if (urlUnfurl !== undefined) {
      if (Array.isArray(urlUnfurl) && urlUnfurl.every((url) => typeof url === 'string' && url !== '')) {
        extras.urlUnfurl = urlUnfurl as string[];
      } else {
        error(
          [...path, 'urlUnfurl'],
          `\`blocks[${index}].urlUnfurl\` must be a list of URL patterns (\`- https://example.com/*\`), but it is ${describeValue(urlUnfurl)}`,
        );
      }
    }
    if (markdown !== undefined) {
      if (isRecord(markdown) && typeof markdown.codeblock === 'string' && typeof markdown.body === 'string') {
        extras.markdown = { codeblock: markdown.codeblock, body: markdown.body };
        for (const key of Object.keys(markdown)) {
          if (key !== 'codeblock' && key !== 'body') {
            warn(
              [...path, 'markdown', key],
              `\`${key}\` in \`blocks[${index}].markdown\` has no meaning in Portico; it is ignored${didYouMean(key, ['codeblock', 'body'])}`,
              'key',
            );
          }
        }
      } else {
        error(
          [...path, 'markdown'],
          `\`blocks[${index}].markdown\` must be a mapping with \`codeblock\` (the code block's language) and \`body\` (the property of the block that holds the code), but it is ${describeValue(markdown)}`,
        );
      }
    }
    if (typeof block.id === 'string' && (extras.urlUnfurl || extras.markdown)) dialect.blocks[block.id] = extras;
    return rest;
  });
}

function translateConfigurations(
  field: unknown,
  dialect: GitBookDialect,
  positions: MovedPositions,
  error: Report,
  warn: Report,
): unknown {
  if (!isRecord(field)) return field;
  const out: Record<string, unknown> = {};
  for (const level of Object.keys(field)) {
    if (level !== 'account' && level !== 'space' && level !== 'site') {
      warn(
        ['configurations', level],
        `\`configurations.${level}\` has no meaning in Portico; it is ignored (Portico has \`account\` for the organization and \`site\` (or \`space\`) for spaces and sites)${didYouMean(level, ['account', 'space', 'site'])}`,
        'key',
      );
    }
  }
  /** The level's form without its `componentId` (undefined when nothing else is left). */
  const form = (level: 'account' | 'space' | 'site'): unknown => {
    const block = field[level];
    if (!isRecord(block) || !Object.hasOwn(block, 'componentId')) return block;
    const { componentId, ...rest } = block;
    if (typeof componentId !== 'string' || componentId.trim() === '') {
      error(
        ['configurations', level, 'componentId'],
        `\`configurations.${level}.componentId\` must be the id of the component that shows this configuration, but it is ${describeValue(componentId)}`,
      );
    } else {
      const as = level === 'account' ? 'account' : 'site';
      const other = dialect.configurationComponents[as];
      if (other !== undefined && other !== componentId) {
        warn(
          ['configurations', level, 'componentId'],
          `Portico shows one configuration component for spaces and sites; "${other}" (of \`configurations.site\`) is used and "${componentId}" is ignored`,
        );
      } else {
        dialect.configurationComponents[as] = componentId;
      }
    }
    return Object.keys(rest).length > 0 ? rest : undefined;
  };

  const account = form('account');
  if (account !== undefined) out.account = account;
  // `site` first, so that its component wins over the one of `space`.
  const site = form('site');
  const space = form('space');
  if (space === undefined) {
    if (site !== undefined) out.site = site;
  } else if (site === undefined) {
    out.site = space;
    positions.move(['configurations', 'site'], ['configurations', 'space']);
  } else {
    out.site = mergeForms(site, space, positions, warn);
  }
  return out;
}

/**
 * One form for spaces and sites from `configurations.site` and `configurations.space`: every
 * property of both (the site's definition when both define one), required only when both require it.
 */
function mergeForms(site: unknown, space: unknown, positions: MovedPositions, warn: Report): unknown {
  const spaceBase: PathSegment[] = ['configurations', 'space'];
  const siteBase: PathSegment[] = ['configurations', 'site'];
  if (!isRecord(site) || !isRecord(space) || !isRecord(site.properties) || !isRecord(space.properties)) {
    warn(
      spaceBase,
      'Portico has one configuration form for spaces and sites; `configurations.site` is used and `configurations.space` is ignored',
      'key',
    );
    return site;
  }
  const properties: Record<string, unknown> = { ...space.properties, ...site.properties };
  for (const [name, definition] of Object.entries(space.properties)) {
    if (!Object.hasOwn(site.properties, name)) {
      positions.move([...siteBase, 'properties', name], [...spaceBase, 'properties', name]);
    } else if (JSON.stringify(definition) !== JSON.stringify(site.properties[name])) {
      warn(
        [...spaceBase, 'properties', name],
        `\`${name}\` is defined differently in \`configurations.site\`; Portico has one form for spaces and sites and uses that definition`,
        'key',
      );
    }
  }
  const merged: Record<string, unknown> = { ...site, properties };
  const spaceRequired = Array.isArray(space.required) ? space.required : [];
  if (Array.isArray(site.required)) {
    const required: unknown[] = [];
    site.required.forEach((name, index) => {
      if (!spaceRequired.includes(name)) return;
      positions.move([...siteBase, 'required', required.length], [...siteBase, 'required', index]);
      required.push(name);
    });
    merged.required = required;
  }
  warn(
    spaceBase,
    'Portico has one configuration form for spaces and sites: the properties of `configurations.space` and `configurations.site` are merged into it, and a property is required only when both require it',
    'key',
  );
  return merged;
}
