/**
 * "Asks for new permissions: …" (DESIGN.md "Granted scopes"): what an integration's latest version
 * asks for beyond what the organization granted, with Accept and Uninstall for its admins. A
 * member reads it with both buttons disabled and the reason; a space or site installation says its
 * organization installation holds the grant, and links there.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { Button } from 'react-aria-components';
import { Link } from 'react-router';
import { api, call } from '../api/client';
import { type InstallationPage, useIntegration } from '../api/queries';
import { ConfirmButton } from './confirm-button';
import { ErrorNote } from './error-note';

export function ScopeRequest({
  installation,
  role,
  organizationTitle,
  onUninstalled,
  compact = false,
}: {
  installation: Pick<
    InstallationPage,
    'id' | 'integration' | 'integrationTitle' | 'organization' | 'target' | 'parentId' | 'scopes'
  >;
  /** The signed-in person's role in the organization (undefined while it is read). */
  role: 'admin' | 'member' | undefined;
  organizationTitle: string;
  onUninstalled?: () => void;
  /** In a list's card: without the explanation. */
  compact?: boolean;
}) {
  const client = useQueryClient();
  const headingId = useId();
  const details = useIntegration(installation.integration);
  const scopes = installation.scopes;
  const path = { params: { path: { id: installation.id } } };
  const accept = useMutation({
    mutationFn: (shown: string[]) =>
      call(api.POST('/v1/installations/{id}/scopes/accept', { ...path, body: { scopes: shown } })),
    onSuccess: () => client.invalidateQueries(),
  });
  const uninstall = useMutation({
    mutationFn: () => call(api.DELETE('/v1/installations/{id}', path)),
    onSuccess() {
      void client.invalidateQueries();
      onUninstalled?.();
    },
  });
  if (scopes === undefined || scopes.requested.length === 0) {
    return accept.isSuccess ? (
      <p role="status" className="muted">
        New permissions accepted: {installation.integrationTitle} now has them.
      </p>
    ) : null;
  }
  const grants = new Map((details.data?.scopeGrants ?? []).map((grant) => [grant.scope, grant.grants] as const));
  const organizationLevel = installation.target.type === 'organization';
  const mayAccept = role === 'admin' && organizationLevel;
  const name = installation.integrationTitle;
  return (
    <section
      className={compact ? 'warning-note scope-request compact' : 'warning-note scope-request'}
      aria-labelledby={headingId}
    >
      <h3 id={headingId} className="scope-request-title">
        {organizationLevel ? 'Asks for new permissions' : 'Its organization installation asks for new permissions'}
      </h3>
      {compact ? null : (
        <p>
          A newer version of {name} asks for more than {organizationTitle} granted. Until an admin accepts, it runs with
          what was granted.
        </p>
      )}
      <ul aria-label="New permissions">
        {scopes.requested.map((scope) => (
          <li key={scope}>
            {grants.has(scope) ? `${grants.get(scope)} ` : null}
            <code>{scope}</code>
          </li>
        ))}
      </ul>
      {organizationLevel ? (
        <div className="row">
          <Button
            className="button primary"
            isDisabled={!mayAccept}
            isPending={accept.isPending}
            onPress={() => accept.mutate([...scopes.granted, ...scopes.requested])}
          >
            Accept
          </Button>
          <ConfirmButton
            danger
            title={`Uninstall ${name}?`}
            message={
              <p>
                Its settings and tokens are removed, with its installations in spaces and sites. This cannot be undone.
              </p>
            }
            confirmLabel="Uninstall"
            onConfirm={() => uninstall.mutate()}
            isPending={uninstall.isPending}
            isDisabled={role !== 'admin'}
          >
            Uninstall
          </ConfirmButton>
        </div>
      ) : installation.parentId ? (
        <p>
          <Link to={`/installations/${encodeURIComponent(installation.parentId)}`}>
            Review them on the organization installation
          </Link>
        </p>
      ) : null}
      {organizationLevel && role === 'member' ? (
        <p className="muted member-note">
          Only admins of {organizationTitle} can accept new permissions or uninstall; you are a member.
        </p>
      ) : null}
      {accept.error ? <ErrorNote title="Not accepted" error={accept.error} /> : null}
      {uninstall.error ? <ErrorNote title="Not uninstalled" error={uninstall.error} /> : null}
    </section>
  );
}
