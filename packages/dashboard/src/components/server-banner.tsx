import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError } from '../api/client';

/**
 * A banner at the top of every page while the server cannot be reached: the last read failed at
 * the network level. Meanwhile it asks `/healthz` every few seconds; once the server answers, the
 * banner goes and the page reads everything again.
 */
export function ServerBanner() {
  const client = useQueryClient();
  const [down, setDown] = useState(false);
  useEffect(
    () =>
      client.getQueryCache().subscribe((event) => {
        if (event.type !== 'updated') return;
        if (event.action.type === 'error')
          setDown(event.action.error instanceof ApiError && event.action.error.code === 'network');
        else if (event.action.type === 'success') setDown(false);
      }),
    [client],
  );
  useEffect(() => {
    if (!down) return;
    const timer = setInterval(() => {
      fetch('/healthz', { cache: 'no-store' })
        .then((response) => {
          if (!response.ok) return;
          setDown(false);
          void client.invalidateQueries();
        })
        .catch(() => {});
    }, 3_000);
    return () => clearInterval(timer);
  }, [down, client]);
  if (!down) return null;
  return (
    <div role="alert" className="banner">
      The Portico server cannot be reached: what you see may be out of date, and nothing is saved until it answers
      again. Check that it is running; this page retries on its own.
    </div>
  );
}
