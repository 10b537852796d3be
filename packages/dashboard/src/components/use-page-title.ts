import { useEffect } from 'react';

/**
 * Names the browser tab (and the history entry) after the screen: `What · Portico`, so a person
 * with several tabs open, or a screen reader announcing the new page, knows where they are.
 */
export function usePageTitle(what: string | undefined): void {
  useEffect(() => {
    document.title = what ? `${what} · Portico` : 'Portico';
  }, [what]);
}
