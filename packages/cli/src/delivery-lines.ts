/**
 * Webhook deliveries as the terminal shows them: one line per change (`portico tail`, `portico
 * emit --wait`, `portico redeliver --wait`) and a table (`portico deliveries`). The shape is an
 * item of GET /v1/installations/{id}/deliveries.
 */
import type { DeliveryView } from '@portico/platform';
import { clock } from './dispatch-lines.js';

/** A delivery as the API answers it (the platform's own type: a type import loads nothing). */
export type Delivery = DeliveryView;
type DeliveryAttempt = DeliveryView['attempts'][number];

/** What an attempt got: `200 in 3 ms`, or `connect ECONNREFUSED after 2 ms`. */
export function attemptOutcome(attempt: DeliveryAttempt): string {
  // With a status, the error only says the receiver answered it.
  if (attempt.status !== null) return `${attempt.status} in ${attempt.durationMs} ms`;
  return `${attempt.error ?? 'no answer'} after ${attempt.durationMs} ms`;
}

/** Where the delivery stands, in words. */
export function deliveryState(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  const count = delivery.attempts.length;
  if (delivery.status === 'delivered') {
    return `delivered${last ? ` (attempt ${last.number}: ${attemptOutcome(last)})` : ''}`;
  }
  if (delivery.status === 'failed') {
    const reason = delivery.lastError ?? (last ? attemptOutcome(last) : 'no attempt');
    return /\battempts?\b/.test(reason)
      ? `failed: ${reason}`
      : `failed (${count} attempt${count === 1 ? '' : 's'}): ${reason}`;
  }
  if (last === undefined) return 'queued';
  const next = delivery.nextAttemptAt ? `; next attempt at ${clock(new Date(delivery.nextAttemptAt))}` : '';
  return `attempt ${last.number}: ${attemptOutcome(last)}${next}`;
}

/** One line for a change of a delivery: `10:42:09 delivery dlv_… site_view → URL: delivered (…)`. */
export function formatDeliveryChange(delivery: Delivery, label?: string): string {
  const at = delivery.attempts.at(-1)?.at ?? delivery.createdAt;
  const again = delivery.redeliveryOf ? `, again for ${delivery.redeliveryOf}` : '';
  const where = label ? ` for ${label}` : '';
  return `${clock(new Date(at))} delivery ${delivery.id} (${delivery.type} ${delivery.eventId}${again})${where} → ${delivery.url}: ${deliveryState(delivery)}\n`;
}

/** A version of the delivery: it changed when this did. */
export function deliveryVersion(delivery: Delivery): string {
  return `${delivery.status} ${delivery.attempts.length}`;
}

/** The deliveries as an aligned table, newest first as given; with their installations when asked. */
export function deliveryTable(
  deliveries: readonly (Delivery & { installationId?: string })[],
  options: { installation?: boolean } = {},
): string {
  const rows = deliveries.map((d) => {
    const last = d.attempts.at(-1);
    return [
      d.id,
      ...(options.installation ? [d.installationId ?? '-'] : []),
      d.status,
      d.type,
      d.eventId,
      String(d.attempts.length),
      last ? attemptOutcome(last) : '-',
      d.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      d.url,
    ];
  });
  const header = ['DELIVERY', ...(options.installation ? ['INSTALLATION'] : [])];
  return table([...header, 'STATUS', 'TYPE', 'EVENT', 'ATTEMPTS', 'LAST ATTEMPT', 'CREATED', 'URL'], rows);
}

/** Columns padded to their widest cell; the last one is not padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}
