import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from './client';

/**
 * Once the session has ended (expired, signed out elsewhere, token revoked): while a page is open,
 * it stays, under a sign-in dialog, so nothing typed is lost; with no session yet, the sign-in screen.
 */
function endedSession(error: unknown) {
  if (!(error instanceof ApiError && error.status === 401)) return;
  if (queryClient.getQueryData(['session'])) queryClient.setQueryData(SESSION_ENDED_KEY, true);
  else queryClient.setQueryData(['session'], null);
}

/** True while the session has ended under an open page (the sign-in dialog shows). */
export const SESSION_ENDED_KEY = ['session-ended'] as const;

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: endedSession }),
  mutationCache: new MutationCache({ onError: endedSession }),
  defaultOptions: {
    queries: {
      // A refusal (401, 403, 404) will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});
