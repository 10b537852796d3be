/** axe-core in the page: the WCAG 2 A/AA problems of the screen as it is now, one line each. */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

interface Violation {
  id: string;
  help: string;
  nodes: { target: string[] }[];
}

/** Needs a page opened with `bypassCSP` (the page's policy refuses the injected script otherwise). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const found = (await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: unknown[] }> } }
    ).axe;
    // React Aria's live announcer (visually hidden) keeps "pending" announcements whose label
    // pointed at a button of the page before; it is not part of any screen.
    const result = await axe.run(
      { exclude: [['[data-live-announcer]']] },
      { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } },
    );
    return result.violations;
  })) as Violation[];
  return found.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}
