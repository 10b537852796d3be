/**
 * Workers cost what they are used, and none outlives its server: a worker idle for `idleMs` is
 * stopped (its process gone) and comes back on the next dispatch; beyond `maxWorkers` the least
 * recently used idle worker is stopped, never one in the middle of a dispatch; the workerd
 * processes of a `portico serve` killed with SIGKILL end with it. Real workerd processes
 * throughout; every wait is bounded and no assertion is about speed.
 */
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { ADMIN_TOKEN, backends, SECRET_KEY } from '../test-support/backends.js';
import { fetchRequest } from '../test-support/host-request.js';
import { type ServeProcess, spawnServe } from '../test-support/serve-process.js';
import { until } from '../test-support/webhook-world.js';
import type { HostResponse, IntegrationBundle } from './host.js';
import { isRunning, processes } from './proc.js';
import { type StoppedWorker, WorkerdHost, type WorkerdHostOptions } from './workerd-host.js';

const root = new URL('../../../../', import.meta.url).pathname;
const wrapper = new URL('../../libexec/workerd-with-parent', import.meta.url).pathname;

/** `/ok` answers at once; `/hold` waits for the test to release its outbound request. */
const SOURCE = `
import { createIntegration } from '@portico/runtime';
export default createIntegration({
  async fetch(request) {
    const path = new URL(request.url).pathname.replace('/public', '');
    if (path === '/hold') return new Response('held, then ' + (await (await fetch('https://hold.test/')).text()));
    return new Response('ok');
  },
});`;

let script: string | undefined;
async function bundle(name: string): Promise<IntegrationBundle> {
  script ??= (
    await build({
      stdin: { contents: SOURCE, resolveDir: root, loader: 'ts' },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['source'],
      mainFields: ['module', 'main'],
      write: false,
      logLevel: 'silent',
    })
  ).outputFiles[0]?.text;
  return { name, version: 1, script: script ?? '' };
}

const text = (body: Uint8Array) => new TextDecoder().decode(body);

/**
 * A host whose integrations' outbound requests to hold.test wait until the test releases them,
 * so a test knows a dispatch is in flight; and a record of every stopped worker.
 */
function holdingHost(options: Partial<WorkerdHostOptions>) {
  const held = new Map<string, () => void>();
  const stopped: StoppedWorker[] = [];
  const host = new WorkerdHost({
    // Held dispatches wait for the test, however slowly the machine starts the others.
    timeoutMs: 60_000,
    ...options,
    onStopped: (worker) => void stopped.push(worker),
    egress: async (_request, who) => {
      await new Promise<void>((release) => held.set(who.integration, release));
      return new Response('released');
    },
  });
  hosts.push(host);
  return {
    host,
    stopped,
    /** Dispatches `/hold` to `name`; resolves once the integration waits, mid-dispatch, with its answer to come. */
    async hold(name: string): Promise<{ answer: Promise<HostResponse> }> {
      const answer = host.dispatch(await bundle(name), fetchRequest('/hold'));
      let settled: unknown;
      answer.then(
        () => (settled = 'it answered'),
        (error) => (settled = error),
      );
      await until(
        `${name} to be mid-dispatch`,
        () => {
          if (settled !== undefined) throw new Error(`${name} did not wait to be released: ${settled}`);
          return held.get(name);
        },
        30_000,
      );
      return { answer };
    },
    release(name: string) {
      held.get(name)?.();
      held.delete(name);
    },
  };
}

