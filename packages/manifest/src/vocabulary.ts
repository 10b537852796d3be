/**
 * The closed vocabularies of the manifest (spec 2.1, 2.2, 5.3), shared by the schema,
 * the cross-field rules and the platform.
 */

export const VISIBILITIES = ['private', 'unlisted', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const CATEGORIES = [
  'analytics',
  'collaboration',
  'content',
  'marketing',
  'authenticated-access',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

export const SCOPES = [
  'space:content:read',
  'space:content:write',
  'space:metadata:read',
  'space:metadata:write',
  'space:git:sync',
  'site:metadata:read',
  'site:views:read',
  'site:script:inject',
  'site:script:cookies',
  'site:visitor:auth',
  'site:visitor:claims',
  'site:adaptive:read',
  'site:adaptive:write',
  'openapi:read',
  'openapi:write',
  'conversations:ingest',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes only the platform's own (operator-marked internal) publishers may request. */
export const INTERNAL_SCOPES: readonly Scope[] = ['site:script:inject', 'site:script:cookies'];

export const PROPERTY_TYPES = ['string', 'number', 'boolean', 'button'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export const CONFIGURATION_LEVELS = ['account', 'site'] as const;
export type ConfigurationLevel = (typeof CONFIGURATION_LEVELS)[number];

/** Lowercase words of letters and digits joined by single hyphens, starting with a letter. */
export const NAME_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

export function isValidIntegrationName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

/** Manifests larger than this are refused before they are parsed (a rich manifest is under 20 KiB). */
export const MAX_MANIFEST_BYTES = 256 * 1024;

/** Flow collections (`[`, `{`) nested deeper than this are refused before they are parsed. */
export const MAX_FLOW_DEPTH = 64;

/** `summary` is measured in Unicode characters (code points), not bytes or UTF-16 units. */
export const MAX_SUMMARY_CHARACTERS = 2048;

/** The recommended preview image size (spec 2.1, 8). */
export const PREVIEW_IMAGE_SIZE = { width: 1600, height: 800 } as const;

export const MANIFEST_FILE = 'platform-manifest.yaml';
