/** `portico serve` as operators run it: the real binary, stopped with a signal while workerd workers run. */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE } from '../../../manifest/src/test-support/manifests.js';
import { descendantsOf, isRunning } from '../../../platform/src/hosts/proc.js';
import { until } from '../../../platform/src/test-support/webhook-world.js';
import { bin, type CliProcess, spawnCli } from '../test-support/dev-process.js';

const ADMIN = 'pta_serve_test_admin_token_0123456789';
const running: CliProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('portico serve', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`on ${signal} closes the platform and its workerd workers, then exits 0 (Miniflare's own listeners would exit at once)`, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'portico-serve-'));
      dirs.push(dataDir);
      const server = spawnCli(['serve', '--port', '0'], {
        cwd: dataDir,
        env: { PORTICO_DATA_DIR: dataDir, PORTICO_ADMIN_TOKEN: ADMIN, PORTICO_LOG_LEVEL: 'info' },
      });
      running.push(server);
      const url = (await server.waitFor(/running at (http:\/\/\S+)/))[1] as string;
      const call = async (path: string, body: unknown) => {
        const response = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: await response.json() };
      };
      expect((await call('/v1/orgs', { id: 'acme', title: 'Acme' })).status).toBe(201);
      const script = 'export default { fetch: () => Response.json({ ok: true }) };';
      expect((await call('/v1/integrations', { manifest: BASE, script })).status).toBe(201);
      const installed = await call('/v1/orgs/acme/installations', { integration: 'demo' });
      // A request to the public endpoint starts the integration's workerd worker.
      const answer = await fetch(`${url}/v1/installations/${installed.body.id}/public`, { method: 'POST' });
      expect(installed.status).toBe(201);
      expect(await answer.json()).toEqual({ ok: true });
      const workers = descendantsOf([server.child.pid as number]).filter((p) => p.comm === 'workerd');
      expect(workers).not.toEqual([]);
      server.child.kill(signal);
      expect(await server.exited).toBe(0);
      expect(server.stdout()).toMatch(/"msg":"stopped"/);
      expect(workers.filter((p) => isRunning(p.pid, p.startTicks))).toEqual([]);
    }, 60_000);
  }

  it('with --exit-with-parent stops as on SIGTERM once the process that started it is killed with SIGKILL', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-serve-'));
    dirs.push(dataDir);
    const log = join(dataDir, 'serve.log');
    // A shell starts the server and waits for it, as npm does; SIGKILL ends the shell and tells the server nothing.
    const shell = spawn(
      'sh',
      ['-c', '"$0" "$1" serve --port 0 --exit-with-parent > "$2" 2>&1 & echo $!; wait', process.execPath, bin, log],
      {
        cwd: dataDir,
        env: {
          PATH: process.env.PATH ?? '',
          PORTICO_DATA_DIR: dataDir,
          PORTICO_ADMIN_TOKEN: ADMIN,
          PORTICO_LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let printed = '';
    shell.stdout.on('data', (chunk) => {
      printed += chunk;
    });
    const pid = await until('the server pid', () =>
      /^\d+\n/.test(printed) ? Number.parseInt(printed, 10) : undefined,
    );
    try {
      await until('the server to listen', async () =>
        /running at http/.test(await readFile(log, 'utf8').catch(() => '')) ? true : undefined,
      );
      shell.kill('SIGKILL');
      await until('the server to end', () => (isRunning(pid) ? undefined : true));
      const text = await readFile(log, 'utf8');
      expect(text).toMatch(/the process that started portico serve \(pid \d+\) has ended: stopping/);
      expect(text).toMatch(/"msg":"stopped"/);
    } finally {
      if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 60_000);

  it('takes --metrics-token: /metrics answers only that token', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-serve-'));
    dirs.push(dataDir);
    const token = 'metrics-token-from-the-flag';
    const server = spawnCli(['serve', '--port', '0', '--metrics-token', token], {
      cwd: dataDir,
      env: { PORTICO_DATA_DIR: dataDir, PORTICO_ADMIN_TOKEN: ADMIN, PORTICO_LOG_LEVEL: 'warn' },
    });
    running.push(server);
    const url = (await server.waitFor(/running at (http:\/\/\S+)/))[1] as string;
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/^portico_/m);
  }, 60_000);

  it('refuses an --alert-url that is not http(s), naming what is wrong, and does not start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-serve-'));
    dirs.push(dataDir);
    const server = spawnCli(['serve', '--port', '0', '--alert-url', 'ftp://alerts.example.com/x'], {
      cwd: dataDir,
      env: { PORTICO_DATA_DIR: dataDir, PORTICO_ADMIN_TOKEN: ADMIN },
    });
    running.push(server);
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toMatch(/--alert-url must be an http\(s\) URL .* got "ftp:\/\/alerts.example.com\/x"/);
  }, 60_000);
});
