import type { FieldProps } from '@rjsf/utils';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { api, call } from '../../../api/client';
import { keys } from '../../../api/queries';
import { ErrorNote } from '../../../components/error-note';
import { useManagePermission } from '../manage-permission';
import { type FormContext, fieldOf } from './form-context';

/**
 * A `button` property: Connect starts the integration's OAuth flow for this installation from the
 * signed-in session (a short-lived signed start link) in a popup window, so the dashboard stays
 * where it is; the page shows "connected" once the flow has stored the credentials (read again
 * while the popup is open and when it closes). Where popups are blocked, the tab itself goes.
 */
export function ConnectField({ name, schema, registry }: FieldProps) {
  const context = registry.formContext as FormContext;
  const property = name;
  const field = fieldOf(context, property);
  const title = field?.title ?? schema.title ?? property;
  const permission = useManagePermission();
  const client = useQueryClient();
  const popup = useRef<Window | null>(null);
  const [waiting, setWaiting] = useState(false);
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => {
      void client.invalidateQueries({ queryKey: keys.installation(context.installationId) });
      if (popup.current === null || popup.current.closed) setWaiting(false);
    }, 1_000);
    return () => clearInterval(timer);
  }, [waiting, client, context.installationId]);
  const start = useMutation({
    mutationFn: () =>
      call(
        api.POST('/v1/installations/{id}/oauth/start', {
          params: { path: { id: context.installationId } },
          body: { property },
        }),
      ),
    onSuccess({ url }) {
      const opened = popup.current;
      if (opened && !opened.closed) {
        opened.location.href = url;
        setWaiting(true);
      } else window.location.assign(url);
    },
    onError() {
      popup.current?.close();
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
          onPress={() => {
            // Opened now, while the press counts as the person's: a popup opened after the
            // answer would be blocked. It is sent to the provider once the link is made.
            popup.current = window.open('about:blank', 'portico-oauth', 'popup,width=560,height=720');
            start.mutate();
          }}
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
      {waiting && !field?.connected ? (
        <p role="status" className="muted">
          Finish connecting in the window that opened; this page shows the result.
        </p>
      ) : null}
      {start.error ? <ErrorNote error={start.error} /> : null}
    </fieldset>
  );
}
