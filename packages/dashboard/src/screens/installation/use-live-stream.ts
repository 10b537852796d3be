/**
 * The installation's live stream (GET /v1/installations/{id}/stream, server-sent events): each
 * `dispatch` goes to the top of the Events log (where its filter takes it), each `delivery` replaces its row (or joins the
 * log) in every cached delivery list, and its line in the Events log (an event fanned out to a
 * webhook subscription). Answers whether the stream is open; while it is not, the logs
 * ask again every few seconds. A delivery that ends also reads the installation again, for its
 * endpoints' health.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  type Delivery,
  type DeliveryFilter,
  type DeliveryPages,
  type Dispatch,
  type DispatchFilter,
  type DispatchPages,
  keys,
} from '../../api/queries';
import { SYSTEM_EVENTS } from '../../api/system-events';

export function useLiveStream(installationId: string): boolean {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const source = new EventSource(
      `/v1/installations/${encodeURIComponent(installationId)}/stream?types=dispatch,delivery`,
    );
    source.onopen = () => setOpen(true);
    source.onerror = () => setOpen(source.readyState === EventSource.OPEN);
    source.addEventListener('dispatch', (event) => {
      const dispatch = JSON.parse((event as MessageEvent<string>).data) as Dispatch;
      for (const [key, data] of client.getQueriesData<DispatchPages | boolean>({
        queryKey: ['dispatches', installationId],
      })) {
        if (data === undefined) continue;
        if (typeof data === 'boolean') {
          if (SYSTEM_EVENTS.has(dispatch.type)) client.setQueryData(key, true);
          continue;
        }
        if (!(key[2] as DispatchFilter).system && SYSTEM_EVENTS.has(dispatch.type)) continue;
        client.setQueryData(key, withDispatch(data, dispatch));
      }
    });
    source.addEventListener('delivery', (event) => {
      const delivery = JSON.parse((event as MessageEvent<string>).data) as Delivery;
      for (const [key, pages] of client.getQueriesData<DeliveryPages>({ queryKey: ['deliveries', installationId] })) {
        if (pages === undefined || !('pages' in pages)) continue;
        client.setQueryData(key, withDelivery(pages, delivery, (key[2] ?? {}) as DeliveryFilter));
      }
      void client.invalidateQueries({ queryKey: ['deliveries', installationId, 'event', delivery.eventId] });
      // An event fanned out to a webhook subscription shows in the Events log with its delivery:
      // its line follows the delivery; a new one is read with the log's first page.
      if (delivery.redeliveryOf === null) {
        let shown = false;
        for (const [key, data] of client.getQueriesData<DispatchPages | boolean>({
          queryKey: ['dispatches', installationId],
        })) {
          if (data === undefined || typeof data === 'boolean') continue;
          const next = withDeliveryLine(data, delivery);
          if (next !== data) {
            shown = true;
            client.setQueryData(key, next);
          }
        }
        if (!shown) void client.invalidateQueries({ queryKey: ['dispatches', installationId] });
      }
      // A delivery that ended may have changed its endpoint's health (failing, disabled, healthy again).
      if (delivery.status !== 'pending') void client.invalidateQueries({ queryKey: keys.installation(installationId) });
    });
    return () => {
      source.close();
      setOpen(false);
    };
  }, [installationId, client]);
  return open;
}

/**
 * The log with this delivery in its place: replaced where it is, new ones on top, gone where the
 * filter no longer takes it. The log holds the latest delivery of each event and URL: a new one
 * (a redelivery) takes the place of those before it.
 */
export function withDelivery(pages: DeliveryPages, delivery: Delivery, filter: DeliveryFilter): DeliveryPages {
  const fits =
    (!filter.status || filter.status === delivery.status) && (!filter.eventId || filter.eventId === delivery.eventId);
  const known = pages.pages.some((page) => page.deliveries.some((d) => d.id === delivery.id));
  const earlier = (d: Delivery) =>
    d.id !== delivery.id &&
    d.eventId === delivery.eventId &&
    d.url === delivery.url &&
    d.createdAt <= delivery.createdAt;
  return {
    ...pages,
    pages: pages.pages.map((page, index) => {
      const rest = page.deliveries.filter((d) => d.id !== delivery.id && !earlier(d));
      if (!fits) return { ...page, deliveries: rest };
      if (known)
        return {
          ...page,
          deliveries: page.deliveries.filter((d) => !earlier(d)).map((d) => (d.id === delivery.id ? delivery : d)),
        };
      if (index === 0) return { ...page, deliveries: [delivery, ...rest] };
      return { ...page, deliveries: rest };
    }),
  };
}

/** The Events log with this dispatch on top (once: a stream that resumes may send it again). */
export function withDispatch(pages: DispatchPages, dispatch: Dispatch): DispatchPages {
  if (pages.pages.some((page) => page.dispatches.some((d) => d.id === dispatch.id))) return pages;
  return {
    ...pages,
    pages: pages.pages.map((page, index) =>
      index === 0 ? { ...page, dispatches: [dispatch, ...page.dispatches] } : page,
    ),
  };
}

/** The Events log with the line of this delivery brought up to date (the same pages when it has none). */
export function withDeliveryLine(pages: DispatchPages, delivery: Delivery): DispatchPages {
  if (!pages.pages.some((page) => page.dispatches.some((d) => d.delivery?.id === delivery.id))) return pages;
  const last = delivery.attempts.at(-1);
  return {
    ...pages,
    pages: pages.pages.map((page) => ({
      ...page,
      dispatches: page.dispatches.map((d) =>
        d.delivery?.id === delivery.id
          ? {
              ...d,
              status: last?.status ?? 0,
              durationMs: last?.durationMs ?? 0,
              error: delivery.lastError,
              delivery: { ...d.delivery, status: delivery.status, attempts: delivery.attempts.length },
            }
          : d,
      ),
    })),
  };
}
