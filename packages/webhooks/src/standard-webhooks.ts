/**
 * Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, space-separated,
 * one per valid secret during a rotation. The HMAC is keyed with the bytes the secret encodes:
 * its base64 text after the `whsec_` prefix, decoded (the UTF-8 bytes of the whole string key
 * `X-Platform-Signature` instead; decision 032).
 */
import { hmacSha256, hmacSha256Matches } from '#hmac';
import { asPart, fromBase64, type RawBody, toBase64 } from './bytes.js';
import { DEFAULT_TOLERANCE_SECONDS, type VerifyOptions } from './signature.js';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const STANDARD_SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a Standard Webhooks secret: the bytes its base64 text (after an optional
 * `whsec_`) decodes to, in either base64 alphabet; undefined when it is not base64 or is empty.
 */
export function standardSecretKey(secret: string): Uint8Array<ArrayBuffer> | undefined {
  if (typeof secret !== 'string') return undefined;
  const text = secret.startsWith(STANDARD_SECRET_PREFIX) ? secret.slice(STANDARD_SECRET_PREFIX.length) : secret;
  const key = fromBase64(text);
  return key === undefined || key.length === 0 ? undefined : key;
}

/** The key of each secret most recently used, decoded once (every attempt signs with it). */
const keys = new Map<string, Uint8Array<ArrayBuffer> | undefined>();
const MAX_KEPT_KEYS = 256;

function keyOf(secret: string): Uint8Array<ArrayBuffer> | undefined {
  if (keys.has(secret)) return keys.get(secret);
  const key = standardSecretKey(secret);
  if (keys.size >= MAX_KEPT_KEYS) keys.delete(keys.keys().next().value as string);
  keys.set(secret, key);
  return key;
}

/** `<id>.<timestamp>.<raw body>`, as the parts the HMAC hashes one after the other. */
function signedContent(id: string, timestamp: number, body: RawBody): (string | Uint8Array)[] {
  return [`${id}.${timestamp}.`, asPart(body)];
}

/** A message id: 1 to 256 printable characters, no whitespace. */
function checkId(id: string): boolean {
  return typeof id === 'string' && /^[\x21-\x7e]{1,256}$/.test(id);
}

/**
 * The `webhook-signature` value for a message: `v1,<base64>` per secret, space-separated, in the
 * order given (the newest secret first during a rotation). Secrets that encode the same key sign once.
 */
export async function signStandard(
  secret: string | readonly string[],
  message: { id: string; timestamp: number; body: RawBody },
): Promise<string> {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('signStandard: give at least one secret');
  if (!checkId(message.id))
    throw new TypeError(
      `signStandard: the id must be 1 to 256 printable ASCII characters without spaces, got "${message.id}"`,
    );
  if (!Number.isSafeInteger(message.timestamp) || message.timestamp < 0)
    throw new TypeError(`signStandard: the timestamp must be whole Unix seconds, got ${message.timestamp}`);
  const content = signedContent(message.id, message.timestamp, message.body);
  const entries: string[] = [];
  for (const s of secrets) {
    const key = typeof s === 'string' ? keyOf(s) : undefined;
    if (key === undefined)
      throw new TypeError('signStandard: a secret must be base64 key bytes, optionally after "whsec_"');
    const entry = `v1,${toBase64(await hmacSha256(key, content))}`;
    if (!entries.includes(entry)) entries.push(entry);
  }
  return entries.join(' ');
}

/** The `v1` signatures of a `webhook-signature` value (other versions are ignored). */
export function parseStandardSignature(value: string): Uint8Array<ArrayBuffer>[] {
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  if (typeof value !== 'string' || value.length > 8192) return signatures;
  for (const entry of value.trim().split(/\s+/)) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const text = entry.slice(comma + 1);
    const bytes = /^[A-Za-z0-9+/]{43}=$/.test(text) ? fromBase64(text) : undefined;
    if (bytes !== undefined) signatures.push(bytes);
  }
  return signatures;
}

/**
 * True when the Standard Webhooks headers carry a `v1` signature of `rawBody` made with `secret`
 * (or any of several) at a time within the tolerance (300 s either way by default). Every
 * failure, including an exception, answers false.
 */
export async function verifyStandard(
  secret: string | readonly string[],
  rawBody: RawBody,
  headers: {
    id: string | null | undefined;
    timestamp: string | null | undefined;
    signature: string | null | undefined;
  },
  options: VerifyOptions = {},
): Promise<boolean> {
  try {
    const { id, timestamp, signature } = headers;
    if (typeof id !== 'string' || !checkId(id)) return false;
    if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp) || typeof signature !== 'string') return false;
    const t = Number(timestamp);
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const now = options.now ?? Math.floor(Date.now() / 1000);
    if (!(Math.abs(now - t) <= tolerance)) return false;
    const signatures = parseStandardSignature(signature);
    if (signatures.length === 0) return false;
    const content = signedContent(id, t, rawBody);
    for (const s of typeof secret === 'string' ? [secret] : secret) {
      const key = typeof s === 'string' ? keyOf(s) : undefined;
      if (key === undefined) continue;
      for (const mac of signatures) if (await hmacSha256Matches(key, content, mac)) return true;
    }
    return false;
  } catch {
    return false;
  }
}
