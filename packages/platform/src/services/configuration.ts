/** Validating installation configuration against the integration's configuration schema. */
import { type ConfigurationLevel, configurationSchema, didYouMean, type Manifest } from '@portico/manifest';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export type Configuration = Record<string, unknown>;
export interface ConfigurationError {
  path: string;
  message: string;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
/** Compiled validators, per manifest object (manifests of published versions are cached and never change). */
const validators = new WeakMap<Manifest, Partial<Record<ConfigurationLevel, ValidateFunction>>>();

/** The schema level of a target: `account` for organization installations, `site` for spaces and sites. */
export function levelOf(target: 'organization' | 'space' | 'site'): ConfigurationLevel {
  return target === 'organization' ? 'account' : 'site';
}

/**
 * How a configuration's properties that the manifest does not declare count: `refused` (Portico's
 * integrations) or `allowed` (GitBook-dialect ones, which store their own data there through the
 * API, such as OAuth credentials; decision 030).
 */
export type Undeclared = 'refused' | 'allowed';

/** Validation problems of `configuration`, with dotted paths and messages a person can act on. */
export function validateConfiguration(
  manifest: Manifest,
  level: ConfigurationLevel,
  configuration: Configuration,
  undeclared: Undeclared = 'refused',
): ConfigurationError[] {
  let compiled = validators.get(manifest);
  if (compiled === undefined) {
    compiled = {};
    validators.set(manifest, compiled);
  }
  let validate = compiled[level];
  if (validate === undefined) {
    validate = ajv.compile(configurationSchema(manifest, level));
    compiled[level] = validate;
  }
  if (validate(configuration)) return [];
  const errors = (validate.errors ?? []).filter(
    (error) => undeclared === 'refused' || error.keyword !== 'additionalProperties',
  );
  return errors.map((error) => {
    const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
    switch (error.keyword) {
      case 'required':
        return {
          path: String(error.params.missingProperty),
          message: `\`${error.params.missingProperty}\` is required`,
        };
      case 'additionalProperties':
        return {
          path: String(error.params.additionalProperty),
          message: `\`${error.params.additionalProperty}\` is not a property of this integration's ${level} configuration`,
        };
      case 'enum':
        return { path, message: `\`${path}\` must be one of ${(error.params.allowedValues as unknown[]).join(', ')}` };
      default:
        return { path, message: `\`${path}\` ${error.message ?? 'is not valid'}` };
    }
  });
}

/** The configuration a new installation starts with: the `default` of every property that has one. */
export function defaultConfiguration(manifest: Manifest, level: ConfigurationLevel): Configuration {
  const properties = manifest.configurations?.[level]?.properties ?? {};
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, property]) =>
      'default' in property && property.default !== undefined ? [[name, property.default]] : [],
    ),
  );
}

/** A merge patch at the top level: a property set to null is removed, others replace. */
export function mergeConfiguration(current: Configuration, patch: Configuration): Configuration {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/**
 * The properties of `patch` the manifest does not declare at `level`, each with its message
 * (and a "did you mean" when a declared one is close). Setting one to null is allowed: it removes
 * what an older version may have stored.
 */
export function undeclaredProperties(
  manifest: Manifest,
  level: ConfigurationLevel,
  patch: Configuration,
): ConfigurationError[] {
  const declared = Object.keys(manifest.configurations?.[level]?.properties ?? {});
  return Object.entries(patch)
    .filter(([name, value]) => value !== null && !declared.includes(name))
    .map(([name]) => ({
      path: name,
      message:
        declared.length === 0
          ? `\`${name}\` is not a property: this integration's ${level} configuration declares none`
          : `\`${name}\` is not a property of this integration's ${level} configuration${didYouMean(name, declared)}; it declares ${declared.map((d) => `\`${d}\``).join(', ')}`,
    }));
}
