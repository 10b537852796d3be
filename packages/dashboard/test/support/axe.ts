/** axe-core in the page: the WCAG 2 A/AA problems of the screen as it is now, one line each. */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { withTimeout } from '../../../platform/src/hosts/host.js';

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

interface Violation {
  id: string;
  help: string;
  nodes: { target: string[] }[];
}

/** Needs a page opened with `bypassCSP` (the page's policy refuses the injected script otherwise). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  // (A page evaluate has no time limit of its own; a stuck run closes the page and fails by name.)
  const found = (await withTimeout(
    page.evaluate(async () => {
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
    }),
    AXE_LIMIT_MS,
    () => page.close(),
    'axe’s run in the page',
  )) as Violation[];
  return found.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/**
 * Waits for the layout after a resize: two frames (React's renders of a new width land in between),
 * or half a second where the page draws no frames (a page evaluate has no time limit of its own:
 * one waiting for frames that never came held a CI run until the test's own limit).
 */
async function settled(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        setTimeout(resolve, 500);
        requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
      }),
  );
}

/** An axe run on a dashboard screen takes a second or two; past this it is stuck. */
const AXE_LIMIT_MS = 30_000;

/**
 * The screen as it is now, at 1280 and at 390 px wide on the same page: axe finds no WCAG A/AA
 * problem at either width, and at 390 px the page is no wider than the screen (tables scroll inside
 * it). `what` names the screen in a failure. Leaves the page at the size it had.
 */
export async function checkBothWidths(page: Page, what: string): Promise<void> {
  const before = page.viewportSize() ?? { width: 1280, height: 900 };
  try {
    for (const size of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(size);
      await settled(page);
      if (size.width === 390) {
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(wide, `${what} at 390 px: the page is ${wide} px wide`).toBeLessThanOrEqual(390);
      }
      expect(await axeViolations(page), `${what} at ${size.width} px`).toEqual([]);
    }
  } finally {
    await page.setViewportSize(before);
  }
}
