import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Button } from 'react-aria-components';
import { ConfirmButton } from './confirm-button';
import { ErrorNote } from './error-note';
import { TimeText } from './time-text';

/** A signing secret as the API answers it: the current one, and those still signing after a rotation. */
export interface Secrets {
  secret: string;
  previous: { secret: string; expiresAt: string }[];
}

/**
 * A signing secret, hidden until Reveal (then Hide), each shown secret with Copy, and Rotate after
 * a question; after a rotation the current secret and the previous one, with the time it stops
 * signing. `signs` says what it signs ("every delivery", "every alert"), `receivers` who checks it.
 */
export function RotatingSecret({
  queryKey,
  read,
  rotate: rotateSecret,
  title,
  signs,
  receivers,
}: {
  queryKey: readonly unknown[];
  read: () => Promise<Secrets>;
  rotate: () => Promise<Secrets>;
  /** The question Rotate asks first. */
  title: string;
  signs: string;
  receivers: string;
}) {
  const client = useQueryClient();
  const [shown, setShown] = useState(false);
  const secrets = useQuery({ queryKey, queryFn: read, enabled: shown, staleTime: 0 });
  const rotate = useMutation({
    mutationFn: rotateSecret,
    onSuccess(answer) {
      client.setQueryData(queryKey, answer);
      setShown(true);
    },
  });
  const data = shown ? secrets.data : undefined;
  return (
    <>
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
          title={title}
          message={`A new secret signs ${signs} from now on. The current one keeps signing for 24 hours, so update ${receivers} within a day.`}
          confirmLabel="Rotate secret"
          onConfirm={() => rotate.mutate()}
          isPending={rotate.isPending}
        >
          Rotate
        </ConfirmButton>
        <span role="status" className="muted">
          {rotate.isSuccess
            ? `Rotated: the new secret signs ${signs} from now on; the previous one also signs for 24 hours.`
            : ''}
        </span>
      </div>
      {secrets.error ? <ErrorNote error={secrets.error} /> : null}
      {rotate.error ? <ErrorNote title="Not rotated" error={rotate.error} /> : null}
    </>
  );
}

function SecretRow({ label, secret }: { label: ReactNode; secret: string }) {
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
