import { api, call } from '../../api/client';
import { RotatingSecret } from '../../components/rotating-secret';
import { MemberNote, useManagePermission } from './manage-permission';

/**
 * The webhook signing secret, the one place it is shown and changed: hidden until Reveal (then
 * Hide), Copy, and Rotate after a question; after a rotation the current secret and the previous
 * one, with the time it stops signing.
 */
export function SigningSecretPanel({ installationId }: { installationId: string }) {
  const path = { params: { path: { id: installationId } } };
  // A member may not read the secret (whoever holds it can sign as Portico): no Reveal, the reason.
  const permission = useManagePermission();
  return (
    <section aria-labelledby="secret-heading" className="panel">
      <h2 id="secret-heading">Signing secret</h2>
      <p className="muted">
        Receivers check <code>X-Platform-Signature</code>, or the Standard Webhooks <code>webhook-signature</code>, with
        this secret as it is shown. After Rotate, the new secret signs every delivery and the previous one also signs
        for 24 hours (the headers carry both), so receivers can switch without missing a delivery.
      </p>
      <MemberNote can="reveal or rotate the signing secret" />
      {permission.allowed ? (
        <RotatingSecret
          queryKey={['signing-secret', installationId]}
          read={() => call(api.GET('/v1/installations/{id}/signing-secret', path))}
          rotate={() => call(api.POST('/v1/installations/{id}/signing-secret/rotate', path))}
          title="Rotate the signing secret?"
          signs="every delivery"
          receivers="your receivers"
        />
      ) : null}
    </section>
  );
}
