import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';
import { useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { type IntegrationPage, keys, useOrganizations } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';

/** Install at organization level (then into spaces and sites on the installation page). */
export function InstallPanel({ integration, share }: { integration: IntegrationPage; share?: string | undefined }) {
  const organizations = useOrganizations();
  const [chosen, setChosen] = useState<string | undefined>();
  const navigate = useNavigate();
  const client = useQueryClient();
  const choices = organizations.data ?? [];
  const org = chosen ?? (choices.length === 1 ? choices[0]?.id : undefined);
  const install = useMutation({
    mutationFn: (organization: string) =>
      call(
        api.POST('/v1/orgs/{org}/installations', {
          params: { path: { org: organization } },
          body: { integration: integration.name, ...(share ? { shareToken: share } : {}) },
        }),
      ),
    onSuccess(installation) {
      void client.invalidateQueries({ queryKey: keys.organization(installation.organization) });
      navigate(`/installations/${encodeURIComponent(installation.id)}`);
    },
  });
  return (
    <div className="panel row">
      {choices.length > 1 ? (
        <Select
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
      <Button
        className="button primary"
        isDisabled={org === undefined}
        isPending={install.isPending}
        onPress={() => org && install.mutate(org)}
      >
        Install
      </Button>
      {choices.length === 1 ? <span className="muted">in {choices[0]?.title}</span> : null}
      {organizations.data?.length === 0 ? (
        <span className="muted">You belong to no organization to install it in.</span>
      ) : null}
      {install.error ? <ErrorNote error={install.error} /> : null}
    </div>
  );
}