const hosts: WorkerdHost[] = [];
const serves: ServeProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  for (const serve of serves.splice(0)) if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('a worker idle for idleMs', () => {
  it('is stopped, its process gone, and the next dispatch starts it again', async () => {
    const { host, stopped } = holdingHost({ idleMs: 300 });
    const idle = await bundle('idle');
    expect(text((await host.dispatch(idle, fetchRequest('/ok'))).body)).toBe('ok');
    const first = host.pidOf(idle);
    expect(first).toBeDefined();
    expect(isRunning(first as number)).toBe(true);

    await until('the idle worker to be stopped', () => stopped.find((s) => s.name === 'idle'), 10_000);
    expect(stopped).toEqual([{ name: 'idle', version: 1, pid: first, reason: 'idle' }]);
    expect(isRunning(first as number)).toBe(false);
    expect(host.size).toBe(0);
    expect(host.pidOf(idle)).toBeUndefined();

    // On demand again: a new process.
    expect(text((await host.dispatch(idle, fetchRequest('/ok'))).body)).toBe('ok');
    const second = host.pidOf(idle);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(isRunning(second as number)).toBe(true);
    expect(host.size).toBe(1);
  }, 30_000);

  it('is not stopped while a dispatch is in flight or queued, however long it takes', async () => {
    const { host, stopped, hold, release } = holdingHost({ idleMs: 200 });
    const { answer: held } = await hold('busy');
    const queued = host.dispatch(await bundle('busy'), fetchRequest('/ok'));
    // Several idle periods pass with the dispatch in flight; the worker stays.
    await new Promise((r) => setTimeout(r, 1000));
    expect(stopped).toEqual([]);
    release('busy');
    expect(text((await held).body)).toBe('held, then released');
    expect(text((await queued).body)).toBe('ok');
    await until('the worker to be stopped once idle', () => stopped[0], 10_000);
    expect(stopped.map((s) => s.reason)).toEqual(['idle']);
  }, 30_000);

  it('answers a dispatch that arrives while its idle stop is under way, from a new process', async () => {
    const { host, stopped } = holdingHost({ idleMs: 300 });
    const racing = await bundle('racing');
    const answered = await host.dispatch(racing, fetchRequest('/ok'));
    expect(text(answered.body)).toBe('ok');
    const first = host.pidOf(racing) as number;
    const envelope = fetchRequest('/ok');
    // The stop starts by taking the worker off the live list, and its process ends some turns of
    // the event loop later: looking every turn, the dispatch arrives while the stop is under way.
    const deadline = Date.now() + 10_000;
    while (host.size !== 0) {
      if (Date.now() > deadline) throw new Error('the idle worker was not stopped within 10 s');
      await new Promise((r) => setImmediate(r));
    }
    expect(stopped).toEqual([]);
    const again = await host.dispatch(racing, envelope);
    expect(text(again.body)).toBe('ok');
    // The old process had ended before the new one started: never two for one version.
    expect(stopped).toEqual([expect.objectContaining({ name: 'racing', pid: first, reason: 'idle' })]);
    expect(isRunning(first)).toBe(false);
    expect(host.pidOf(racing)).not.toBe(first);
    expect(host.size).toBe(1);
  }, 30_000);
});

describe('the cap on live workers', () => {
  it('stops the least recently used idle worker, never one mid-dispatch, and catches up once one falls idle', async () => {
    const { host, stopped, hold, release } = holdingHost({ maxWorkers: 2, idleMs: 60_000 });
    const [alpha, beta, gamma, delta] = [
      await bundle('alpha'),
      await bundle('beta'),
      await bundle('gamma'),
      await bundle('delta'),
    ];

    expect(text((await host.dispatch(alpha, fetchRequest('/ok'))).body)).toBe('ok');
    const { answer: heldBeta } = await hold('beta'); // beta is busy, alpha idle
    expect(text((await host.dispatch(gamma, fetchRequest('/ok'))).body)).toBe('ok');
    // A third worker: alpha, idle and least recently used, makes room; beta, older than gamma but busy, stays.
    await until('alpha to be stopped', () => stopped[0], 10_000);
    expect(stopped).toEqual([expect.objectContaining({ name: 'alpha', reason: 'evicted' })]);
    expect(isRunning(stopped[0]?.pid as number)).toBe(false);
    expect(host.pidOf(beta)).toBeDefined();
    expect(host.size).toBe(2);

    // Every worker busy: a new one starts anyway and the node is over the cap for a while.
    const { answer: heldGamma } = await hold('gamma');
    const { answer: heldDelta } = await hold('delta');
    expect(host.size).toBe(3);
    expect(stopped).toHaveLength(1);

    // beta falls idle and, being the least recently used idle worker, is stopped; its dispatch answered whole.
    release('beta');
    expect(text((await heldBeta).body)).toBe('held, then released');
    await until('beta to be stopped', () => stopped[1], 10_000);
    expect(stopped[1]).toEqual(expect.objectContaining({ name: 'beta', reason: 'evicted' }));
    expect(host.size).toBe(2);

    release('gamma');
    release('delta');
    expect(text((await heldGamma).body)).toBe('held, then released');
    expect(text((await heldDelta).body)).toBe('held, then released');
    expect(host.size).toBe(2);
    expect(host.pidOf(gamma)).toBeDefined();
    expect(host.pidOf(delta)).toBeDefined();
    expect(stopped.map((s) => s.name)).toEqual(['alpha', 'beta']);
    // alpha comes back on demand; gamma, now the least recently used idle worker, makes room.
    expect(text((await host.dispatch(alpha, fetchRequest('/ok'))).body)).toBe('ok');
    await until('gamma to be stopped', () => stopped[2], 10_000);
    expect(stopped[2]).toEqual(expect.objectContaining({ name: 'gamma', reason: 'evicted' }));
  }, 60_000);
});

