/**
 * The field translators of the GitBook dialect's manifest (gitbook-manifest.ts): each reads one
 * field of that platform's manifest, reports what is wrong or has no meaning here with its path,
 * and answers the field in Portico's model.
 */
import { didYouMean } from './did-you-mean.js';
import type { GitBookBlock, GitBookDialect, MovedPositions } from './gitbook-manifest.js';
import type { PathSegment } from './problem.js';
import { describeValue, isRecord } from './schema-issues.js';

/** Reports a problem at a path of the manifest (`where`: its key or its value). */
export type Report = (path: PathSegment[], message: string, where?: 'key' | 'value') => void;

export function readPolicy(field: unknown, error: Report): string | Record<string, string> | undefined {
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
export function translateList(
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
export function translateName(field: unknown, warn: Report): unknown {
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
export function translateSecrets(field: unknown, error: Report): unknown {
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

export function translateBlocks(field: unknown, dialect: GitBookDialect, error: Report, warn: Report): unknown {
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

export function translateConfigurations(
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
export function mergeForms(site: unknown, space: unknown, positions: MovedPositions, warn: Report): unknown {
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
