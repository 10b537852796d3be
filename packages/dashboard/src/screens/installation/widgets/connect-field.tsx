import type { FieldProps } from '@rjsf/utils';
import { useMutation } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, call } from '../../../api/client';
import { ErrorNote } from '../../../components/error-note';
import { useManagePermission } from '../manage-permission';
import { type FormContext, fieldOf } from './form-context';

/**
 * A `button` property: Connect starts the integration's OAuth flow for this installation from the
 * signed-in session (a short-lived signed start link), and the page shows "connected" once the
 * flow has stored the credentials.
 */
export function ConnectField({ name, schema, registry }: FieldProps) {
  const context = registry.formContext as FormContext;
  const property = name;
  const field = fieldOf(context, property);
  const title = field?.title ?? schema.title ?? property;
  const permission = useManagePermission();
  const start = useMutation({
    mutationFn: () =>
      call(
        api.POST('/v1/installations/{id}/oauth/start', {
          params: { path: { id: context.installationId } },
          body: { property },
        }),
      ),
    onSuccess({ url }) {
      window.location.assign(url);
    },
  });
  return (
    <fieldset className="field plain">
      <legend className="label">{title}</legend>
      {field?.description ? <span className="description">{field.description}</span> : null}
      <div className="row">
        <Button
          className="button"
          isPending={start.isPending}
          onPress={() => start.mutate()}
          isDisabled={!permission.allowed}
        >
          {field?.connected ? 'Reconnect' : (field?.buttonText ?? 'Connect')}
        </Button>
        {field?.connected ? (
          <span className="status active">connected</span>
        ) : (
          <span className="muted">not connected</span>
        )}
      </div>
      {start.error ? <ErrorNote error={start.error} /> : null}
    </fieldset>
  );
}
