import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, call } from '../../api/client';
import { type Endpoint, type InstallationPage, keys } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { StatusText } from '../../components/status-text';
import { TimeText } from '../../components/time-text';
import { MemberNote, useManagePermission } from './manage-permission';

/**
 * Where the installation delivers: the URL its configuration holds, with its health and Send test
 * event; then earlier URLs that still have a health record (failing or disabled ones can be
 * re-enabled).
 */
export function EndpointHealth({ installation }: { installation: InstallationPage }) {
  const url = typeof installation.configuration.url === 'string' ? installation.configuration.url : undefined;
  const current = installation.endpoints.find((endpoint) => endpoint.url === url);
  const earlier = installation.endpoints.filter((endpoint) => endpoint !== current);
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
      {earlier.length > 0 ? (
        <>
          <h4>Earlier URLs</h4>
          <ul className="stack plain-list">
            {earlier.map((endpoint) => (
              <li key={endpoint.id} className="panel">
                <div className="row">
                  <code className="wrap-anywhere">{endpoint.url}</code>
                  <StatusText status={endpoint.state} label="Endpoint" />
                </div>
                <EndpointDetails installationId={installation.id} endpoint={endpoint} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
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
