import type { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { formatPath, type ManifestError, type PathSegment } from './problem.js';
import type { Positions } from './source-map.js';
import { PROPERTY_TYPES } from './vocabulary.js';

type Issue = z.core.$ZodIssue;

/** Keys each kind of object in the manifest accepts; used to suggest a fix for an unknown key. */
export interface KnownKeys {
  /** The keys accepted by the object at `path` of `value`. */
  at(path: readonly PathSegment[]): readonly string[];
  /** For a configuration property: the property types that accept `key`. */
  typesAccepting(key: string): readonly string[];
}

/** Turns the schema's issues into positioned errors whose messages say how to fix them. */
export function schemaIssuesToErrors(
  issues: readonly Issue[],
  value: unknown,
  sourceMap: Positions,
  known: KnownKeys,
): ManifestError[] {
  return issues.flatMap((issue) => convert(issue, value, sourceMap, known));
}

function convert(issue: Issue, value: unknown, sourceMap: Positions, known: KnownKeys): ManifestError[] {
  const path = issue.path as PathSegment[];
  const at = (p: readonly PathSegment[], message: string, where: 'key' | 'value' = 'value'): ManifestError => ({
    path: formatPath(p),
    ...(where === 'key' ? sourceMap.keyAt(p) : sourceMap.valueAt(p)),
    message,
  });
  const name = `\`${formatPath(path)}\``;

  const key = path[path.length - 1];
  const parentPath = path.slice(0, -1);
  const parent = lookup(value, parentPath);
  if (issue.code !== 'invalid_union' && typeof key === 'string' && isRecord(parent) && !Object.hasOwn(parent, key)) {
    return [
      {
        path: formatPath(path),
        ...sourceMap.valueAt(parentPath),
        message: `missing required field \`${key}\`${where(parentPath)}; add \`${key}:\` with a value`,
      },
    ];
  }

  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = known.at(path);
      return issue.keys.map((key) => {
        const keyPath = [...path, key];
        const types = known.typesAccepting(key);
        const propertyType = propertyTypeAt(value, path);
        const message =
          propertyType !== undefined && types.length > 0
            ? `\`${key}\` is only allowed on properties of type ${types.join(' or ')}, and this property is of type ${propertyType}; remove it or change \`type\``
            : `unknown key \`${key}\`${where(path)}${didYouMean(key, allowed) || `; allowed keys are ${allowed.join(', ')}`}`;
        return at(keyPath, message, 'key');
      });
    }
    case 'invalid_type': {
      const actual = lookup(value, path);
      return [at(path, `${name} must be ${describeExpected(issue.expected)}, but it is ${describeValue(actual)}`)];
    }
    case 'invalid_value': {
      const actual = lookup(value, path);
      const options = issue.values.map(String);
      const suggestion = typeof actual === 'string' ? didYouMean(actual, options) : '';
      return [
        at(path, `${name} must be one of ${options.join(', ')}, but it is ${describeValue(actual)}${suggestion}`),
      ];
    }
    case 'invalid_union': {
      if ('discriminator' in issue && issue.discriminator === 'type') {
        const actual = lookup(value, path);
        if (actual === undefined) {
          const parentPath = path.slice(0, -1);
          return [
            {
              path: formatPath(path),
              ...sourceMap.valueAt(parentPath),
              message: `missing \`type\` for property \`${formatPath(parentPath)}\`; add \`type:\` with one of ${PROPERTY_TYPES.join(', ')}`,
            },
          ];
        }
        const suggestion = typeof actual === 'string' ? didYouMean(actual, PROPERTY_TYPES) : '';
        return [
          at(
            path,
            `property type must be one of ${PROPERTY_TYPES.join(', ')}, but it is ${describeValue(actual)}${suggestion}`,
          ),
        ];
      }
      return [at(path, `${name} is not valid: ${issue.message}`)];
    }
    case 'invalid_key': {
      const inner = issue.issues[0]?.message ?? issue.message;
      return [at(path, `the key \`${String(path[path.length - 1])}\` is not valid: ${inner}`, 'key')];
    }
    case 'too_small':
    case 'too_big':
    case 'invalid_format':
      return [at(path, `${name} ${issue.message}`)];
    case 'custom':
      return [at(path, `${name}: ${issue.message}`)];
    default:
      return [at(path, `${name}: ${issue.message}`)];
  }
}

function where(path: readonly PathSegment[]): string {
  return path.length === 0 ? ' at the top level of the manifest' : ` in \`${formatPath(path)}\``;
}

function propertyTypeAt(value: unknown, path: readonly PathSegment[]): string | undefined {
  if (path.length < 4 || path[0] !== 'configurations' || path[2] !== 'properties') return undefined;
  const property = lookup(value, path);
  return isRecord(property) && typeof property.type === 'string' ? property.type : undefined;
}

export function lookup(value: unknown, path: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isRecord(current) && Object.hasOwn(current, String(segment))) current = current[String(segment)];
    else return undefined;
  }
  return current;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const EXPECTED: Record<string, string> = {
  string: 'text (a string)',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list (lines starting with `- `)',
  object: 'a mapping of keys to values',
  record: 'a mapping of keys to values',
};

function describeExpected(expected: string): string {
  return EXPECTED[expected] ?? `a ${expected}`;
}

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  return `${typeof value === 'number' ? 'the number' : 'the boolean'} ${String(value)}`;
}
