import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError } from '../api/client';

/** How often an open, visible page asks `/healthz` (it answers without the database: cheap). */
const HEARTBEAT_MS = 2_000;

/** Whether the server answers `/healthz` within a second and a half. */
async function answers(): Promise<boolean> {
  try {
    const response = await fetch('/healthz', { cache: 'no-store', signal: AbortSignal.timeout(1_500) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * A banner kept at the top of the screen (wherever the page is scrolled) while the server cannot
 * be reached. It comes within a few seconds of the server stopping: a visible page asks `/healthz`
 * every two seconds, and any read that fails at the network level (its first attempt, not after
 * its retries) raises it at once. Once the server answers, the banner goes and the page reads
 * everything again.
 */
export function ServerBanner() {
  const client = useQueryClient();
  const [down, setDown] = useState(false);
  useEffect(
    () =>
      client.getQueryCache().subscribe((event) => {
        if (event.type !== 'updated') return;
        const action = event.action;
        if ((action.type === 'error' || action.type === 'failed') && isNetwork(action.error)) setDown(true);
        else if (action.type === 'success') setDown(false);
      }),
    [client],
  );
  useEffect(() => {
    let stopped = false;
    const timer = setInterval(() => {
      if (document.visibilityState !== 'visible') return;
      void answers().then((ok) => {
        if (stopped) return;
        setDown((was) => {
          if (was && ok) void client.invalidateQueries();
          return !ok;
        });
      });
    }, HEARTBEAT_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [client]);
  if (!down) return null;
  return (
    <div role="alert" className="banner">
      The Portico server cannot be reached: what you see may be out of date, and nothing is saved until it answers
      again. Check that it is running; this page retries on its own.
    </div>
  );
}

function isNetwork(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'network';
}
