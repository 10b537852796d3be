import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../../api/client';
import { keys, useOrganization } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';

/**
 * How an integration gets onto a space or site from its own page: each integration installed in
 * the organization but not here, with "Add to {place}" (admins; it opens the new installation to
 * configure it), and a link to install another in the organization first.
 */
export function AddToPlace({
  kind,
  place,
  title,
  org,
}: {
  kind: 'space' | 'site';
  place: string;
  title: string;
  org: string;
}) {
  const organization = useOrganization(org);
  const navigate = useNavigate();
  const client = useQueryClient();
  const add = useMutation({
    mutationFn: (installation: string) =>
      kind === 'space'
        ? call(
            api.POST('/v1/installations/{id}/spaces/{target}', {
              params: { path: { id: installation, target: place } },
            }),
          )
        : call(
            api.POST('/v1/installations/{id}/sites/{target}', {
              params: { path: { id: installation, target: place } },
            }),
          ),
    onSuccess(created, installation) {
      void client.invalidateQueries({ queryKey: keys.place(kind, place) });
      void client.invalidateQueries({ queryKey: keys.installation(installation) });
      navigate(`/installations/${encodeURIComponent(created.id)}`);
    },
  });
  if (!organization.data) return organization.error ? <ErrorNote error={organization.error} /> : null;
  const admin = organization.data.role === 'admin';
  const here = (children: { target: { type: string; id: string } }[]) =>
    children.some((child) => child.target.type === kind && child.target.id === place);
  const offered = organization.data.installations.filter((installation) => !here(installation.children));
  return (
    <section aria-labelledby="add-heading" className="panel">
      <h2 id="add-heading">Add an integration to {title}</h2>
      {offered.length > 0 ? (
        <ul className="plain-list stack">
          {offered.map((installation) => (
            <li key={installation.id} className="row">
              <span className="grow">
                {installation.integrationTitle} <span className="muted">(installed in {organization.data.title})</span>
              </span>
              <Button
                className="button"
                aria-label={`Add ${installation.integrationTitle} to ${title}`}
                isDisabled={!admin}
                isPending={add.isPending && add.variables === installation.id}
                onPress={() => add.mutate(installation.id)}
              >
                Add {installation.integrationTitle}
              </Button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">
          {organization.data.installations.length === 0
            ? `No integration is installed in ${organization.data.title} yet.`
            : `Every integration installed in ${organization.data.title} is here already.`}
        </p>
      )}
      {!admin ? (
        <p className="muted">Only admins of {organization.data.title} can add integrations here; you are a member.</p>
      ) : null}
      <p>
        <Link to="/integrations">Install another integration</Link> in {organization.data.title}, then add it here.
      </p>
      {add.error ? <ErrorNote title="Not added" error={add.error} /> : null}
    </section>
  );
}
