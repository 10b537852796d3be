import { type Dispatch, useDispatches } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { eventName } from '../../components/event-name';
import { Loading } from '../../components/loading';
import { TimeText } from '../../components/time-text';

/** Every dispatch to the installation: event, host, status, duration, error and the integration's logs. */
export function DispatchLog({ installationId, live }: { installationId: string; live: boolean }) {
  const dispatches = useDispatches(installationId, live);
  return (
    <section aria-labelledby="dispatches-heading">
      <h2 id="dispatches-heading">Events</h2>
      <p className="muted">
        What the platform sent to the integration{live ? ', live' : ''}: each event, how it went, and what the
        integration logged.
      </p>
      {dispatches.isPending ? <Loading /> : null}
      {dispatches.error ? <ErrorNote error={dispatches.error} /> : null}
      {dispatches.data?.length === 0 ? <p className="muted">No event yet.</p> : null}
      {dispatches.data?.length ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Event</th>
                <th>Status</th>
                <th>Duration</th>
                <th>Error and logs</th>
              </tr>
            </thead>
            <tbody>
              {dispatches.data.map((dispatch, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: one event can be dispatched more than once in the same millisecond
                <DispatchRow key={`${dispatch.at}-${dispatch.eventId}-${i}`} dispatch={dispatch} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function DispatchRow({ dispatch }: { dispatch: Dispatch }) {
  const ok = dispatch.status >= 200 && dispatch.status < 300;
  return (
    <tr className="log-row" data-status={ok ? 'ok' : 'failed'}>
      <td>
        <TimeText at={dispatch.at} />
      </td>
      <td>
        {eventName(dispatch.type)}
        {dispatch.eventId && !/^setup_\d+$/.test(dispatch.eventId) ? (
          <div className="muted">{dispatch.eventId}</div>
        ) : null}
      </td>
      <td>
        <span className={`status ${ok ? 'delivered' : 'failed'}`}>{dispatch.status}</span>
      </td>
      <td>{dispatch.durationMs} ms</td>
      <td>
        {dispatch.error ? <div className="field-error">{dispatch.error}</div> : null}
        {dispatch.logs.length > 0 ? (
          <details>
            <summary>{dispatch.logs.length} log line(s)</summary>
            <pre>{dispatch.logs.join('\n')}</pre>
          </details>
        ) : null}
      </td>
    </tr>
  );
}
