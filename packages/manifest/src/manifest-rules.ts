import { didYouMean } from './did-you-mean.js';
import { formatPath, type ManifestError, type PathSegment } from './problem.js';
import { isRecord } from './schema-issues.js';
import type { Positions } from './source-map.js';
import { CONFIGURATION_LEVELS, INTERNAL_SCOPES } from './vocabulary.js';

export interface RuleOptions {
  /** The operator marked the publisher internal: internal-only scopes are allowed. */
  internalPublisher?: boolean;
}

/**
 * The rules that relate several values and so cannot live in the schema: duplicates,
 * internal scopes, `required` names, enum defaults. They read the raw parsed data
 * defensively, so they report alongside the schema's errors rather than after them.
 */
export function checkManifestRules(value: unknown, sourceMap: Positions, options: RuleOptions): ManifestError[] {
  if (!isRecord(value)) return [];
  const errors: ManifestError[] = [];
  const report = (path: PathSegment[], message: string) =>
    errors.push({ path: formatPath(path), ...sourceMap.valueAt(path), message });

  for (const field of ['scopes', 'categories'] as const) {
    const list = value[field];
    if (!Array.isArray(list)) continue;
    forEachDuplicate(list, (index, first) =>
      report(
        [field, index],
        `"${String(list[index])}" is listed twice in \`${field}\` (first at line ${sourceMap.valueAt([field, first]).line}); remove the duplicate`,
      ),
    );
  }

  if (Array.isArray(value.scopes) && options.internalPublisher !== true) {
    value.scopes.forEach((scope, index) => {
      if (typeof scope === 'string' && INTERNAL_SCOPES.includes(scope as never)) {
        report(
          ['scopes', index],
          `the scope "${scope}" is internal to the platform and cannot be requested by integrations; remove it (only publishers the operator marks internal may use it)`,
        );
      }
    });
  }

  if (Array.isArray(value.blocks)) {
    const ids = value.blocks.map((block) => (isRecord(block) ? block.id : undefined));
    forEachDuplicate(ids, (index, first) =>
      report(
        ['blocks', index, 'id'],
        `the block id "${String(ids[index])}" is already used by \`blocks[${first}]\` (line ${sourceMap.valueAt(['blocks', first, 'id']).line}); block ids must be unique`,
      ),
    );
  }

  const configurations = value.configurations;
  if (isRecord(configurations)) {
    for (const level of CONFIGURATION_LEVELS) {
      const block = configurations[level];
      if (isRecord(block)) checkConfigurationBlock(block, ['configurations', level], report);
    }
  }
  return errors;
}

function checkConfigurationBlock(
  block: Record<string, unknown>,
  base: PathSegment[],
  report: (path: PathSegment[], message: string) => void,
): void {
  const properties = isRecord(block.properties) ? block.properties : {};
  const names = Object.keys(properties);
  for (const [name, property] of Object.entries(properties)) {
    if (!isRecord(property) || property.type !== 'string' || !Array.isArray(property.enum)) continue;
    const options = property.enum;
    const path = [...base, 'properties', name];
    forEachDuplicate(options, (index) =>
      report([...path, 'enum', index], `the option "${String(options[index])}" is listed twice; remove the duplicate`),
    );
    if (typeof property.default === 'string' && !options.includes(property.default)) {
      report(
        [...path, 'default'],
        `the default "${property.default}" is not one of the options in \`enum\` (${options.join(', ')}); use one of them or add it to \`enum\``,
      );
    }
  }
  const required = block.required;
  if (!Array.isArray(required)) return;
  required.forEach((name, index) => {
    if (typeof name === 'string' && !Object.hasOwn(properties, name)) {
      const suggestion = didYouMean(name, names);
      report(
        [...base, 'required', index],
        `"${name}" is listed in \`required\` but is not a property${suggestion || (names.length > 0 ? `; properties here are ${names.join(', ')}` : '; define it under `properties`')}`,
      );
    }
  });
  forEachDuplicate(required, (index) =>
    report(
      [...base, 'required', index],
      `"${String(required[index])}" is listed twice in \`required\`; remove the duplicate`,
    ),
  );
}

/** Calls `found(index, firstIndex)` for each later occurrence of a primitive value already seen. */
function forEachDuplicate(list: readonly unknown[], found: (index: number, first: number) => void): void {
  const seen = new Map<unknown, number>();
  list.forEach((item, index) => {
    if (item === undefined || item === null || typeof item === 'object') return;
    const first = seen.get(item);
    if (first === undefined) seen.set(item, index);
    else found(index, first);
  });
}
