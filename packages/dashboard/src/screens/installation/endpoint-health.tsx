import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, call } from '../../api/client';
import { type Endpoint, type InstallationPage, keys } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { eventName } from '../../components/event-name';
import { StatusText } from '../../components/status-text';
import { TimeText } from '../../components/time-text';
import { MemberNote, useManagePermission } from './manage-permission';

/**
 * Where the installation delivers: the URL its configuration holds (its first subscription), with
 * its health and Send test event; then the subscriptions added through the API, each with the
 * events it receives; then earlier URLs that still have a health record (failing or disabled ones
 * can be re-enabled).
 */
export function EndpointHealth({ installation }: { installation: InstallationPage }) {
  const url = typeof installation.configuration.url === 'string' ? installation.configuration.url : undefined;
  const current =
    installation.endpoints.find((endpoint) => endpoint.fromConfiguration) ??
    installation.endpoints.find((endpoint) => endpoint.url === url);
  const more = installation.endpoints.filter((endpoint) => endpoint !== current && endpoint.subscribed);
  const earlier = installation.endpoints.filter((endpoint) => endpoint !== current && !endpoint.subscribed);
  return (
    <section aria-labelledby="endpoints-heading">
      <h3 id="endpoints-heading">Endpoint health</h3>
      <div className="panel">
        {url ? (
          <div className="row">
            <code className="wrap-anywhere">{url}</code>
            {current ? (
              <StatusText status={current.state} label="Endpoint" />
            ) : (
              <span className="muted">no delivery yet</span>
            )}
          </div>
        ) : (
          <p className="muted">No URL yet: set the Webhook URL in the form above.</p>
        )}
        {current ? <EndpointDetails installationId={installation.id} endpoint={current} /> : null}
        <TestEvent installationId={installation.id} hasUrl={url !== undefined} />
        <MemberNote can="send test events or re-enable an endpoint" />
      </div>
      {more.length > 0 ? (
        <>
          <h4>More subscriptions</h4>
          <EndpointList installationId={installation.id} endpoints={more} />
        </>
      ) : null}
      {earlier.length > 0 ? (
        <>
          <h4>Earlier URLs</h4>
          <EndpointList installationId={installation.id} endpoints={earlier} />
        </>
      ) : null}
    </section>
  );
}

/** Endpoints other than the configured one: each URL with its health; a subscription says what it receives. */
function EndpointList({ installationId, endpoints }: { installationId: string; endpoints: Endpoint[] }) {
  return (
    <ul className="stack plain-list">
      {endpoints.map((endpoint) => (
        <li key={endpoint.id} className="panel">
          <div className="row">
            <code className="wrap-anywhere">{endpoint.url}</code>
            {endpoint.enabled ? (
              <StatusText status={endpoint.state} label="Endpoint" />
            ) : (
              <span className="muted">switched off</span>
            )}
          </div>
          {endpoint.subscribed ? (
            <p className="muted">
              Receives {endpoint.eventTypes.map(eventName).join(', ')}
              {endpoint.policy ? ` · ${endpoint.policy} retries` : ''}
              {endpoint.rateLimit !== null ? ` · at most ${endpoint.rateLimit} deliveries a second` : ''}
              {Object.keys(endpoint.headers).length > 0
                ? ` · its own headers: ${Object.keys(endpoint.headers).join(', ')}`
                : ''}
            </p>
          ) : null}
          <EndpointDetails installationId={installationId} endpoint={endpoint} />
        </li>
      ))}
    </ul>
  );
}

function EndpointDetails({ installationId, endpoint }: { installationId: string; endpoint: Endpoint }) {
  const client = useQueryClient();
  const permission = useManagePermission();
  const enable = useMutation({
    mutationFn: () =>
      call(
        api.POST('/v1/installations/{id}/endpoints/{endpointId}/enable', {
          params: { path: { id: installationId, endpointId: endpoint.id } },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.installation(installationId) }),
  });
  return (
    <>
      <p className="muted">
        Failures in a row: {endpoint.consecutiveFailures} · last success: <TimeText at={endpoint.lastSuccessAt} />
        {endpoint.lastError ? ` · last error: ${endpoint.lastError}` : ''}
      </p>
      {endpoint.disabledReason ? <p className="field-error">{endpoint.disabledReason}</p> : null}
      {endpoint.state === 'disabled' ? (
        <Button
          className="button"
          onPress={() => enable.mutate()}
          isPending={enable.isPending}
          isDisabled={!permission.allowed}
        >
          Re-enable
        </Button>
      ) : null}
      {enable.isSuccess ? (
        <p role="status" className="muted">
          Re-enabled: new deliveries go to this URL again. Redeliver what failed from the Deliveries list.
        </p>
      ) : null}
      {enable.error ? <ErrorNote title="Not re-enabled" error={enable.error} /> : null}
    </>
  );
}

/** Send test event: a signed example through the delivery engine; it shows in Deliveries, marked as a test. */
function TestEvent({ installationId, hasUrl }: { installationId: string; hasUrl: boolean }) {
  const client = useQueryClient();
  const permission = useManagePermission();
  const send = useMutation({
    mutationFn: () =>
      call(api.POST('/v1/installations/{id}/test-delivery', { params: { path: { id: installationId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['deliveries', installationId] }),
  });
  return (
    <div className="row">
      <Button
        className="button"
        onPress={() => send.mutate()}
        isPending={send.isPending}
        isDisabled={!hasUrl || !permission.allowed}
      >
        Send test event
      </Button>
      {!hasUrl ? <span className="muted">Save a webhook URL first.</span> : null}
      <span role="status" className="muted">
        {send.isSuccess ? `Test event sent to ${send.data.url}: follow it under Deliveries.` : ''}
      </span>
      {send.error ? <ErrorNote title="Test event not sent" error={send.error} /> : null}
    </div>
  );
}
