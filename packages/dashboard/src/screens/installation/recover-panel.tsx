import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Input, Label, TextField } from 'react-aria-components';
import { api, call } from '../../api/client';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorNote } from '../../components/error-note';
import { StatusText } from '../../components/status-text';
import { MemberNote, useManagePermission } from './manage-permission';

/** Recover failed since…: redeliver every failed delivery in a time window, as a background job with its progress. */
export function RecoverPanel({ installationId }: { installationId: string }) {
  const permission = useManagePermission();
  const client = useQueryClient();
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 24 * 3600_000)));
  const start = useMutation({
    mutationFn: () =>
      call(
        api.POST('/v1/installations/{id}/deliveries/recover', {
          params: { path: { id: installationId } },
          body: { since: new Date(since).toISOString() },
        }),
      ),
  });
  const job = useQuery({
    queryKey: ['recovery', start.data?.id],
    queryFn: () => call(api.GET('/v1/recoveries/{id}', { params: { path: { id: start.data?.id ?? '' } } })),
    enabled: start.data !== undefined,
    refetchInterval: (query) => (query.state.data?.status === 'running' || !query.state.data ? 1000 : false),
  });
  const progress = job.data ?? start.data;
  if (progress && progress.status !== 'running')
    void client.invalidateQueries({ queryKey: ['deliveries', installationId] });
  const valid = !Number.isNaN(new Date(since).getTime());
  return (
    <section className="panel" aria-labelledby="recover-heading">
      <h3 id="recover-heading">Recover failed deliveries</h3>
      <div className="row">
        <TextField value={since} onChange={setSince} type="datetime-local" isInvalid={!valid}>
          <Label>Failed since</Label>
          <Input className="input" />
        </TextField>
        <ConfirmButton
          isDisabled={!valid || progress?.status === 'running' || !permission.allowed}
          isPending={start.isPending}
          onConfirm={() => start.mutate()}
          title="Recover failed deliveries?"
          message={
            <p>
              Every delivery that failed since {valid ? new Date(since).toLocaleString() : 'then'} is sent again, to the
              URL configured now, with its original webhook-id (receivers that deduplicate on it skip what they already
              have).
            </p>
          }
          confirmLabel="Recover"
        >
          Recover failed since…
        </ConfirmButton>
      </div>
      <MemberNote can="recover failed deliveries" />
      {progress ? (
        <div role="status" aria-live="polite" className="stack">
          <div className="row">
            <StatusText status={progress.status} label="Recovery" />
            <span>
              {progress.done} of {progress.total} failed deliveries redelivered
            </span>
          </div>
          <div className="progress" aria-hidden="true">
            <div style={{ width: `${progress.total ? (100 * progress.done) / progress.total : 100}%` }} />
          </div>
          {progress.errors > 0 ? (
            <ErrorNote
              error={
                new Error(
                  `${progress.errors} could not be redelivered${progress.lastError ? `: ${progress.lastError}` : ''}. Re-enable their endpoint, then recover again.`,
                )
              }
            />
          ) : null}
        </div>
      ) : null}
      {start.error ? <ErrorNote error={start.error} /> : null}
      {job.error ? <ErrorNote error={job.error} /> : null}
    </section>
  );
}

/** A date as a datetime-local input value, in the browser's time zone. */
function localInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
