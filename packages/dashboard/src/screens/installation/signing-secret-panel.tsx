import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { api, call } from '../../api/client';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorNote } from '../../components/error-note';
import { TimeText } from '../../components/time-text';

/**
 * The webhook signing secret, the one place it is shown and changed: hidden until Reveal (then
 * Hide), Copy, and Rotate after a question; after a rotation the current secret and the previous
 * one, with the time it stops signing.
 */
export function SigningSecretPanel({ installationId }: { installationId: string }) {
  const client = useQueryClient();
  const key = ['signing-secret', installationId];
  const path = { params: { path: { id: installationId } } };
  const [shown, setShown] = useState(false);
  const secrets = useQuery({
    queryKey: key,
    queryFn: () => call(api.GET('/v1/installations/{id}/signing-secret', path)),
    enabled: shown,
    staleTime: 0,
  });
  const rotate = useMutation({
    mutationFn: () => call(api.POST('/v1/installations/{id}/signing-secret/rotate', path)),
    onSuccess(answer) {
      client.setQueryData(key, answer);
      setShown(true);
    },
  });
  const data = shown ? secrets.data : undefined;
  return (
    <section aria-labelledby="secret-heading" className="panel">
      <h2 id="secret-heading">Signing secret</h2>
      <p className="muted">
        Receivers check <code>X-Platform-Signature</code>, or the Standard Webhooks <code>webhook-signature</code>, with
        this secret as it is shown. After Rotate, the new secret signs every delivery and the previous one also signs
        for 24 hours (the headers carry both), so receivers can switch without missing a delivery.
      </p>
      {data ? (
        <>
          <SecretRow key={data.secret} label={data.previous.length > 0 ? 'Current' : 'Secret'} secret={data.secret} />
          {data.previous.map((previous) => (
            <SecretRow
              key={previous.secret}
              label={
                <>
                  Previous, signs until <TimeText at={previous.expiresAt} />
                </>
              }
              secret={previous.secret}
            />
          ))}
        </>
      ) : (
        <p className="muted">{shown && secrets.isPending ? 'Loading…' : 'Hidden.'}</p>
      )}
      <div className="row">
        <Button className="button" onPress={() => setShown((before) => !before)}>
          {shown ? 'Hide' : 'Reveal'}
        </Button>
        <ConfirmButton
          danger
          title="Rotate the signing secret?"
          message="A new secret signs every delivery from now on. The current one keeps signing for 24 hours, so update your receivers within a day."
          confirmLabel="Rotate secret"
          onConfirm={() => rotate.mutate()}
          isPending={rotate.isPending}
        >
          Rotate
        </ConfirmButton>
        <span role="status" className="muted">
          {rotate.isSuccess
            ? 'Rotated: the new secret signs from now on; the previous one also signs for 24 hours.'
            : ''}
        </span>
      </div>
      {secrets.error ? <ErrorNote error={secrets.error} /> : null}
      {rotate.error ? <ErrorNote title="Not rotated" error={rotate.error} /> : null}
    </section>
  );
}

function SecretRow({ label, secret }: { label: React.ReactNode; secret: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  return (
    <div className="secret-row">
      <span>{label}:</span>
      <code className="secret">{secret}</code>
      <Button
        className="button"
        aria-label={`Copy ${typeof label === 'string' ? label.toLowerCase() : 'previous'} secret`}
        onPress={() =>
          navigator.clipboard.writeText(secret).then(
            () => setCopied('yes'),
            () => setCopied('no'),
          )
        }
      >
        Copy
      </Button>
      <span role="status" className="muted">
        {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Could not copy: select the secret and copy it.' : ''}
      </span>
    </div>
  );
}
