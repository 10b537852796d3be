import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { api, call } from '../../api/client';
import { keys, type UserEntry, useOrganizations, useUsers } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { TimeText } from '../../components/time-text';
import { CopyField } from './copy-field';
import { IdTitleForm } from './id-title-form';

/**
 * Every user with the organizations they belong to; Sign-in link mints a one-time link to hand
 * them (they never see a token); Create adds a user and shows their API token, once.
 */
export function UsersPanel() {
  const users = useUsers();
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: ({ id, title }: { id: string; title: string }) =>
      call(api.POST('/v1/users', { body: { id, name: title } })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.users }),
  });
  return (
    <section aria-labelledby="users-heading" className="panel">
      <h2 id="users-heading" tabIndex={-1}>
        Users
      </h2>
      <p className="muted">
        A sign-in link signs its user in to the dashboard once, within 15 minutes, without a token: send it to them. Add
        a user to an organization on the organization’s page.
      </p>
      {users.error ? <ErrorNote error={users.error} /> : null}
      {users.data?.length === 0 ? <p className="muted">No user yet: create the first below.</p> : null}
      <ul className="cards single">
        {users.data?.map((user) => (
          <UserCard key={user.id} user={user} />
        ))}
      </ul>
      <h3>Create a user</h3>
      <IdTitleForm
        what="user"
        titleLabel="Name"
        titleField="name"
        submit={(values) => create.mutateAsync(values)}
        isPending={create.isPending}
        error={create.error}
        onEdit={() => create.isSuccess && create.reset()}
      />
      {create.data ? (
        <div className="note stack" role="status">
          <p>
            Created {create.data.name}. Make a sign-in link for them above, or hand on their API token (for the API and
            the CLI); it is shown only now.
          </p>
          <CopyField label={`API token of ${create.data.name}`} value={create.data.token} />
        </div>
      ) : null}
    </section>
  );
}

function UserCard({ user }: { user: UserEntry }) {
  const organizations = useOrganizations();
  const titleOf = (id: string) => organizations.data?.find((org) => org.id === id)?.title ?? id;
  const [link, setLink] = useState<{ url: string; expiresAt: string } | undefined>();
  const mint = useMutation({
    mutationFn: () => call(api.POST('/v1/users/{id}/sign-in-links', { params: { path: { id: user.id } }, body: {} })),
    onSuccess: setLink,
  });
  return (
    <li className="card">
      <div className="stack grow">
        <div className="row">
          <h3 className="grow">
            {user.name} <span className="muted">({user.id})</span>
          </h3>
          <Button
            className="button"
            aria-label={`Make a sign-in link for ${user.name}`}
            onPress={() => mint.mutate()}
            isPending={mint.isPending}
          >
            Sign-in link
          </Button>
        </div>
        <p className="muted">
          {user.memberships.length === 0
            ? 'In no organization yet.'
            : user.memberships.map((m) => `${titleOf(m.organization)} (${m.role})`).join(', ')}
        </p>
        {mint.error ? <ErrorNote title="No link was made" error={mint.error} /> : null}
        {link ? (
          <>
            <CopyField label={`Sign-in link for ${user.name}`} value={link.url} />
            <p className="muted">
              It works once, until <TimeText at={link.expiresAt} />.
            </p>
          </>
        ) : null}
      </div>
    </li>
  );
}
