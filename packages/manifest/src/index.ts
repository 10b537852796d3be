export { configurationSchema, JSON_SCHEMA_DRAFT, type JsonSchema } from './configuration-schema.js';
export { closest, didYouMean } from './did-you-mean.js';
export { type LoadOptions, loadManifest } from './load-manifest.js';
export { manifestJsonSchema } from './manifest-json-schema.js';
export type {
  Block,
  ConfigurationBlock,
  ExternalLink,
  Manifest,
  PropertyDefinition,
} from './manifest-schema.js';
export { type ManifestResult, type ParseOptions, parseManifest } from './parse-manifest.js';
export { byPosition, formatPath, formatProblem, type ManifestError } from './problem.js';
export { resolveSecrets, type SecretReference, type SecretResolution, secretReferences } from './secrets.js';
export * from './vocabulary.js';
