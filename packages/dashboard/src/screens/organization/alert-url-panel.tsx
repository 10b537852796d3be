import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, FieldError, Form, Input, Label, Text, TextField } from 'react-aria-components';
import { ApiError, api, call } from '../../api/client';
import { ErrorNote } from '../../components/error-note';
import { MessageText } from '../../components/message-text';
import { RotatingSecret } from '../../components/rotating-secret';

/** The server names the field `url`; the person sees its label. */
const TITLES = new Map([['url', 'Alert URL']]);

/** The message the server gave for the `url` field of a refused save, if it named that field. */
function urlError(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const errors = error.details.errors as { path?: string; message?: string }[] | undefined;
  return errors?.find((e) => e.path === 'url')?.message ?? error.message;
}

/**
 * Where alerts about the organization's installations go (`delivery.failed`, `endpoint.disabled`,
 * `endpoint.recovered`, `integration.circuit_opened`): admins set and clear the URL, and reveal and
 * rotate the secret the alerts are signed with; members see the URL, and why they cannot change it.
 */
export function AlertUrlPanel({ org, isAdmin }: { org: string; isAdmin: boolean }) {
  const client = useQueryClient();
  const key = ['alert-url', org];
  const path = { params: { path: { org } } };
  const setting = useQuery({ queryKey: key, queryFn: () => call(api.GET('/v1/orgs/{org}/alert-url', path)) });
  const [draft, setDraft] = useState<string | undefined>();
  const [feedback, setFeedback] = useState('');
  const saved = (answer: NonNullable<typeof setting.data>, said: string) => {
    client.setQueryData(key, answer);
    setDraft(undefined);
    setFeedback(said);
  };
  const save = useMutation({
    mutationFn: (url: string) => call(api.PUT('/v1/orgs/{org}/alert-url', { ...path, body: { url } })),
    onMutate: () => setFeedback(''),
    onSuccess: (answer) => saved(answer, `Saved: alerts about this organization’s installations go to ${answer.url}.`),
  });
  const clear = useMutation({
    mutationFn: () => call(api.DELETE('/v1/orgs/{org}/alert-url', path)),
    onMutate: () => setFeedback(''),
    onSuccess: (answer) => {
      save.reset();
      saved(answer, 'Cleared: alerts about this organization’s installations go only to the operator.');
    },
  });
  const current = setting.data?.url ?? null;
  const fieldError = urlError(save.error);
  return (
    <section aria-labelledby="alerts-heading" className="panel">
      <h2 id="alerts-heading">Alerts</h2>
      <p className="muted">
        When a delivery is given up, an endpoint is disabled or recovers, or an integration’s circuit breaker opens, a
        signed JSON alert is POSTed to this URL, about any installation in this organization. Receivers check its{' '}
        <code>X-Platform-Signature</code> with the alert signing secret.
      </p>
      {setting.isPending ? <p className="muted">Loading…</p> : null}
      {setting.error ? <ErrorNote error={setting.error} /> : null}
      {setting.data && !isAdmin ? (
        <>
          <p>
            {current ? (
              <>
                Alert URL: <code className="secret">{current}</code>
              </>
            ) : (
              'No alert URL is set.'
            )}
          </p>
          <p className="muted">Only organization admins change the alert URL and see its signing secret.</p>
        </>
      ) : null}
      {setting.data && isAdmin ? (
        <Form
          className="stack"
          validationBehavior="aria"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate(draft ?? current ?? '');
          }}
        >
          <TextField
            value={draft ?? current ?? ''}
            onChange={(value) => {
              setDraft(value);
              setFeedback('');
              if (save.error) save.reset();
            }}
            isInvalid={fieldError !== undefined}
            validationBehavior="aria"
            className="field"
          >
            <Label>Alert URL</Label>
            <Text slot="description" className="description">
              https, such as https://ops.example.com/portico-alerts. Clear it to stop this organization’s alerts.
            </Text>
            <Input className="input" inputMode="url" autoComplete="off" />
            <FieldError className="field-error">
              {fieldError ? <MessageText message={fieldError} titles={TITLES} /> : null}
            </FieldError>
          </TextField>
          <div className="row">
            <Button type="submit" className="button" isPending={save.isPending}>
              Save
            </Button>
            <Button
              className="button"
              isDisabled={current === null}
              isPending={clear.isPending}
              onPress={() => clear.mutate()}
            >
              Clear
            </Button>
            <span role="status" className="muted">
              {feedback}
            </span>
          </div>
          {save.error && fieldError === undefined ? <ErrorNote title="Not saved" error={save.error} /> : null}
          {clear.error ? <ErrorNote title="Not cleared" error={clear.error} /> : null}
        </Form>
      ) : null}
      {isAdmin && setting.data?.installationId ? <AlertSecret org={org} /> : null}
    </section>
  );
}

/** The secret the organization's alerts are signed with (see RotatingSecret). */
function AlertSecret({ org }: { org: string }) {
  const path = { params: { path: { org } } };
  return (
    <div className="stack">
      <p className="muted">Alert signing secret: your alert receiver checks each alert's signature with it.</p>
      <RotatingSecret
        queryKey={['alert-secret', org]}
        read={() => call(api.GET('/v1/orgs/{org}/alert-url/signing-secret', path))}
        rotate={() => call(api.POST('/v1/orgs/{org}/alert-url/signing-secret/rotate', path))}
        title="Rotate the alert signing secret?"
        signs="every alert"
        receivers="your alert receiver"
      />
    </div>
  );
}
