import type { Manifest } from './manifest-schema.js';
import { referencedVariable } from './secret-reference.js';

export interface SecretReference {
  /** The secret's name in the manifest, as the integration sees it in `environment.secrets`. */
  name: string;
  /** The environment variable that supplies it. */
  variable: string;
}

export type SecretResolution =
  | { ok: true; secrets: Record<string, string> }
  | { ok: false; missing: SecretReference[]; message: string };

/** The secrets a manifest declares and the environment variable each one reads. */
export function secretReferences(manifest: Pick<Manifest, 'secrets'>): SecretReference[] {
  return Object.entries(manifest.secrets ?? {}).flatMap(([name, value]) => {
    const variable = referencedVariable(value);
    return variable === undefined ? [] : [{ name, variable }];
  });
}

/**
 * Resolves a manifest's secrets against an environment (e.g. `process.env`, or the values a
 * publisher supplied). Only the variables the manifest references are read; an unset or
 * empty variable is missing, and every missing one is named in the message.
 */
export function resolveSecrets(
  manifest: Pick<Manifest, 'secrets'>,
  env: Readonly<Record<string, string | undefined>>,
): SecretResolution {
  const secrets: Record<string, string> = {};
  const missing: SecretReference[] = [];
  for (const reference of secretReferences(manifest)) {
    const value = Object.hasOwn(env, reference.variable) ? env[reference.variable] : undefined;
    if (value === undefined || value === '') missing.push(reference);
    else secrets[reference.name] = value;
  }
  if (missing.length === 0) return { ok: true, secrets };
  const list = missing.map((m) => `${m.variable} (for secret ${m.name})`).join(', ');
  const noun = missing.length === 1 ? 'variable is' : 'variables are';
  return {
    ok: false,
    missing,
    message: `the environment ${noun} not set: ${list}; set ${missing.length === 1 ? 'it' : 'them'} before publishing`,
  };
}
