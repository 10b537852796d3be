/**
 * The events `portico emit` sends, with a sensible value for every field of spec 2.9 and 6.1 (so
 * `portico emit site_view --site docs` is a whole event), and how `--data JSON` and
 * `--field key=value` (dotted keys for nested fields) change them.
 *
 * - `ingested`: platform events the operator sends through `POST /v1/events`;
 * - `setup`: sent by the platform itself after a configuration is saved (emit saves it unchanged);
 * - `render`: `ui_render`, sent when a component is rendered (emit renders one).
 */
import { didYouMean } from '@portico/manifest';
import { usage } from './command-error.js';
import { VERSION } from './version.js';

export type EventPlace = 'space' | 'site' | 'space and site';

export type EventKind =
  | { type: string; how: 'ingested'; place: EventPlace; fields(at: Places): Record<string, unknown> }
  | { type: string; how: 'setup'; level: 'organization' | 'space' | 'site' }
  | { type: string; how: 'render' };

export interface Places {
  space?: string | undefined;
  site?: string | undefined;
  /** Makes generated ids unique per emit. */
  unique: string;
}

const visitor = (at: Places) => ({
  anonymousId: `anon_${at.unique}`,
  userAgent: `portico-emit/${VERSION}`,
  // An address of TEST-NET-3 (RFC 5737): never a real visitor's.
  ip: '203.0.113.10',
  cookies: {},
});
const pageUrl = (place: string | undefined, page = 'getting-started') =>
  `https://docs.example.com/${place ?? 'docs'}/${page}`;

export const EVENT_KINDS: readonly EventKind[] = [
  {
    type: 'space_content_updated',
    how: 'ingested',
    place: 'space',
    fields: (at) => ({ spaceId: at.space, revisionId: `rev_${at.unique}` }),
  },
  {
    type: 'space_view',
    how: 'ingested',
    place: 'space',
    fields: (at) => ({ spaceId: at.space, visitor: visitor(at), url: pageUrl(at.space), referrer: '' }),
  },
  {
    type: 'space_visibility_updated',
    how: 'ingested',
    place: 'space',
    fields: (at) => ({ spaceId: at.space, visibility: 'public' }),
  },
  {
    type: 'space_gitsync_started',
    how: 'ingested',
    place: 'space',
    fields: (at) => ({ spaceId: at.space, revisionId: `rev_${at.unique}` }),
  },
  {
    type: 'space_gitsync_completed',
    how: 'ingested',
    place: 'space',
    fields: (at) => ({ spaceId: at.space, revisionId: `rev_${at.unique}`, state: 'success' }),
  },
  {
    type: 'site_view',
    how: 'ingested',
    place: 'site',
    fields: (at) => ({
      siteId: at.site,
      visitor: visitor(at),
      url: pageUrl(at.site),
      referrer: 'https://www.example.com/',
    }),
  },
  {
    type: 'page_feedback',
    how: 'ingested',
    place: 'space and site',
    fields: (at) => ({
      siteId: at.site,
      spaceId: at.space,
      pageId: 'getting-started',
      feedback: { rating: 'good', comment: 'Sent with portico emit' },
      visitor: visitor(at),
      url: pageUrl(at.site),
      referrer: 'https://www.example.com/',
    }),
  },
  { type: 'installation_setup', how: 'setup', level: 'organization' },
  { type: 'space_installation_setup', how: 'setup', level: 'space' },
  { type: 'site_installation_setup', how: 'setup', level: 'site' },
  { type: 'ui_render', how: 'render' },
];

/** The event kind named `type`, or a usage error listing them all. */
export function eventKind(type: string): EventKind {
  const kind = EVENT_KINDS.find((k) => k.type === type);
  if (kind) return kind;
  const types = EVENT_KINDS.map((k) => k.type);
  throw usage(`"${type}" is not an event type${didYouMean(type, types)}; the types are ${types.join(', ')}`);
}

/** `--data JSON`: an object, or a usage error saying what is wrong with it. */
export function parseData(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usage(`--data is not JSON (${(error as Error).message}); quote it for the shell, e.g. --data '{"a":1}'`);
  }
  if (!isObject(value)) throw usage('--data must be a JSON object, e.g. --data \'{"revisionId":"r1"}\'');
  return value;
}

/** `over` merged into `base`: objects key by key, everything else replaced. */
export function mergeDeep(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const before = merged[key];
    merged[key] = isObject(before) && isObject(value) ? mergeDeep(before, value) : value;
  }
  return merged;
}

/**
 * Applies `--field key=value` settings in order: dotted keys reach nested fields
 * (`visitor.ip=198.51.100.1`). A field whose current value is a string stays a string; any other
 * value is read as JSON when it is JSON (`props.count=2`, `visitor.cookies={"a":"b"}`), else as a
 * string.
 */
export function applyFields(
  target: Record<string, unknown>,
  settings: readonly string[],
  /** Dotted paths whose values are always strings. */
  strings: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const result = structuredClone(target);
  for (const setting of settings) {
    const { path, raw } = splitSetting(setting, '--field');
    let at: Record<string, unknown> = result;
    path.forEach((key, index) => {
      if (index === path.length - 1) {
        at[key] = typeof at[key] === 'string' || strings.has(path.join('.')) ? raw : jsonOrString(raw);
        return;
      }
      const next = at[key];
      if (next === undefined) at[key] = {};
      else if (!isObject(next)) {
        throw usage(
          `--field ${setting}: ${path.slice(0, index + 1).join('.')} is ${JSON.stringify(next)}, not an object with fields`,
        );
      }
      at = at[key] as Record<string, unknown>;
    });
  }
  return result;
}

/** `key=value` → its dotted path and raw value, or a usage error naming `flag`. */
export function splitSetting(setting: string, flag: string): { path: string[]; raw: string } {
  const equals = setting.indexOf('=');
  if (equals <= 0) throw usage(`${flag} "${setting}" is not key=value, e.g. ${flag} revisionId=r2`);
  const path = setting.slice(0, equals).split('.');
  if (path.some((key) => key === '' || key === '__proto__' || key === 'constructor' || key === 'prototype')) {
    throw usage(`${flag} "${setting}": "${setting.slice(0, equals)}" is not a field name (dotted keys like a.b)`);
  }
  return { path, raw: setting.slice(equals + 1) };
}

/** The value as JSON when it is JSON, else the string itself. */
export function jsonOrString(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
