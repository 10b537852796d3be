/**
 * Real Chromium (Debian's, at /usr/bin/chromium; `.ci/run` installs it) driven by playwright-core.
 * `npx playwright install` downloads its own browser build, which cannot be fetched here.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = process.env.PORTICO_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true, timeout: 30_000 });
}

const screenshots = new URL('../../../../docs/screenshots/', import.meta.url).pathname;

/** Saves a screenshot of the page (whole, or what is in view) to docs/screenshots/NAME.png, only when PORTICO_SCREENSHOTS=1 (CI leaves them be). */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  if (process.env.PORTICO_SCREENSHOTS !== '1') return;
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: `${screenshots}${name}.png`, fullPage });
}

/** The text of the elements a control's aria-describedby points at, joined by a space. */
export async function description(locator: Locator): Promise<string> {
  const ids = (await locator.getAttribute('aria-describedby')) ?? '';
  const texts = await Promise.all(
    ids
      .split(' ')
      .filter(Boolean)
      .map((id) => locator.page().locator(`[id="${id}"]`).textContent()),
  );
  return texts.map((text) => (text ?? '').trim()).join(' ');
}

/**
 * After a press of Connect: signs in as `ada` on the test OAuth provider's development sign-in
 * page (oidc-provider's, testing/src/test-support/oauth-provider.ts) and grants its consent.
 */
export async function signInAtProvider(page: Page, providerUrl: string): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(providerUrl));
  await page.locator('input[name="login"]').fill('ada');
  await page.locator('input[name="password"]').fill('lovelace');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]').click();
}
