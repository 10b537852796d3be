export { createSignInCode, SIGN_IN_CODE_TTL_MS } from './access/sessions.js';
export {
  ConfigError,
  checkAlertUrl,
  checkDeliveryPolicy,
  configFromEnv,
  type PlatformConfig,
  parseFrameAncestors,
  parseTuningValue,
  resolveTuning,
  TUNING_DEFAULTS,
  TUNING_SETTINGS,
  type Tuning,
} from './config.js';
export type { DeliveryView } from './delivery/deliveries.js';
export type { EndpointView } from './delivery/endpoints.js';
export { postWebhook } from './delivery/post-webhook.js';
export type { DispatchView } from './dispatch/dispatch-log.js';
export { DomainError, type ErrorKind } from './errors/domain-error.js';
export { type LiveEvent, LiveFeed, type LiveType } from './events/live-feed.js';
export { createEgress, isInternalAddress } from './hosts/egress.js';
export { type Host, HostError, type HostRequest, type HostResponse, type IntegrationBundle } from './hosts/host.js';
export { InProcessHost } from './hosts/in-process-host.js';
export { RemoteHost } from './hosts/remote-host.js';
export { WorkerdHost } from './hosts/workerd-host.js';
export { apiDocumentConfig, createApp } from './http/app.js';
export type { ScopeRequest, ScopesView } from './installations/granted-scopes.js';
export { currentToken } from './installations/tokens.js';
export { type RunningPlatform, type StartOptions, startPlatform, VERSION } from './server.js';
export { openDatabase } from './storage/database.js';
export { migrate } from './storage/migrate.js';
export type { Principal, ServiceContext } from './types.js';
