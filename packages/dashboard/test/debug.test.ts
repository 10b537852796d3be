import { it } from 'vitest';
import { signIn, startDashboardWorld } from './support/dashboard-world.js';

it('debug', async () => {
  const world = await startDashboardWorld();
  await world.publish(new URL('./fixtures/showcase', import.meta.url).pathname);
  const page = await world.page();
  await signIn(page, world.url, world.tokens.ada);
  await page.goto(`${world.url}/integrations/showcase`);
  await page.getByRole('button', { name: 'Install' }).click();
  await page.getByRole('heading', { level: 1, name: 'Showcase' }).waitFor();
  await page.waitForTimeout(1500);
  await page.screenshot({ path: '/tmp/dev/inst.png', fullPage: true });
  console.log(
    (
      await page
        .locator('form')
        .first()
        .evaluate((f) => f.outerHTML)
    ).slice(0, 3000),
  );
  await world.close();
}, 60_000);
