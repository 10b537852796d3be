import { useState } from 'react';
import { Button, Checkbox } from 'react-aria-components';
import { type Dispatch, useDispatches } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { eventName } from '../../components/event-name';
import { Loading } from '../../components/loading';
import { ScrollTable } from '../../components/scroll-table';
import { TimeText } from '../../components/time-text';

/** What the platform sends on its own account: the dashboard's renders and the setup events. */
const SYSTEM = new Set(['ui_render', 'installation_setup', 'space_installation_setup', 'site_installation_setup']);
const PAGE = 50;

/**
 * Every dispatch to the installation: event, status, duration, error and the integration's logs.
 * What the integration did comes first: the dashboard's own renders and setup events are behind
 * "Show system events"; an event it does not handle reads "not handled", not as a failure.
 */
export function DispatchLog({ installationId, live }: { installationId: string; live: boolean }) {
  const dispatches = useDispatches(installationId, live);
  const [system, setSystem] = useState(false);
  const [shown, setShown] = useState(PAGE);
  const all = dispatches.data ?? [];
  const rows = system ? all : all.filter((dispatch) => !SYSTEM.has(dispatch.type));
  const hidden = all.length - rows.length;
  return (
    <section aria-labelledby="dispatches-heading">
      <h2 id="dispatches-heading">Events</h2>
      <p className="muted">
        What the platform sent to the integration{live ? ', live' : ''}: each event, how it went, and what the
        integration logged.
      </p>
      <Checkbox className="checkbox" isSelected={system} onChange={setSystem}>
        Show system events (screens drawn, setup){hidden > 0 ? ` · ${hidden} hidden` : ''}
      </Checkbox>
      {dispatches.isPending ? <Loading /> : null}
      {dispatches.error ? <ErrorNote error={dispatches.error} /> : null}
      {dispatches.data && rows.length === 0 ? (
        <p className="muted">{hidden > 0 ? 'No event but system events yet.' : 'No event yet.'}</p>
      ) : null}
      {rows.length > 0 ? (
        <ScrollTable label="Event list">
          <table>
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
              {rows.slice(0, shown).map((dispatch, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: one event can be dispatched more than once in the same millisecond
                <DispatchRow key={`${dispatch.at}-${dispatch.eventId}-${i}`} dispatch={dispatch} />
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
      {rows.length > shown ? (
        <Button className="button" onPress={() => setShown((before) => before + PAGE)}>
          Older events ({rows.length - shown} more)
        </Button>
      ) : null}
    </section>
  );
}

/** 404 (ours) and 406 (other runtimes) mean the integration does not handle the event: not a failure. */
const notHandled = (dispatch: Dispatch) => dispatch.status === 404 || dispatch.status === 406;

function DispatchRow({ dispatch }: { dispatch: Dispatch }) {
  const ok = dispatch.status >= 200 && dispatch.status < 300;
  const skipped = notHandled(dispatch);
  return (
    <tr className="log-row" data-status={ok ? 'ok' : skipped ? 'not-handled' : 'failed'}>
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
        {skipped ? (
          <span className="status not-handled" title={`answered ${dispatch.status}`}>
            not handled
          </span>
        ) : (
          <span className={`status ${ok ? 'delivered' : 'failed'}`}>
            {ok ? 'handled' : 'failed'} ({dispatch.status})
          </span>
        )}
      </td>
      <td>{dispatch.durationMs} ms</td>
      <td>
        {dispatch.error && !skipped ? <div className="field-error">{dispatch.error}</div> : null}
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
