import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';
import { ApiError, api, call } from '../../api/client';
import { type IntegrationPage, keys, useInstalledIntegrations, useOrganizations } from '../../api/queries';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorNote } from '../../components/error-note';
import { GrantList } from '../../components/grant-list';

/**
 * Install at organization level, once the admin confirmed what it is granted (the scopes its
 * latest version asks for, each with what it allows) (then into spaces and sites on the installation page); where it is
 * installed already, "Installed" with Open instead.
 */
export function InstallPanel({ integration, share }: { integration: IntegrationPage; share?: string | undefined }) {
  const organizations = useOrganizations();
  const [chosen, setChosen] = useState<string | undefined>();
  const navigate = useNavigate();
  const client = useQueryClient();
  const choices = organizations.data ?? [];
  const org = chosen ?? (choices.length === 1 ? choices[0]?.id : undefined);
  const { installed } = useInstalledIntegrations();
  const places = installed.get(integration.name) ?? [];
  const here = places.find((place) => place.organization === org);
  // Installing is an admin's call (the contract's Roles): a member sees Install disabled, with why.
  const chosenOrganization = choices.find((choice) => choice.id === org);
  const member = chosenOrganization?.role === 'member';
  const install = useMutation({
    mutationFn: (organization: string) =>
      call(
        api.POST('/v1/orgs/{org}/installations', {
          params: { path: { org: organization } },
          // The scopes the confirmation listed: what the organization grants (a version asking for more since is refused).
          body: { integration: integration.name, scopes: integration.scopes, ...(share ? { shareToken: share } : {}) },
        }),
      ),
    onSuccess(installation) {
      void client.invalidateQueries({ queryKey: keys.organization(installation.organization) });
      navigate(`/installations/${encodeURIComponent(installation.id)}`);
    },
    // Installed meanwhile (another tab, another person): read it again, and the panel offers Open.
    onError(error, organization) {
      if (error instanceof ApiError && error.status === 409)
        void client.invalidateQueries({ queryKey: keys.organization(organization) });
    },
  });
  return (
    <div className="panel row">
      {choices.length > 1 ? (
        <Select
          placeholder="Choose an organization"
          selectedKey={org ?? null}
          onSelectionChange={(key) => setChosen(key === null ? undefined : String(key))}
        >
          <Label>Organization</Label>
          <Button className="select-button">
            <SelectValue />
            <span aria-hidden="true">▾</span>
          </Button>
          <Popover className="popover">
            <ListBox className="listbox" items={choices}>
              {(choice) => (
                <ListBoxItem id={choice.id} className="listbox-item">
                  {choice.title}
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </Select>
      ) : null}
      {here ? (
        <span>
          <span className="status active">Installed</span> in {here.title} ·{' '}
          <Link to={`/installations/${encodeURIComponent(here.installationId)}`}>Open</Link>
        </span>
      ) : (
        <>
          <ConfirmButton
            primary
            title={`Install ${integration.title} in ${chosenOrganization?.title ?? org ?? ''}?`}
            message={<GrantList integration={integration} />}
            confirmLabel="Install"
            onConfirm={() => org && install.mutate(org)}
            isPending={install.isPending}
            isDisabled={org === undefined || member}
          >
            Install
          </ConfirmButton>
          {choices.length === 1 ? <span className="muted">in {choices[0]?.title}</span> : null}
          {member ? (
            <span className="muted">
              Only admins of {chosenOrganization?.title} can install integrations; you are a member.
            </span>
          ) : null}
        </>
      )}
      {organizations.data?.length === 0 ? (
        <span className="muted">You belong to no organization to install it in.</span>
      ) : null}
      {install.error && !(install.error instanceof ApiError && install.error.status === 409) ? (
        <ErrorNote title="Not installed" error={install.error} />
      ) : null}
    </div>
  );
}