describe('workerd ends with the process that started it', () => {
  it('runs workerd through the wrapper, which refuses to start it for a parent that has gone', () => {
    const { host } = holdingHost({});
    expect(host.orphanWarning).toBeUndefined();
    expect(process.env.MINIFLARE_WORKERD_PATH).toBe(wrapper);
    const env = {
      PATH: process.env.PATH ?? '',
      PORTICO_WORKERD_BINARY: process.env.PORTICO_WORKERD_BINARY ?? '',
      PORTICO_WORKERD_SETPRIV: process.env.PORTICO_WORKERD_SETPRIV ?? '',
    };
    const ours = spawnSync(wrapper, ['--version'], {
      env: { ...env, PORTICO_WORKERD_PARENT: String(process.pid) },
      encoding: 'utf8',
    });
    expect(ours.stdout).toMatch(/workerd/);
    expect(ours.status).toBe(0);
    const orphaned = spawnSync(wrapper, ['--version'], {
      env: { ...env, PORTICO_WORKERD_PARENT: '1' },
      encoding: 'utf8',
    });
    expect(orphaned.status).toBe(1);
    expect(orphaned.stderr).toMatch(
      /workerd is not started: process \d+ is not the Portico server 1 that set MINIFLARE_WORKERD_PATH/,
    );
  });

  it('also when `portico serve` is killed with SIGKILL', async () => {
    const sqlite = backends.find((b) => b.name === 'sqlite');
    if (!sqlite) throw new Error('the sqlite test backend is not configured');
    const { config, cleanup } = await sqlite.fresh();
    cleanups.push(cleanup);
    const serve = await spawnServe({
      PORTICO_DATA_DIR: config.dataDir,
      PORTICO_ADMIN_TOKEN: ADMIN_TOKEN,
      PORTICO_SECRET_KEY: SECRET_KEY,
      PORTICO_LOG_LEVEL: 'warn',
    });
    serves.push(serve);
    const admin = client(serve.url, ADMIN_TOKEN);
    expect((await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' })).status).toBe(201);
    const manifest = `name: survivor
title: Survivor
description: Answers its public endpoint
organization: acme
visibility: private
scopes: []
`;
    const published = await admin('POST', '/v1/integrations', { manifest, script: (await bundle('survivor')).script });
    expect(published.status).toBe(201);
    const installed = await admin('POST', '/v1/orgs/acme/installations', { integration: 'survivor' });
    expect(installed.status).toBe(201);
    const answer = await fetch(`${serve.url}/v1/installations/${installed.body.id}/public/ok`);
    expect(await answer.text()).toBe('ok');

    const workerds = processes().filter((p) => p.comm === 'workerd' && p.ppid === serve.child.pid);
    expect(workerds.length).toBeGreaterThan(0);
    serve.child.kill('SIGKILL');
    expect(await serve.exited).toBe('SIGKILL');
    await until(
      'the workerd processes of the killed server to end',
      () => (workerds.every((p) => !isRunning(p.pid, p.startTicks)) ? true : undefined),
      10_000,
    ).catch(() => {
      const left = workerds.filter((p) => isRunning(p.pid, p.startTicks)).map((p) => p.pid);
      throw new Error(`workerd processes ${left.join(', ')} outlived their server (killed with SIGKILL)`);
    });
  }, 60_000);
});
