import { useEffect, useRef, useState } from 'react';
import { codeInFragment, useSignIn } from '../../session/session';

/**
 * Signs in with the one-time code of `portico serve`'s link (`/#code=…`), then removes the
 * fragment from the address and the history, signed in or not: the code works once.
 */
export function useCodeFromFragment(): { pending: boolean; error: unknown } {
  const signIn = useSignIn();
  const [code] = useState(() => codeInFragment(window.location.hash));
  const started = useRef(false);
  useEffect(() => {
    if (code === undefined || started.current) return;
    started.current = true;
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    signIn.mutate({ code });
  }, [code, signIn]);
  return { pending: code !== undefined && (signIn.isIdle || signIn.isPending), error: signIn.error };
}
