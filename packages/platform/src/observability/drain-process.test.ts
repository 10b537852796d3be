/**
 * Draining as operators run it: `portico serve` with PORTICO_DRAIN_SECONDS, sent SIGTERM, answers
 * /readyz 503 `draining` while it keeps serving, then stops with exit code 0. On both back ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, backends, SECRET_KEY } from '../test-support/backends.js';
import { type ServeProcess, spawnServe } from '../test-support/serve-process.js';
import { until } from '../test-support/webhook-world.js';

const serves: ServeProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const serve of serves.splice(0)) if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.each(backends)('a portico serve process on $name, stopped with SIGTERM', (backend) => {
  it('answers /readyz 503 draining for its drain time, still serving, then exits 0', async () => {
    const { config, cleanup } = await backend.fresh();
    cleanups.push(cleanup);
    const serve = await spawnServe({
      PORTICO_DATA_DIR: config.dataDir,
      PORTICO_DRAIN_SECONDS: '3',
      PORTICO_LOG_LEVEL: 'warn',
      ...(config.databaseUrl
        ? { PORTICO_DATABASE_URL: config.databaseUrl, PORTICO_SECRET_KEY: SECRET_KEY, PORTICO_ADMIN_TOKEN: ADMIN_TOKEN }
        : {}),
    });
    serves.push(serve);
    const ready = await fetch(`${serve.url}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { ready: true } });

    serve.child.kill('SIGTERM');
    const draining = await until('/readyz to answer 503', async () => {
      const response = await fetch(`${serve.url}/readyz`);
      return response.status === 503 ? await response.json() : undefined;
    });
    expect(draining).toEqual({ error: { code: 'draining', message: expect.stringContaining('stopping') } });
    // Still serving meanwhile.
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
    expect(serve.child.exitCode).toBeNull();

    expect(await serve.exited).toBe(0);
  }, 60_000);
});
