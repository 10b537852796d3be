// Idle memory with many integrations: `portico serve` with N published integrations, each
// installed and dispatched to (so each runs in its own workerd process, a child of the server),
// then after the worker idle timeout has stopped them. Memory is read from /proc.
import { build } from 'esbuild';
import { childrenOf, onEachBackend, pssMiB, rssMiB, sleep, startServer, stopServer } from './bench-support.mjs';

export const IDLE_SETTINGS = {
  integrations: 20,
  /** PORTICO_WORKER_IDLE_SECONDS for this server. */
  idleSeconds: 5,
  /**
   * When the first workers were already stopped for idleness before the last one started, rounds
   * of one more dispatch to all of them at once, until every worker is live at the same moment.
   */
  rounds: 3,
};

/** A minimal SDK integration (createIntegration, one event handler), bundled as publishing does. */
async function integrationScript() {
  const result = await build({
    stdin: {
      contents: `import { createIntegration } from '@portico/runtime';
export default createIntegration({ events: { installation_setup: async () => {} } });`,
      resolveDir: new URL('.', import.meta.url).pathname,
      loader: 'js',
    },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

function memoryOf(serverPid) {
  const workers = childrenOf(serverPid, 'workerd');
  return {
    server: rssMiB(serverPid),
    workers: workers.length,
    workersRss: workers.reduce((sum, pid) => sum + rssMiB(pid), 0),
    workersPss: workers.reduce((sum, pid) => sum + pssMiB(pid), 0),
  };
}

async function benchBackend(label, env, o, script) {
  const { child, call } = await startServer(env);
  try {
    await call('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    const { token } = await call('POST', '/v1/users', { id: 'ada', name: 'Ada' });
    await call('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
    await sleep(1000);
    const atStart = memoryOf(child.pid);

    const installations = [];
    for (let i = 1; i <= o.integrations; i++) {
      const name = `idle-${i}`;
      const manifest = `name: ${name}\ntitle: Idle ${i}\ndescription: Benchmark\norganization: acme\nvisibility: private\nscopes: []\n`;
      await call('POST', '/v1/integrations', { manifest, script }, token);
      installations.push((await call('POST', '/v1/orgs/acme/installations', { integration: name }, token)).id);
    }
    // Installing dispatches the setup event (one dispatch each). Should the first workers have been
    // stopped for idleness before the last one started, each round dispatches the setup event again
    // to all of them at once (a configuration edit), so the stopped ones come back.
    const dispatched = async (count) => {
      const until = performance.now() + 60_000;
      while (performance.now() < until) {
        const logs = await Promise.all(installations.map((id) => call('GET', `/v1/installations/${id}/dispatches`)));
        if (logs.every((log) => log.length >= count)) {
          const failed = logs.flat().find((d) => d.status >= 300 || d.error !== null);
          if (failed) throw new Error(`${label}: a dispatch failed: ${JSON.stringify(failed)}`);
          return;
        }
        await sleep(50);
      }
      throw new Error(`${label}: not every integration was dispatched to ${count} times within 60 s`);
    };
    await dispatched(1);
    await sleep(500);
    let withWorkers = { ...memoryOf(child.pid), dispatches: 1 };
    for (let round = 2; withWorkers.workers < o.integrations && round < 2 + o.rounds; round++) {
      await Promise.all(installations.map((id) => call('PATCH', `/v1/installations/${id}/configuration`, {}, token)));
      await dispatched(round);
      await sleep(500);
      withWorkers = { ...memoryOf(child.pid), dispatches: round };
    }

    // After the idle timeout every worker has been stopped.
    const until = performance.now() + o.idleSeconds * 1000 + 30_000;
    while (childrenOf(child.pid, 'workerd').length > 0 && performance.now() < until) await sleep(200);
    await sleep(1000);
    const afterIdle = memoryOf(child.pid);
    console.log(
      `  ${label}: server ${atStart.server.toFixed(1)} MiB at start; ${withWorkers.server.toFixed(1)} MiB + ${withWorkers.workers} workerd ${withWorkers.workersRss.toFixed(1)} MiB RSS; after idle ${afterIdle.server.toFixed(1)} MiB + ${afterIdle.workers} workerd`,
    );
    return { label, atStart, withWorkers, afterIdle };
  } finally {
    await stopServer(child);
  }
}

export async function benchIdleMemory(options = {}) {
  const o = { ...IDLE_SETTINGS, ...options };
  const script = await integrationScript();
  return onEachBackend((label, env) => benchBackend(label, env, o, script), {
    PORTICO_WORKER_IDLE_SECONDS: String(o.idleSeconds),
    // Every one of them may run at once (the default cap is 16).
    PORTICO_MAX_WORKERS: String(o.integrations),
  });
}
