import { type FormEvent, useState } from 'react';
import { Button, FieldError, Form, Input, Label, TextField } from 'react-aria-components';
import { ErrorNote } from '../../components/error-note';
import { usePageTitle } from '../../components/use-page-title';
import { useSignIn } from '../../session/session';

/** Sign in with a user token or the operator's admin token; the server answers with a session cookie. */
export function SignInScreen({ error }: { error?: unknown }) {
  const signIn = useSignIn();
  usePageTitle('Sign in');
  const [token, setToken] = useState('');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    signIn.mutate({ token: token.trim() });
  };
  return (
    <main className="sign-in">
      <p className="brand">Portico</p>
      <h1>Sign in to Portico</h1>
      <p className="muted">
        Use your API token, or the operator's admin token. The dashboard keeps a session cookie, never the token.
      </p>
      {/* The link's failure, until the person tries a token: then only that attempt's result shows. */}
      {error && signIn.isIdle ? <ErrorNote title="The sign-in link did not work" error={error} /> : null}
      <Form onSubmit={submit} className="stack">
        <TextField isRequired value={token} onChange={setToken} type="password" autoComplete="off">
          <Label>API token</Label>
          <Input className="input" />
          <FieldError />
        </TextField>
        {signIn.error ? <ErrorNote error={signIn.error} /> : null}
        <div>
          <Button type="submit" className="button primary" isPending={signIn.isPending}>
            Sign in
          </Button>
        </div>
      </Form>
    </main>
  );
}
