/**
 * The signed-in session (decision 016): a cookie the page cannot read, and the CSRF token that
 * GET/POST /v1/session answer. Signing in takes an API token or the one-time code of the link
 * `portico serve` prints (`/#code=…`, read from the fragment and removed from the address).
 */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, call, type Schemas, setCsrfToken } from '../api/client';

export type Session = Schemas['Session'];

export const SESSION_KEY = ['session'] as const;

async function readSession(): Promise<Session | null> {
  try {
    const session = await call(api.GET('/v1/session'));
    setCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setCsrfToken(undefined);
      return null;
    }
    throw error;
  }
}

/** The session query's options (screens/route-preload.ts asks for it as the app starts). */
export const sessionQuery = { queryKey: SESSION_KEY, queryFn: readSession, staleTime: Number.POSITIVE_INFINITY };

/** The session, or null when nobody is signed in. */
export function useSession() {
  return useQuery(sessionQuery);
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (credential: { token: string } | { code: string }) =>
      call(api.POST('/v1/session', { body: credential })),
    async onSuccess(session) {
      setCsrfToken(session.csrfToken);
      forgetAllButSession(client);
      await settleSession(client, session);
    },
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => call(api.DELETE('/v1/session')),
    async onSettled() {
      setCsrfToken(undefined);
      forgetAllButSession(client);
      await settleSession(client, null);
    },
  });
}

/**
 * Sets who is signed in. A read of the session still under way (started before signing in, say by
 * the first render while a `#code=` link signs in) is cancelled first: its older answer would
 * otherwise arrive afterwards and replace this one (the sign-in screen came back, now and then).
 */
async function settleSession(client: QueryClient, session: Session | null) {
  await client.cancelQueries({ queryKey: SESSION_KEY });
  client.setQueryData(SESSION_KEY, session);
}

/** What another person's session read must not be shown to the next one (the session query itself stays observed). */
function forgetAllButSession(client: QueryClient) {
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
}

/** The one-time code in the address's fragment (`#code=…`), if there is one. */
export function codeInFragment(hash: string): string | undefined {
  const code = new URLSearchParams(hash.replace(/^#/, '')).get('code');
  return code ? code : undefined;
}
