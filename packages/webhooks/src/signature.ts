/**
 * `X-Platform-Signature` (spec 5.2): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
 * keyed with the UTF-8 bytes of the shared secret, so Stripe-style verifiers work as they are.
 * During a secret rotation the header carries one `v1=` per valid secret.
 */
// `#hmac` is node:crypto in Node and WebCrypto elsewhere (package.json "imports").
import { hmacSha256, hmacSha256Matches } from '#hmac';
import { asPart, fromHex, type RawBody, toHex } from './bytes.js';

export const SIGNATURE_HEADER = 'X-Platform-Signature';
export const SIGNATURE_SCHEME = 'v1';
/** Receivers accept timestamps this far from their clock, in both directions (DESIGN.md). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifyOptions {
  /** How far `t` may be from `now`, in seconds, either way (default 300). */
  toleranceSeconds?: number;
  /** The current time in Unix seconds (default: the clock). */
  now?: number;
}

export interface ParsedSignature {
  timestamp: number;
  signatures: Uint8Array<ArrayBuffer>[];
}

/** `<t>.<raw body>`, as the parts the HMAC hashes one after the other. */
function signedPayload(timestamp: number, body: RawBody): (string | Uint8Array)[] {
  return [`${timestamp}.`, asPart(body)];
}

/**
 * The `X-Platform-Signature` value for `rawBody` at `timestamp` (Unix seconds, default now):
 * one `v1=` per secret, in the order given (the newest secret first during a rotation).
 */
export async function sign(secret: string | readonly string[], rawBody: RawBody, timestamp?: number): Promise<string> {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('sign: give at least one secret');
  if (secrets.some((s) => typeof s !== 'string' || s === ''))
    throw new TypeError('sign: secrets must be non-empty strings');
  const t = timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(t) || t < 0)
    throw new TypeError(`sign: the timestamp must be whole Unix seconds, got ${t}`);
  const payload = signedPayload(t, rawBody);
  const parts = [`t=${t}`];
  for (const s of secrets) {
    parts.push(`${SIGNATURE_SCHEME}=${toHex(await hmacSha256(s, payload))}`);
  }
  return parts.join(',');
}

/** Reads `t=…,v1=…[,v1=…]`; undefined when `t` or every `v1` is missing or malformed. Other schemes are ignored. */
export function parseSignatureHeader(header: string | null | undefined): ParsedSignature | undefined {
  if (typeof header !== 'string' || header.length > 8192) return undefined;
  let timestamp: number | undefined;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (key === SIGNATURE_SCHEME) {
      const bytes = value.length === 64 ? fromHex(value) : undefined;
      if (bytes !== undefined) signatures.push(bytes);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

/**
 * True when the `X-Platform-Signature` value `header` carries a `v1` signature of `rawBody` made
 * with `secret` (or any of several secrets) at a time within the tolerance. It checks the exact
 * bytes given: verify the raw body before parsing it. Every failure, including an exception,
 * answers false. Signatures are compared in constant time. (`verify` accepts either header set.)
 */
export async function verifySignatureHeader(
  secret: string | readonly string[],
  rawBody: RawBody,
  header: string | null | undefined,
  options: VerifyOptions = {},
): Promise<boolean> {
  try {
    const parsed = parseSignatureHeader(header);
    if (parsed === undefined) return false;
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const now = options.now ?? Math.floor(Date.now() / 1000);
    if (!(Math.abs(now - parsed.timestamp) <= tolerance)) return false;
    const payload = signedPayload(parsed.timestamp, rawBody);
    const secrets = typeof secret === 'string' ? [secret] : secret;
    for (const s of secrets) {
      if (typeof s !== 'string' || s === '') continue;
      for (const signature of parsed.signatures) {
        if (await hmacSha256Matches(s, payload, signature)) return true;
      }
    }
    return false;
  } catch {
    return false;
  }
}
