/** Validating installation configuration against the integration's configuration schema. */
import { type ConfigurationLevel, configurationSchema, didYouMean, type Manifest } from '@portico/manifest';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export type Configuration = Record<string, unknown>;
export interface ConfigurationError {
  path: string;
  message: string;
}

// strictNumbers: a number too large for a double (`1.5e400` parses as Infinity) is not a number.
const ajv = new Ajv2020({ allErrors: true, strict: false, strictNumbers: true });
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
  return problems(manifest, level, configuration, undeclared).map(({ path, message }) => ({ path, message }));
}

/**
 * The values `patch` sets that are wrong whatever else is stored: the wrong type, not one of the
 * options, a number too large to store. What is missing is not wrong here: an installation waits
 * (pending) until it is set.
 */
export function invalidValues(
  manifest: Manifest,
  level: ConfigurationLevel,
  patch: Configuration,
): ConfigurationError[] {
  const set = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== null));
  return problems(manifest, level, set)
    .filter((problem) => problem.keyword !== 'required' && problem.keyword !== 'additionalProperties')
    .map(({ path, message }) => ({ path, message }));
}

/**
 * `patch` with every string property that holds only whitespace set to null: a required string of
 * spaces is missing, not set.
 */
export function withoutBlankStrings(
  manifest: Manifest,
  level: ConfigurationLevel,
  patch: Configuration,
): Configuration {
  const properties = manifest.configurations?.[level]?.properties ?? {};
  return Object.fromEntries(
    Object.entries(patch).map(([name, value]) => [
      name,
      properties[name]?.type === 'string' && typeof value === 'string' && value.trim() === '' ? null : value,
    ]),
  );
}

function problems(
  manifest: Manifest,
  level: ConfigurationLevel,
  configuration: Configuration,
  undeclared: Undeclared = 'refused',
): (ConfigurationError & { keyword: string })[] {
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
    const keyword = error.keyword;
    switch (keyword) {
      case 'required':
        return {
          keyword,
          path: String(error.params.missingProperty),
          message: `\`${error.params.missingProperty}\` is required`,
        };
      case 'additionalProperties':
        return {
          keyword,
          path: String(error.params.additionalProperty),
          message: `\`${error.params.additionalProperty}\` is not a property of this integration's ${level} configuration`,
        };
      case 'enum':
        return {
          keyword,
          path,
          message: `\`${path}\` must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`,
        };
      case 'type': {
        const value = error.instancePath === '' ? configuration : configuration[path];
        if (typeof value === 'number' && !Number.isFinite(value))
          return {
            keyword,
            path,
            message: `\`${path}\` is too large to store: enter a number between -1.7e308 and 1.7e308`,
          };
        return {
          keyword,
          path,
          message: `\`${path}\` must be ${typeNames[String(error.params.type)] ?? error.params.type}`,
        };
      }
      default:
        return { keyword, path, message: `\`${path}\` ${error.message ?? 'is not valid'}` };
    }
  });
}

const typeNames: Record<string, string> = {
  string: 'text (a string)',
  number: 'a number',
  boolean: 'true or false',
  object: 'connected (an object its sign-in flow stores)',
};

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
