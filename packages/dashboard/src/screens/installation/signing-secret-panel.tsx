import { useMutation } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, call } from '../../api/client';
import { ErrorNote } from '../../components/error-note';

/** The webhook signing secret: hidden until Reveal; Rotate makes a new one while the old keeps signing 24 h. */
export function SigningSecretPanel({ installationId }: { installationId: string }) {
  const path = { params: { path: { id: installationId } } };
  const reveal = useMutation({ mutationFn: () => call(api.GET('/v1/installations/{id}/signing-secret', path)) });
  const rotate = useMutation({
    mutationFn: () => call(api.POST('/v1/installations/{id}/signing-secret/rotate', path)),
  });
  const shown = rotate.data?.secret ?? reveal.data?.secret;
  return (
    <section aria-labelledby="secret-heading" className="panel">
      <h2 id="secret-heading">Signing secret</h2>
      <p className="muted">
        Receivers check <code>X-Platform-Signature</code> with this secret. After Rotate, the new secret signs every
        delivery and the previous one also signs for 24 hours (the header carries both), so receivers can switch without
        missing a delivery.
      </p>
      <div className="row">
        {shown ? <code className="secret">{shown}</code> : <span className="muted">hidden</span>}
      </div>
      <div className="row">
        <Button className="button" onPress={() => reveal.mutate()} isPending={reveal.isPending}>
          Reveal
        </Button>
        <Button
          className="button danger"
          isPending={rotate.isPending}
          onPress={() => {
            if (window.confirm('Rotate the signing secret? The current one keeps signing for 24 hours.'))
              rotate.mutate();
          }}
        >
          Rotate
        </Button>
        {rotate.isSuccess ? (
          <span role="status" className="muted">
            Rotated: the previous secret also signs until {new Date(Date.now() + 24 * 3600_000).toLocaleString()}.
          </span>
        ) : null}
      </div>
      {reveal.error ? <ErrorNote error={reveal.error} /> : null}
      {rotate.error ? <ErrorNote error={rotate.error} /> : null}
    </section>
  );
}
