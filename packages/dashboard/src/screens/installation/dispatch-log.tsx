import { useState } from 'react';
import { Button, Checkbox } from 'react-aria-components';
import { type Dispatch, useAnySystemEvent, useDispatches } from '../../api/queries';
import { countOf } from '../../components/count-of';
import { ErrorNote } from '../../components/error-note';
import { eventName } from '../../components/event-name';
import { Loading } from '../../components/loading';
import { ScrollTable } from '../../components/scroll-table';
import { TimeText } from '../../components/time-text';

/**
 * Every dispatch to the installation, newest first, a page at a time: event, status, duration,
 * error and the integration's logs; for a webhook installation, each event its subscriptions were
 * given, with its delivery (status, attempts, a link to it in the delivery log). What the integration did comes first: the dashboard's own
 * renders and setup events are left out by the server until "Show system events" asks for them;
 * an event it does not handle reads "not handled", and one it missed while paused "skipped while
 * paused", neither as a failure.
 */
export function DispatchLog({ installationId, live }: { installationId: string; live: boolean }) {
  const [system, setSystem] = useState(false);
  const dispatches = useDispatches(installationId, { system }, live);
  const rows = dispatches.data?.pages.flatMap((page) => page.dispatches) ?? [];
  const empty = dispatches.data !== undefined && rows.length === 0;
  const anySystem = useAnySystemEvent(installationId, empty && !system);
  return (
    <section aria-labelledby="dispatches-heading">
      <h2 id="dispatches-heading">Events</h2>
      <p className="muted">
        What the platform sent to the integration{live ? ', live' : ''}: each event, how it went, and what the
        integration logged.
      </p>
      <Checkbox className="checkbox" isSelected={system} onChange={setSystem}>
        Show system events (screens drawn, setup)
      </Checkbox>
      {dispatches.isPending ? <Loading /> : null}
      {dispatches.error ? <ErrorNote error={dispatches.error} /> : null}
      {empty ? (
        <p className="muted">
          {anySystem.data ? 'Only system events so far: tick the box above to see them.' : 'No event yet.'}
        </p>
      ) : null}
      {rows.length > 0 ? (
        <ScrollTable label="Event list">
          <table className="cards">
            <thead>
              <tr>
                <th>Time</th>
                <th>Event</th>
                <th>Result</th>
                <th>Duration</th>
                <th>Error and logs</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((dispatch) => (
                <DispatchRow key={dispatch.delivery?.id ?? dispatch.id} dispatch={dispatch} />
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
      {dispatches.hasNextPage ? (
        <Button className="button" onPress={() => dispatches.fetchNextPage()} isPending={dispatches.isFetchingNextPage}>
          Older events
        </Button>
      ) : null}
    </section>
  );
}

/** 404 (ours) and 406 (other runtimes) mean the integration does not handle the event: not a failure. */
const notHandled = (dispatch: Dispatch) => dispatch.status === 404 || dispatch.status === 406;

function DispatchRow({ dispatch }: { dispatch: Dispatch }) {
  if (dispatch.delivery) return <DeliveryLine dispatch={dispatch} delivery={dispatch.delivery} />;
  const ok = dispatch.status >= 200 && dispatch.status < 300;
  const skipped = dispatch.skipped !== null;
  const unhandled = !skipped && notHandled(dispatch);
  const state = skipped ? 'skipped' : ok ? 'ok' : unhandled ? 'not-handled' : 'failed';
  return (
    <tr className="log-row" data-status={state}>
      <td data-label="Time">
        <TimeText at={dispatch.at} />
      </td>
      <td data-label="Event">
        {eventName(dispatch.type)}
        {dispatch.eventId && !/^setup_\d+$/.test(dispatch.eventId) ? (
          <div className="muted">{dispatch.eventId}</div>
        ) : null}
      </td>
      <td data-label="Result">
        {skipped ? (
          <span className="status not-handled" title="The installation was paused: the event was not sent, nor kept">
            {dispatch.skipped === 'paused' ? 'skipped while paused' : `skipped (${dispatch.skipped})`}
          </span>
        ) : unhandled ? (
          <span className="status not-handled" title={`answered ${dispatch.status}`}>
            not handled
          </span>
        ) : (
          <span className={`status ${ok ? 'delivered' : 'failed'}`}>
            {ok ? 'handled' : 'failed'} ({dispatch.status})
          </span>
        )}
      </td>
      <td data-label="Duration">{skipped ? '—' : `${dispatch.durationMs} ms`}</td>
      <td data-label="Error and logs">
        {dispatch.error && !unhandled && !skipped ? <div className="field-error">{dispatch.error}</div> : null}
        {dispatch.logs.length > 0 ? (
          <details>
            <summary>{countOf(dispatch.logs.length, 'log line')}</summary>
            <pre className="log-lines">
              {(dispatch.logLines ?? dispatch.logs.map((message) => ({ level: 'log' as const, message }))).map(
                (line, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the lines of a dispatch never change or move
                  <span key={i} className={`log-line log-${line.level}`}>
                    <span className="log-level">{line.level}</span> {line.message}
                    {'\n'}
                  </span>
                ),
              )}
            </pre>
          </details>
        ) : null}
      </td>
    </tr>
  );
}

/** An event fanned out to a webhook subscription: its delivery is the record (no integration was called). */
function DeliveryLine({ dispatch, delivery }: { dispatch: Dispatch; delivery: NonNullable<Dispatch['delivery']> }) {
  return (
    <tr className="log-row" data-status={delivery.status === 'delivered' ? 'ok' : delivery.status}>
      <td>
        <TimeText at={dispatch.at} />
      </td>
      <td>
        {eventName(dispatch.type)}
        {dispatch.eventId ? <div className="muted">{dispatch.eventId}</div> : null}
      </td>
      <td>
        <span className={`status ${delivery.status}`}>{delivery.status}</span>
        <div className="muted">{countOf(delivery.attempts, 'attempt')}</div>
      </td>
      <td>{dispatch.durationMs > 0 ? `${dispatch.durationMs} ms` : '—'}</td>
      <td>
        <a href={`#delivery-${delivery.id}`}>Delivery to {delivery.url}</a>
        {dispatch.error ? <div className="field-error">{dispatch.error}</div> : null}
      </td>
    </tr>
  );
}
