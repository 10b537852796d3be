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
      <section aria-labelledby="how-heading" className="note">
        <h2 id="how-heading">Other ways in</h2>
        <ul>
          <li>
            <strong>A sign-in link</strong> (<code>…/#code=…</code>) from your operator signs you in without a token:
            open it, or paste it into this tab’s address bar. Each link works once, within 15 minutes.
          </li>
          <li>
            <strong>The admin token</strong> is printed by <code>portico serve</code> on its first start and kept in the
            file <code>admin-token</code> of its data directory (<code>.portico/admin-token</code> unless{' '}
            <code>--data-dir</code> says otherwise). Under <code>portico dev</code> it is in{' '}
            <code>.portico-dev/admin-token</code> of the integration’s folder.
          </li>
        </ul>
      </section>
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
