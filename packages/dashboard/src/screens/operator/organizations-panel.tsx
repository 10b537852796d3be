import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client';
import { keys, useOrganizations } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { IdTitleForm } from './id-title-form';

/** Every organization, each a link to its page (where its spaces, sites and members are added), and Create. */
export function OrganizationsPanel() {
  const organizations = useOrganizations();
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: ({ id, title }: { id: string; title: string }) => call(api.POST('/v1/orgs', { body: { id, title } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.organizations }),
  });
  return (
    <section aria-labelledby="organizations-heading" className="panel">
      <h2 id="organizations-heading" tabIndex={-1}>
        Organizations
      </h2>
      {organizations.error ? <ErrorNote error={organizations.error} /> : null}
      {organizations.data?.length === 0 ? <p className="muted">No organization yet: create the first below.</p> : null}
      <ul className="cards">
        {organizations.data?.map((org) => (
          <li key={org.id} className="card">
            <div>
              <h3>
                <Link to={`/orgs/${encodeURIComponent(org.id)}`}>{org.title}</Link>
              </h3>
              <p className="muted">{org.id}</p>
            </div>
          </li>
        ))}
      </ul>
      <h3>Create an organization</h3>
      <IdTitleForm
        what="organization"
        submit={(values) => create.mutateAsync(values)}
        isPending={create.isPending}
        error={create.error}
        onEdit={() => create.isSuccess && create.reset()}
      />
      <p role="status" className="muted">
        {create.data ? (
          <>
            Created {create.data.title}. Add its spaces, sites and members on{' '}
            <Link to={`/orgs/${encodeURIComponent(create.data.id)}`}>its page</Link>.
          </>
        ) : null}
      </p>
    </section>
  );
}
