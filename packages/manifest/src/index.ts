export { configurationSchema, JSON_SCHEMA_DRAFT, type JsonSchema } from './configuration-schema.js';
export { closest, didYouMean } from './did-you-mean.js';
export {
  GITBOOK_MANIFEST_FILE,
  GITBOOK_TARGETS,
  type GitBookBlock,
  type GitBookDialect,
  type GitBookTarget,
  type TranslateOptions,
  translateGitBookManifest,
} from './gitbook-manifest.js';
export { type Dialect, type LoadedManifest, type LoadOptions, loadManifest } from './load-manifest.js';
export { manifestJsonSchema } from './manifest-json-schema.js';
export type {
  Block,
  ConfigurationBlock,
  ExternalLink,
  Manifest,
  PropertyDefinition,
} from './manifest-schema.js';
export { type GitBookManifestResult, parseGitBookManifest } from './parse-gitbook-manifest.js';
export { type ManifestResult, type ParseOptions, parseManifest } from './parse-manifest.js';
export { byPosition, formatPath, formatProblem, type ManifestError } from './problem.js';
export { resolveSecrets, type SecretReference, type SecretResolution, secretReferences } from './secrets.js';
export * from './vocabulary.js';
