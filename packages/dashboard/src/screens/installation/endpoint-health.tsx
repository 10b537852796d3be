import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, call } from '../../api/client';
import { type Endpoint, keys } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { StatusText } from '../../components/status-text';
import { TimeText } from '../../components/time-text';

/** Each URL the installation delivers to: healthy, failing or disabled, and Re-enable for a disabled one. */
export function EndpointHealth({ installationId, endpoints }: { installationId: string; endpoints: Endpoint[] }) {
  if (endpoints.length === 0) return null;
  return (
    <section aria-labelledby="endpoints-heading">
      <h3 id="endpoints-heading">Endpoint health</h3>
      <ul className="stack" style={{ listStyle: 'none', padding: 0 }}>
        {endpoints.map((endpoint) => (
          <EndpointRow key={endpoint.id} installationId={installationId} endpoint={endpoint} />
        ))}
      </ul>
    </section>
  );
}

function EndpointRow({ installationId, endpoint }: { installationId: string; endpoint: Endpoint }) {
  const client = useQueryClient();
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
    <li className="panel">
      <div className="row">
        <code>{endpoint.url}</code>
        <StatusText status={endpoint.state} label="Endpoint" />
        {endpoint.state === 'disabled' ? (
          <Button className="button" onPress={() => enable.mutate()} isPending={enable.isPending}>
            Re-enable
          </Button>
        ) : null}
      </div>
      <p className="muted">
        Failures in a row: {endpoint.consecutiveFailures} · last success: <TimeText at={endpoint.lastSuccessAt} />
        {endpoint.lastError ? ` · last error: ${endpoint.lastError}` : ''}
      </p>
      {endpoint.disabledReason ? <p className="field-error">{endpoint.disabledReason}</p> : null}
      {enable.error ? <ErrorNote error={enable.error} /> : null}
    </li>
  );
}
