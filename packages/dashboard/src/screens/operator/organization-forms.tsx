import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  Button,
  Form,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Radio,
  RadioGroup,
  Select,
  SelectValue,
} from 'react-aria-components';
import { api, call } from '../../api/client';
import { keys, useUsers } from '../../api/queries';
import { ErrorNote } from '../../components/error-note';
import { IdTitleForm } from './id-title-form';

/** The operator's Create for a space or a site of an organization (on the organization's page). */
export function CreatePlaceForm({ org, kind }: { org: string; kind: 'spaces' | 'sites' }) {
  const client = useQueryClient();
  const what = kind === 'spaces' ? 'space' : 'site';
  const create = useMutation({
    mutationFn: (body: { id: string; title: string }) =>
      kind === 'spaces'
        ? call(api.POST('/v1/orgs/{org}/spaces', { params: { path: { org } }, body }))
        : call(api.POST('/v1/orgs/{org}/sites', { params: { path: { org } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.organization(org) }),
  });
  return (
    <details className="create-details">
      <summary>Create a {what}</summary>
      <IdTitleForm
        what={what}
        submit={(values) => create.mutateAsync(values)}
        isPending={create.isPending}
        error={create.error}
        onEdit={() => create.isSuccess && create.reset()}
      />
      <p role="status" className="muted">
        {create.data ? `Created the ${what} ${create.data.title}.` : ''}
      </p>
    </details>
  );
}

/** The operator's Add (or change the role of) a member of an organization, from the users there are. */
export function AddMemberForm({ org }: { org: string }) {
  const client = useQueryClient();
  const users = useUsers();
  const [user, setUser] = useState<string | null>(null);
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const add = useMutation({
    mutationFn: (input: { user: string; role: 'member' | 'admin' }) =>
      call(
        api.PUT('/v1/orgs/{org}/members/{user}', {
          params: { path: { org, user: input.user } },
          body: { role: input.role },
        }),
      ),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keys.organization(org) });
      void client.invalidateQueries({ queryKey: keys.users });
    },
  });
  const nameOf = (id: string) => users.data?.find((u) => u.id === id)?.name ?? id;
  return (
    <details className="create-details">
      <summary>Add a member</summary>
      <Form
        className="stack"
        aria-label="Add a member"
        onSubmit={(event) => {
          event.preventDefault();
          if (user) add.mutate({ user, role });
        }}
      >
        <Select
          selectedKey={user}
          onSelectionChange={(key) => {
            setUser(key === null ? null : String(key));
            add.reset();
          }}
          isRequired
          placeholder="Choose a user"
        >
          <Label>User</Label>
          <Button className="select-button">
            <SelectValue />
            <span aria-hidden="true">▾</span>
          </Button>
          <Popover className="popover">
            <ListBox className="listbox" items={users.data ?? []}>
              {(u) => (
                <ListBoxItem id={u.id} className="listbox-item" textValue={u.name}>
                  {u.name} ({u.id})
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </Select>
        <RadioGroup value={role} onChange={(value) => setRole(value as 'member' | 'admin')} className="stack">
          <Label className="label">Role</Label>
          <Radio value="member" className="radio">
            Member (reads everything)
          </Radio>
          <Radio value="admin" className="radio">
            Admin (installs and manages integrations)
          </Radio>
        </RadioGroup>
        <div>
          <Button type="submit" className="button primary" isDisabled={user === null} isPending={add.isPending}>
            Add member
          </Button>
        </div>
        {users.error ? <ErrorNote error={users.error} /> : null}
        {add.error ? <ErrorNote title="Not added" error={add.error} /> : null}
        <p role="status" className="muted">
          {add.data
            ? `${nameOf(add.data.user)} is now ${add.data.role === 'admin' ? 'an admin' : 'a member'} here.`
            : ''}
        </p>
      </Form>
    </details>
  );
}
