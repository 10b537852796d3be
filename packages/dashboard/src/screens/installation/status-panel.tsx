import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { type InstallationPage, keys } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { MessageText } from '../../components/message-text';
import { StatusText } from '../../components/status-text';

/** The status, what is missing while pending, and Pause/Resume/Uninstall. */
export function StatusPanel({ installation }: { installation: InstallationPage }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = { params: { path: { id: installation.id } } };
  const toggle = useMutation({
    mutationFn: () =>
      installation.status === 'paused'
        ? call(api.POST('/v1/installations/{id}/resume', path))
        : call(api.POST('/v1/installations/{id}/pause', path)),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.installation(installation.id) }),
  });
  const uninstall = useMutation({
    mutationFn: () => call(api.DELETE('/v1/installations/{id}', path)),
    onSuccess() {
      void client.invalidateQueries();
      navigate(
        installation.parentId
          ? `/installations/${encodeURIComponent(installation.parentId)}`
          : `/orgs/${encodeURIComponent(installation.organization)}`,
      );
    },
  });
  const missing = installation.status === 'pending' ? installation.errors : [];
  const titles = new Map(installation.fields.map((field) => [field.name, field.title] as const));
  return (
    <div className="panel">
      <div className="row">
        <span>Status:</span>
        <StatusText status={installation.status} />
        <span className="grow" />
        <Button className="button" onPress={() => toggle.mutate()} isPending={toggle.isPending}>
          {installation.status === 'paused' ? 'Resume' : 'Pause'}
        </Button>
        <Button
          className="button danger"
          isPending={uninstall.isPending}
          onPress={() => {
            if (window.confirm(`Uninstall ${installation.integrationTitle}? Its settings and tokens are removed.`))
              uninstall.mutate();
          }}
        >
          Uninstall
        </Button>
      </div>
      {installation.status === 'paused' ? (
        <p className="muted">Paused: it receives no events and its public endpoint answers 503.</p>
      ) : null}
      {missing.length > 0 ? (
        <div>
          <p>It becomes active once its configuration is complete. Missing:</p>
          <ul aria-label="What is missing">
            {missing.map((error) => (
              <li key={`${error.path}:${error.message}`}>
                <MessageText message={error.message} titles={titles} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {installation.alerts.map((alert) => (
        <p key={alert.endpointId} role="alert" className="error-note">
          {alert.message}
        </p>
      ))}
      {toggle.error ? <ErrorNote error={toggle.error} /> : null}
      {uninstall.error ? <ErrorNote error={uninstall.error} /> : null}
    </div>
  );
}
