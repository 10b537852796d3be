import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways when the screen is narrower than it: a named, focusable region (a
 * `section` with a name, so the keyboard scrolls it too), with shadows at the edges that show there
 * is more to see.
 */
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
    <section className="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
