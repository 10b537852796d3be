export {
  type ConfigurationUpdate,
  createPlatformApi,
  type InstallationInfo,
  type PlatformApi,
  PlatformApiError,
} from './api-client.js';
export {
  type ActionResult,
  type Component,
  type ComponentDefinition,
  type ComponentElement,
  createComponent,
  type Props,
  type State,
} from './component.js';
export * from './contentkit.js';
export * from './envelope.js';
export { EnvelopeError, ExposableError, errorResponse } from './errors.js';
export {
  createIntegration,
  type ExecutionContextLike,
  type Integration,
  type IntegrationDefinition,
  type IntegrationDescriptor,
} from './integration.js';
export {
  createOAuthHandler,
  defaultExtractCredentials,
  type OAuthConfig,
  type OAuthCredentials,
  OAuthError,
  type OAuthTokenResponse,
} from './oauth.js';
export {
  answerWithOutput,
  CAPTURED_METHODS,
  type Collector,
  createCollector,
  formatArgs,
  LOG_LIMITS,
  OUTPUT_FRAMED_HEADER,
  OUTPUT_REQUEST_HEADER,
  type OutputLine,
} from './output.js';
export type * from './types.js';
