import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Checkbox, CheckboxGroup, Label, Radio, RadioGroup } from 'react-aria-components';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { type InstallationPage, keys, useOrganization } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { StatusText } from '../../components/status-text';
import { MemberNote, useManagePermission } from './manage-permission';

/**
 * An organization installation's spaces and sites: every one (also those created later) or the
 * ones chosen, and the space and site installations it has.
 */
export function PlacesPanel({ installation }: { installation: InstallationPage }) {
  const organization = useOrganization(installation.organization);
  const titleOf = (target: { type: string; id: string }) =>
    (target.type === 'space' ? organization.data?.spaces : organization.data?.sites)?.find(
      (place) => place.id === target.id,
    )?.title ?? target.id;
  return (
    <section aria-labelledby="places-heading">
      <h2 id="places-heading">Spaces and sites</h2>
      <MemberNote can="choose where it is installed" />
      {organization.error ? <ErrorNote error={organization.error} /> : null}
      <div className="columns">
        <SelectionForm
          kind="spaces"
          installation={installation}
          places={organization.data?.spaces ?? []}
          selection={installation.space_selection}
        />
        <SelectionForm
          kind="sites"
          installation={installation}
          places={organization.data?.sites ?? []}
          selection={installation.site_selection}
        />
      </div>
      {installation.children.length > 0 ? (
        <ul aria-label="Installed in">
          {installation.children.map((child) => (
            <li key={child.id}>
              <Link to={`/installations/${encodeURIComponent(child.id)}`}>{titleOf(child.target)}</Link>{' '}
              <span className="muted">({child.target.type})</span>{' '}
              <StatusText status={child.status} label={titleOf(child.target)} />
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

type Selection = InstallationPage['space_selection'] | InstallationPage['site_selection'];

function SelectionForm({
  kind,
  installation,
  places,
  selection,
}: {
  kind: 'spaces' | 'sites';
  installation: InstallationPage;
  places: { id: string; title: string }[];
  selection: Selection;
}) {
  const client = useQueryClient();
  const current = selection?.mode === 'selected' ? ((selection as Record<string, unknown>)[kind] as string[]) : [];
  const [mode, setMode] = useState<'all' | 'selected'>(selection?.mode ?? 'selected');
  const [chosen, setChosen] = useState<string[]>(current);
  const noun = kind === 'spaces' ? 'Spaces' : 'Sites';
  const permission = useManagePermission();
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PATCH('/v1/installations/{id}', {
          params: { path: { id: installation.id } },
          body: {
            [kind === 'spaces' ? 'space_selection' : 'site_selection']:
              mode === 'all' ? { mode } : { mode, [kind]: chosen },
          },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.installation(installation.id) }),
  });
  const names = (ids: string[]) =>
    ids.map((id) => places.find((place) => place.id === id)?.title ?? id).join(', ') || `no ${kind}`;
  return (
    <div className="panel stack">
      <RadioGroup
        value={mode}
        onChange={(value) => {
          save.reset();
          setMode(value as 'all' | 'selected');
        }}
        className="stack"
        isDisabled={!permission.allowed}
      >
        <Label className="label">{noun}</Label>
        <Radio value="all" className="radio">
          All {kind} (also new ones)
        </Radio>
        <Radio value="selected" className="radio">
          Chosen {kind}
        </Radio>
      </RadioGroup>
      {mode === 'selected' ? (
        places.length === 0 ? (
          <p className="muted">The organization has no {kind}.</p>
        ) : (
          <CheckboxGroup
            value={chosen}
            onChange={(value) => {
              save.reset();
              setChosen(value);
            }}
            aria-label={`Chosen ${kind}`}
            isDisabled={!permission.allowed}
            className="stack"
          >
            {places.map((place) => (
              <Checkbox key={place.id} value={place.id} className="checkbox">
                {place.title}
              </Checkbox>
            ))}
          </CheckboxGroup>
        )
      ) : null}
      <div>
        <Button
          className="button"
          onPress={() => save.mutate()}
          isPending={save.isPending}
          isDisabled={!permission.allowed}
        >
          Save {kind}
        </Button>
      </div>
      <p role="status" className="muted">
        {save.isSuccess
          ? mode === 'all'
            ? `Saved: installed in all ${kind}, also those created later.`
            : `Saved: installed in ${names(chosen)}.`
          : ''}
      </p>
      {save.error ? <ErrorNote title={`${noun} not saved`} error={save.error} /> : null}
    </div>
  );
}
