/**
 * The signature headers of one attempt, made afresh with the installation's valid secrets (newest
 * first): `X-Platform-Signature` (keyed with the UTF-8 bytes of each secret as shown) and the
 * Standard Webhooks set (keyed with the bytes each secret encodes), decision 032.
 */
import { createHash } from 'node:crypto';
import { sign, signStandard } from '@portico/webhooks';
import { shownSecret } from './signing-secrets.js';

/** The names no installation's own headers may set: these, and every `webhook-*` name. */
export const SIGNATURE_HEADER_NAMES = ['x-platform-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

/**
 * The Standard Webhooks message id (`webhook-id`) of a delivery: the same for every attempt and every
 * redelivery of one event to one installation, on every node, so a receiver that did the work but
 * answered too late sees the replay as the same message (DESIGN.md "Redelivery and ids").
 */
export function webhookIdOf(delivery: { installation_id: string; event_id: string }): string {
  const hash = createHash('sha256').update(delivery.installation_id).update('\n').update(delivery.event_id);
  return `msg_${hash.digest('hex').slice(0, 32)}`;
}

export async function signatureHeaders(
  secrets: readonly string[],
  message: { webhookId: string; body: string; timestamp: number },
): Promise<Record<string, string>> {
  const { webhookId: deliveryId, body, timestamp } = message;
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
