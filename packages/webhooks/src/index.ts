export {
  customHeaderProblems,
  MAX_CUSTOM_HEADER_BYTES,
  MAX_CUSTOM_HEADERS,
  parseHeaderLines,
} from './custom-headers.js';
export { type DedupeStore, MemoryDedupeStore } from './dedupe-store.js';
export {
  createWebhookReceiver,
  DEFAULT_DEDUPE_SECONDS,
  DEFAULT_MAX_BODY_BYTES,
  type ReceiverOptions,
  type WebhookEvent,
  type WebhookReceiver,
} from './receiver.js';
export {
  BASE_DELAY_MS,
  classifyOutcome,
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_DELIVERY_POLICY,
  DELIVERY_POLICIES,
  DELIVERY_POLICY_NAMES,
  type DeliveryPolicy,
  type DeliveryPolicyName,
  deliveryPolicy,
  deliveryPolicyProblem,
  EXTENDED_FIRST_DELAY_MS,
  EXTENDED_MAX_DELAY_MS,
  EXTENDED_MAX_RETRIES,
  isDeliveryPolicyName,
  JITTER_RATIO,
  MAX_ATTEMPTS,
  MAX_RETRIES,
  MAX_RETRY_AFTER_MS,
  nextRetry,
  type Outcome,
  policyRetryDelay,
  policySpanMs,
  retryAfterMs,
  retryDelay,
} from './retry-policy.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type ParsedSignature,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  SIGNATURE_SCHEME,
  sign,
  type VerifyOptions,
  verifySignatureHeader,
} from './signature.js';
export {
  parseStandardSignature,
  STANDARD_SECRET_PREFIX,
  signStandard,
  standardSecretKey,
  verifyStandard,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './standard-webhooks.js';
export { hasSignatureHeaders, headerValue, type SignedHeaders, verify } from './verify.js';
