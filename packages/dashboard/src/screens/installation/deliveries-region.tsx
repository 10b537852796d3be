import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  Button,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  TextField,
} from 'react-aria-components';
import { api, call } from '../../api/client';
import { type Delivery, type DeliveryFilter, useDeliveries, useEventDeliveries } from '../../api/queries';
import { countOf } from '../../components/count-of';
import { ErrorNote } from '../../components/error-note';
import { eventName } from '../../components/event-name';
import { Loading } from '../../components/loading';
import { ScrollTable } from '../../components/scroll-table';
import { StatusText } from '../../components/status-text';
import { TimeText } from '../../components/time-text';
import { MemberNote, useManagePermission } from './manage-permission';
import { RecoverPanel } from './recover-panel';

const STATUSES = [
  { id: 'any', label: 'Any status' },
  // Not the bare status words: those name the installation's status on the same page.
  { id: 'pending', label: 'Pending only' },
  { id: 'delivered', label: 'Delivered only' },
  { id: 'failed', label: 'Failed only' },
];

/** The webhook deliveries: filters, each delivery with every attempt, Redeliver, and Recover failed since…. */
export function DeliveriesRegion({ installationId, live }: { installationId: string; live: boolean }) {
  const [filter, setFilter] = useState<DeliveryFilter>({});
  const deliveries = useDeliveries(installationId, filter, live);
  const rows = deliveries.data?.pages.flatMap((page) => page.deliveries);
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <MemberNote can="redeliver" />
      <div className="filters">
        <Select
          selectedKey={filter.status ?? 'any'}
          onSelectionChange={(key) =>
            setFilter((before) => ({
              ...before,
              status: key === 'any' || key === null ? undefined : (key as DeliveryFilter['status']),
            }))
          }
        >
          <Label>Status</Label>
          <Button className="select-button">
            <SelectValue />
            <span aria-hidden="true">▾</span>
          </Button>
          <Popover className="popover">
            <ListBox className="listbox" items={STATUSES}>
              {(item) => (
                <ListBoxItem id={item.id} className="listbox-item">
                  {item.label}
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </Select>
        <TextField
          value={filter.eventId ?? ''}
          onChange={(eventId) => setFilter((before) => ({ ...before, eventId: eventId.trim() || undefined }))}
        >
          <Label>Event ID</Label>
          <Input className="input" />
        </TextField>
      </div>
      {deliveries.isPending ? <Loading /> : null}
      {deliveries.error ? <ErrorNote error={deliveries.error} /> : null}
      {rows?.length === 0 ? (
        <p className="muted">No delivery{filter.status || filter.eventId ? ' matches' : ' yet'}.</p>
      ) : null}
      {rows?.length ? (
        <ScrollTable label="Delivery list">
          <table className="cards">
            <thead>
              <tr>
                <th>Created</th>
                <th>Event</th>
                <th>Status</th>
                <th>Attempts</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((delivery) => (
                <DeliveryRow key={delivery.id} delivery={delivery} installationId={installationId} />
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
      {deliveries.hasNextPage ? (
        <Button className="button" onPress={() => deliveries.fetchNextPage()} isPending={deliveries.isFetchingNextPage}>
          Older deliveries
        </Button>
      ) : null}
      <RecoverPanel installationId={installationId} />
    </section>
  );
}

/**
 * A redelivery's note: it names the delivery it repeats in words (its time and result), as a link
 * that opens the list of the event's earlier deliveries and moves to that one.
 */
function EarlierDeliveries({ installationId, delivery }: { installationId: string; delivery: Delivery }) {
  const [open, setOpen] = useState(false);
  const [jumpTo, setJumpTo] = useState<string>();
  // Read at once: the note names the earlier delivery, so it needs its time and result.
  const all = useEventDeliveries(installationId, delivery.eventId, true);
  const earlier = (all.data ?? []).filter(
    (d) => d.id !== delivery.id && d.url === delivery.url && d.createdAt <= delivery.createdAt,
  );
  const repeated = earlier.find((d) => d.id === delivery.redeliveryOf);
  const itemId = (id: string) => `delivery-${delivery.id}-earlier-${id}`;
  useEffect(() => {
    if (!open || !jumpTo) return;
    const item = document.getElementById(itemId(jumpTo));
    if (!item) return;
    item.scrollIntoView({ block: 'nearest' });
    item.focus({ preventScroll: true });
    setJumpTo(undefined);
  });
  return (
    <div className="muted">
      {repeated ? (
        <>
          Redelivery of{' '}
          <a
            href={`#${itemId(repeated.id)}`}
            onClick={(event) => {
              event.preventDefault();
              setOpen(true);
              setJumpTo(repeated.id);
            }}
          >
            the delivery made <TimeText at={repeated.createdAt} /> ({repeated.status})
          </a>
        </>
      ) : (
        'Redelivery of an earlier delivery'
      )}
      <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>Earlier deliveries of this event</summary>
        {all.isPending ? <Loading /> : null}
        {all.error ? <ErrorNote error={all.error} /> : null}
        <ul className="plain-list earlier-deliveries" aria-label="Earlier deliveries">
          {earlier.map((d) => (
            <li key={d.id} id={itemId(d.id)} tabIndex={-1}>
              <TimeText at={d.createdAt} /> <StatusText status={d.status} /> {countOf(d.attempts.length, 'attempt')}
              {d.lastError ? ` · ${d.lastError}` : ''}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

function DeliveryRow({ delivery, installationId }: { delivery: Delivery; installationId: string }) {
  const permission = useManagePermission();
  const client = useQueryClient();
  const redeliver = useMutation({
    mutationFn: () => call(api.POST('/v1/deliveries/{id}/redeliver', { params: { path: { id: delivery.id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['deliveries', installationId] }),
  });
  return (
    <tr className="log-row" id={`delivery-${delivery.id}`} data-status={delivery.status} data-delivery={delivery.id}>
      <td data-label="Created">
        <TimeText at={delivery.createdAt} />
      </td>
      <td data-label="Event">
        <span id={`delivery-${delivery.id}-type`}>
          {delivery.type === 'webhook_test' ? <span className="tag">Test event</span> : eventName(delivery.type)}
        </span>
        <div className="muted" id={`delivery-${delivery.id}-event`}>
          {delivery.eventId}
        </div>
        <div className="muted wrap-anywhere">{delivery.url}</div>
        {delivery.redeliveryOf ? <EarlierDeliveries installationId={installationId} delivery={delivery} /> : null}
      </td>
      <td data-label="Status">
        <StatusText status={delivery.status} />
        {delivery.nextAttemptAt ? (
          <div className="muted">
            next try <TimeText at={delivery.nextAttemptAt} />
          </div>
        ) : null}
        {delivery.lastError ? <div className="field-error">{delivery.lastError}</div> : null}
      </td>
      <td data-label="Attempts">
        <details>
          <summary className="nowrap">{countOf(delivery.attempts.length, 'attempt')}</summary>
          <table>
            <thead>
              <tr>
                <th>#</th>
                <th>Time</th>
                <th>Status</th>
                <th>Latency</th>
                <th>Error or response</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((attempt) => (
                <tr key={attempt.number}>
                  <td>{attempt.number}</td>
                  <td>
                    <TimeText at={attempt.at} />
                  </td>
                  <td>{attempt.status ?? '—'}</td>
                  <td>{attempt.durationMs} ms</td>
                  <td>
                    {attempt.error ? <div className="field-error">{attempt.error}</div> : null}
                    {attempt.response ? (
                      <div>
                        <span className="muted">Response: </span>
                        <code>{attempt.response.slice(0, 200)}</code>
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </td>
      <td>
        <Button
          className="button"
          onPress={() => redeliver.mutate()}
          isPending={redeliver.isPending}
          isDisabled={!permission.allowed}
          // Every row has one, named Redeliver (the dashboard's contract); its description says
          // which event it sends again.
          aria-describedby={`delivery-${delivery.id}-type delivery-${delivery.id}-event`}
        >
          Redeliver
        </Button>
        {redeliver.isSuccess ? (
          <span role="status" className="muted">
            {' '}
            Sent again
          </span>
        ) : null}
        {redeliver.error ? <ErrorNote error={redeliver.error} /> : null}
      </td>
    </tr>
  );
}
