// Dispatch benchmarks: one integration (hello-world's component) on the in-process and workerd
// hosts: latency percentiles, dispatches per second, a workerd cold start, an idle worker's memory.
import { createEgress, InProcessHost, WorkerdHost } from '@portico/platform';
import { build } from 'esbuild';

const entry = new URL('../examples/hello-world/src/index.ts', import.meta.url).pathname;

const environment = {
  apiEndpoint: 'http://127.0.0.1:9',
  apiTokens: { installation: 't' },
  integration: { name: 'hello-world', urls: { publicEndpoint: 'http://127.0.0.1:9/public' } },
  id: 'inst_1',
  status: 'active',
  configuration: { greeting: 'Hello' },
  urls: { publicEndpoint: 'http://127.0.0.1:9/public' },
  secrets: {},
  installationKey: 'k',
  organization: 'acme',
  target: 'organization',
  space_selection: { mode: 'all', spaces: [] },
  externalIds: [],
};

/** A dispatch as the dispatcher makes it: the envelope as objects (the workerd host encodes it for the worker). */
function renderRequest() {
  const event = {
    type: 'ui_render',
    eventId: 'e',
    componentId: 'greeting',
    state: { count: 1 },
    action: { action: 'say-hello' },
  };
  return { method: 'POST', envelope: { event, environment }, installationId: 'inst_1' };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(host, bundle, count) {
  const request = renderRequest();
  for (let i = 0; i < 100; i++) await host.dispatch(bundle, request);
  const times = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const answer = await host.dispatch(bundle, request);
    if (answer.status !== 200) throw new Error(`dispatch answered ${answer.status}`);
    times.push(performance.now() - t);
  }
  const total = performance.now() - started;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), perSecond: (count * 1000) / total };
}

export async function benchDispatch() {
  const script = (
    await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      write: false,
      logLevel: 'silent',
    })
  ).outputFiles[0].text;
  // Node runs the same bundle the workerd host runs, imported from a data: URL.
  const { default: integration } = await import(
    `data:text/javascript;base64,${Buffer.from(script).toString('base64')}`
  );
  const inProcess = new InProcessHost(new Map([['hello-world', integration]]));
  const bundle = { name: 'hello-world', version: 1, script };
  const inProcessResult = await measure(inProcess, bundle, 3000);

  const egress = createEgress({ allowPrivateNetwork: false, record: () => {} });
  const colds = [];
  let workerdResult;
  let idleBytes;
  for (let i = 0; i < 3; i++) {
    const host = new WorkerdHost({ egress });
    const fresh = { ...bundle, version: 100 + i };
    const request = renderRequest();
    const t = performance.now();
    await host.dispatch(fresh, request);
    colds.push(performance.now() - t);
    if (i === 0) {
      workerdResult = await measure(host, fresh, 1500);
      await new Promise((r) => setTimeout(r, 1000));
      idleBytes = await host.memoryOf(fresh);
    }
    await host.close();
  }
  colds.sort((a, b) => a - b);
  return {
    inProcess: inProcessResult,
    workerd: workerdResult,
    coldStartMs: colds[1],
    idleMiB: (idleBytes ?? 0) / 1024 / 1024,
  };
}
