import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from './client';

/** Answers the sign-in screen once the session has ended (signed out elsewhere, expired, token revoked). */
function endedSession(error: unknown) {
  if (error instanceof ApiError && error.status === 401) queryClient.setQueryData(['session'], null);
}

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
