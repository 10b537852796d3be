import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Dialog, Form, Heading, Input, Label, Modal, ModalOverlay, TextField } from 'react-aria-components';
import { api, call, setCsrfToken } from '../../api/client';
import { SESSION_ENDED_KEY } from '../../api/query-client';
import { ErrorNote } from '../../components/error-note';
import { SESSION_KEY, type Session } from '../../session/session';

/**
 * When the session ends while a page is open, the page stays (with what was typed) under this
 * dialog: sign in again, then carry on (press Save again). Signing in as someone else starts over.
 */
export function SessionEndedDialog({ session }: { session: Session }) {
  const client = useQueryClient();
  const ended = useQuery({
    queryKey: SESSION_ENDED_KEY,
    queryFn: () => false,
    initialData: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [token, setToken] = useState('');
  const signIn = useMutation({
    mutationFn: () => call(api.POST('/v1/session', { body: { token: token.trim() } })),
    onSuccess(next) {
      setCsrfToken(next.csrfToken);
      setToken('');
      const same = next.principal.kind === session.principal.kind && next.principal.userId === session.principal.userId;
      if (!same) client.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
      client.setQueryData(SESSION_KEY, next);
      client.setQueryData(SESSION_ENDED_KEY, false);
      if (same) void client.invalidateQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <ModalOverlay className="modal-overlay" isOpen={ended.data === true} isDismissable={false}>
      <Modal className="modal">
        <Dialog className="dialog">
          <Heading slot="title">Your session has ended</Heading>
          <p>Sign in again to carry on: this page and what you typed stay as they are. Then press Save again.</p>
          <Form onSubmit={submit} className="stack">
            <TextField isRequired value={token} onChange={setToken} type="password" autoComplete="off" autoFocus>
              <Label>API token</Label>
              <Input className="input" />
            </TextField>
            {signIn.error ? <ErrorNote error={signIn.error} /> : null}
            <div>
              <Button type="submit" className="button primary" isPending={signIn.isPending}>
                Sign in again
              </Button>
            </div>
          </Form>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
