/**
 * `verify`: one check for both ways a Portico delivery is signed. Given the `X-Platform-Signature`
 * value (a string), it checks that; given the request's headers, it accepts a delivery whose
 * `X-Platform-Signature` or whose Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) verify with the secret.
 */
import type { RawBody } from './bytes.js';
import { SIGNATURE_HEADER, type VerifyOptions, verifySignatureHeader } from './signature.js';
import {
  verifyStandard,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './standard-webhooks.js';

/** A request's headers: web `Headers`, or a record such as Node's `IncomingHttpHeaders`. */
export type SignedHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The value of header `name` (any case); repeated values joined with `separator`. */
export function headerValue(headers: SignedHeaders, name: string, separator = ', '): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(separator);
  }
  return undefined;
}

/** True when `headers` carry either signature scheme's headers (not whether they verify). */
export function hasSignatureHeaders(headers: SignedHeaders): boolean {
  return (
    headerValue(headers, SIGNATURE_HEADER) !== undefined || headerValue(headers, WEBHOOK_SIGNATURE_HEADER) !== undefined
  );
}

/**
 * True when the delivery is signed with `secret` (or any of several, during a rotation) within
 * the tolerance: `header` is either the `X-Platform-Signature` value, or the request's headers,
 * of which `X-Platform-Signature` or the Standard Webhooks set must verify. Check the exact raw
 * body before parsing it. Every failure, including an exception, answers false.
 */
export async function verify(
  secret: string | readonly string[],
  rawBody: RawBody,
  header: string | SignedHeaders | null | undefined,
  options: VerifyOptions = {},
): Promise<boolean> {
  if (header === null || header === undefined || typeof header === 'string') {
    return verifySignatureHeader(secret, rawBody, header, options);
  }
  try {
    const platform = headerValue(header, SIGNATURE_HEADER, ',');
    if (platform !== undefined && (await verifySignatureHeader(secret, rawBody, platform, options))) return true;
    const signature = headerValue(header, WEBHOOK_SIGNATURE_HEADER, ' ');
    if (signature === undefined) return false;
    return await verifyStandard(
      secret,
      rawBody,
      {
        id: headerValue(header, WEBHOOK_ID_HEADER),
        timestamp: headerValue(header, WEBHOOK_TIMESTAMP_HEADER),
        signature,
      },
      options,
    );
  } catch {
    return false;
  }
}
