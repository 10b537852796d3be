import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { type InstallationPage, keys } from '../../api/queries';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorNote } from '../../components/error-note';
import { MessageText } from '../../components/message-text';
import { StatusText } from '../../components/status-text';
import { TimeText } from '../../components/time-text';

/**
 * The status, what is missing while pending, and Pause/Resume/Uninstall: Pause and Uninstall ask
 * first; a member (not an organization admin) sees them disabled, with the reason.
 */
export function StatusPanel({
  installation,
  role,
}: {
  installation: InstallationPage;
  /** The signed-in person's role in the installation's organization (undefined while it is read). */
  role: 'admin' | 'member' | undefined;
}) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = { params: { path: { id: installation.id } } };
  const paused = installation.status === 'paused';
  const toggle = useMutation({
    mutationFn: (pause: boolean) =>
      pause
        ? call(api.POST('/v1/installations/{id}/pause', path))
        : call(api.POST('/v1/installations/{id}/resume', path)),
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
        { state: { notice: `${installation.integrationTitle} was uninstalled: its settings and tokens are removed.` } },
      );
    },
  });
  const missing = installation.status === 'pending' ? installation.errors : [];
  const titles = new Map(installation.fields.map((field) => [field.name, field.title] as const));
  const mayAdminister = role === 'admin';
  const name = installation.integrationTitle;
  return (
    <div className="panel">
      <div className="row">
        <span>Status:</span>
        <StatusText status={installation.status} />
        <span className="grow" />
        {paused ? (
          <Button
            className="button"
            onPress={() => toggle.mutate(false)}
            isPending={toggle.isPending}
            isDisabled={!mayAdminister}
          >
            Resume
          </Button>
        ) : (
          <ConfirmButton
            title={`Pause ${name}?`}
            message={
              <p>
                While it is paused it receives no events, and they are not kept: events sent meanwhile are never
                delivered to it, not even after Resume (its Events log lists them as skipped). Its public endpoint
                answers 503.
              </p>
            }
            confirmLabel="Pause"
            onConfirm={() => toggle.mutate(true)}
            isPending={toggle.isPending}
            isDisabled={!mayAdminister}
          >
            Pause
          </ConfirmButton>
        )}
        <ConfirmButton
          danger
          title={`Uninstall ${name}?`}
          message={
            <p>
              Its settings and tokens are removed
              {installation.target.type === 'organization' ? ', with its installations in spaces and sites' : ''}. This
              cannot be undone.
            </p>
          }
          confirmLabel="Uninstall"
          onConfirm={() => uninstall.mutate()}
          isPending={uninstall.isPending}
          isDisabled={!mayAdminister}
        >
          Uninstall
        </ConfirmButton>
      </div>
      {role === 'member' ? <p className="muted">Only organization admins can pause, resume or uninstall it.</p> : null}
      <p role="status" className="muted">
        {toggle.isSuccess
          ? toggle.variables
            ? 'Paused: it receives no events until you resume it.'
            : 'Resumed: it receives events again.'
          : ''}
      </p>
      {paused && !toggle.isSuccess ? (
        <p className="muted">Paused: it receives no events (they are not kept) and its public endpoint answers 503.</p>
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
        // The server's message tells API callers which route to call; a person gets the button's place.
        <p key={alert.endpointId} role="alert" className="error-note">
          Deliveries to {alert.url} are disabled since <TimeText at={alert.since} />: every attempt failed for too long.{' '}
          <a href="#endpoints-heading">Re-enable it under Endpoint health</a>, then redeliver what failed.
        </p>
      ))}
      {toggle.error ? <ErrorNote title={toggle.variables ? 'Not paused' : 'Not resumed'} error={toggle.error} /> : null}
      {uninstall.error ? <ErrorNote title="Not uninstalled" error={uninstall.error} /> : null}
    </div>
  );
}
