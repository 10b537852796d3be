import { useEffect, useRef, useState } from 'react';
import { codeInFragment, useSignIn } from '../../session/session';

/**
 * Signs in with the one-time code of a sign-in link (`/#code=…`), then removes the fragment from
 * the address and the history, signed in or not: the code works once. The code is read at first
 * load and whenever the fragment changes: a link pasted into a tab already open on the dashboard
 * changes only the fragment (the browser does not load the page again), and signs in too.
 */
export function useCodeFromFragment(): { pending: boolean; error: unknown } {
  const signIn = useSignIn();
  const [code, setCode] = useState(() => codeInFragment(window.location.hash));
  const used = useRef<string | undefined>(undefined);
  useEffect(() => {
    const read = () => {
      const next = codeInFragment(window.location.hash);
      if (next !== undefined) setCode(next);
    };
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, []);
  useEffect(() => {
    if (code === undefined || used.current === code) return;
    used.current = code;
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    signIn.mutate({ code });
  }, [code, signIn]);
  return { pending: code !== undefined && (signIn.isIdle || signIn.isPending), error: signIn.error };
}
