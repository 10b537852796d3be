import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { keys, type TroubledEndpoint, useTroubledEndpoints } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { StatusText } from '../../components/status-text';
import { TimeText } from '../../components/time-text';

/**
 * The endpoints of every organization that are disabled or failing, disabled first: where each
 * belongs, since when, the last error, a link to its installation's Endpoint health, and Re-enable
 * for a disabled one.
 */
export function EndpointsPanel() {
  const endpoints = useTroubledEndpoints();
  const [said, setSaid] = useState('');
  return (
    <section aria-labelledby="endpoints-heading" className="panel">
      <h2 id="endpoints-heading" tabIndex={-1}>
        Failing and disabled endpoints
      </h2>
      <p className="muted">
        An endpoint is one installation’s URL. It is failing while every attempt fails; it is disabled after failing for
        days or answering 410 Gone, and gets nothing until it is re-enabled.
      </p>
      {endpoints.error ? <ErrorNote error={endpoints.error} /> : null}
      {endpoints.data?.length === 0 ? <p className="muted">No endpoint is failing or disabled.</p> : null}
      <ul className="cards single">
        {endpoints.data?.map((endpoint) => (
          <EndpointCard key={endpoint.id} endpoint={endpoint} onEnabled={setSaid} />
        ))}
      </ul>
      <p role="status" className="muted">
        {said}
      </p>
    </section>
  );
}

function EndpointCard({ endpoint, onEnabled }: { endpoint: TroubledEndpoint; onEnabled(said: string): void }) {
  const client = useQueryClient();
  const { installation } = endpoint;
  const enable = useMutation({
    mutationFn: () =>
      call(
        api.POST('/v1/installations/{id}/endpoints/{endpointId}/enable', {
          params: { path: { id: installation.id, endpointId: endpoint.id } },
        }),
      ),
    onSuccess() {
      onEnabled(`Re-enabled ${endpoint.url}: new deliveries go to it again. Redeliver what failed from its page.`);
      void client.invalidateQueries({ queryKey: keys.troubledEndpoints });
      void client.invalidateQueries({ queryKey: keys.installation(installation.id) });
    },
  });
  const place =
    installation.target.type === 'organization'
      ? `organization ${installation.organization.title}`
      : `${installation.target.type} ${installation.target.title ?? installation.target.id} of ${installation.organization.title}`;
  return (
    <li className="card">
      <div className="stack grow">
        <div className="row">
          <code className="grow break">{endpoint.url}</code>
          <StatusText status={endpoint.state} label={endpoint.url} />
        </div>
        <p>
          {installation.integration} in {place} ·{' '}
          <Link to={`/installations/${encodeURIComponent(installation.id)}#endpoints-heading`}>
            Endpoint health<span className="visually-hidden"> of {endpoint.url}</span>
          </Link>
        </p>
        <p className="muted">
          {endpoint.state === 'disabled' ? (
            <>
              Disabled <TimeText at={endpoint.disabledAt} />: {endpoint.disabledReason?.replace(/^disabled: /, '')}
            </>
          ) : (
            <>
              Failing since <TimeText at={endpoint.failingSince} />, {endpoint.consecutiveFailures} failed in a row
              {endpoint.lastError ? `; last: ${endpoint.lastError}` : ''}
            </>
          )}
        </p>
        {endpoint.state === 'disabled' ? (
          <div>
            <Button
              className="button"
              aria-label={`Re-enable ${endpoint.url}`}
              onPress={() => enable.mutate()}
              isPending={enable.isPending}
            >
              Re-enable
            </Button>
          </div>
        ) : null}
        {enable.error ? <ErrorNote title="Not re-enabled" error={enable.error} /> : null}
      </div>
    </li>
  );
}
