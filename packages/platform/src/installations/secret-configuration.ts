/**
 * The secrets of a configuration, masked for members (the contract's Roles: members see the
 * configuration with its secrets masked). A secret is what a `button` property holds: the
 * credentials its OAuth flow stored (`{ access_token, … }`). Admins, the operator and the
 * installation's own token read them as they are.
 */
import type { Manifest } from '@portico/manifest';
import type { Configuration } from './configuration.js';
import { levelOf } from './configuration.js';

/** What a member reads in place of a secret value. */
export const MASKED = '********';

/** Who reads a configuration: a member of its organization sees secrets masked. */
export type Reader = 'member' | 'manager';

/** `configuration` with the value of every secret property replaced by `MASKED` when `reader` is a member. */
export function configurationFor(
  reader: Reader,
  manifest: Pick<Manifest, 'configurations'>,
  target: 'organization' | 'space' | 'site',
  configuration: Configuration,
): Configuration {
  if (reader === 'manager') return configuration;
  const properties = manifest.configurations?.[levelOf(target)]?.properties ?? {};
  const masked: Configuration = { ...configuration };
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'button' && masked[name] !== undefined && masked[name] !== null) masked[name] = MASKED;
  }
  return masked;
}

/** A reader's kind from its role in the installation's organization (none: the operator or a token). */
export function readerOf(role: 'admin' | 'member' | null | undefined): Reader {
  return role === 'member' ? 'member' : 'manager';
}
