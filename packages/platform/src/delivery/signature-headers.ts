/**
 * The signature headers of one attempt, made afresh with the installation's valid secrets (newest
 * first): `X-Platform-Signature` (keyed with the UTF-8 bytes of each secret as shown) and the
 * Standard Webhooks set (keyed with the bytes each secret encodes), decision 032.
 */
import { sign, signStandard } from '@portico/webhooks';
import { shownSecret } from './signing-secrets.js';

/** The names no installation's own headers may set: these, and every `webhook-*` name. */
export const SIGNATURE_HEADER_NAMES = ['x-platform-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

export async function signatureHeaders(
  secrets: readonly string[],
  message: { deliveryId: string; body: string; timestamp: number },
): Promise<Record<string, string>> {
  const { deliveryId, body, timestamp } = message;
  // A secret made before decision 032 is shown in another spelling: both spellings sign, so a
  // receiver set up with either verifies (until the secret is rotated away).
  const platformKeys = secrets.flatMap((secret) => {
    const shown = shownSecret(secret);
    return shown === secret ? [secret] : [shown, secret];
  });
  return {
    'x-platform-signature': await sign(platformKeys, body, timestamp),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': await signStandard(secrets, { id: deliveryId, timestamp, body }),
  };
}
