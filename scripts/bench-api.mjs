// API benchmarks: the real server (`portico serve`, a child process) under autocannon, next to a
// bare node:http hello-world server measured the same way in the same run (before and after the
// servers, averaged, so a change in the machine's load during the run weighs on both sides). Each
// measurement follows a short warm-up of the same load (JIT, caches, connections).
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { onEachBackend, postgresUrl, rssMiB, startServer, stopServer } from './bench-support.mjs';

const DURATION_SECONDS = 5;
const WARMUP_SECONDS = 1;
const CONNECTIONS = 10;

/** Starts the bare node:http server (JavaScript given to `node -e`); answers it once it listens. */
function startBare(code) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(err)?.[1];
      if (url) resolve({ child, url });
    });
    child.on('exit', (code) => reject(new Error(`the bare server exited ${code}: ${err}`)));
  });
}

async function load(url, options = {}) {
  const run = async (duration) => {
    const result = await autocannon({ url, connections: CONNECTIONS, duration, ...options });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return result.requests.average;
  };
  await run(WARMUP_SECONDS);
  return run(DURATION_SECONDS);
}

async function seed(call) {
  await call('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
  const { token } = await call('POST', '/v1/users', { id: 'ada', name: 'Ada' });
  await call('PUT', '/v1/orgs/acme/members/ada', { role: 'admin' });
  const manifest = `name: bench\ntitle: Bench\ndescription: Benchmark\norganization: acme\nvisibility: private\nscopes: []\nconfigurations:\n  account:\n    properties:\n      url:\n        type: string\n    required: [url]\n`;
  // A worker that answers every envelope at once: each PATCH's setup event is dispatched to it.
  const script = 'export default { async fetch() { return new Response(null, { status: 204 }); } };';
  await call('POST', '/v1/integrations', { manifest, script }, token);
  const installation = await call('POST', '/v1/orgs/acme/installations', { integration: 'bench' }, token);
  return { token, id: installation.id };
}

async function benchPlatform(label, env) {
  const { child, url, call } = await startServer(env);
  try {
    const { token, id } = await seed(call);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMiB(child.pid);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const get = await load(`${url}/v1/installations/${id}`, { headers });
    const patch = await load(`${url}/v1/installations/${id}/configuration`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ url: 'https://hooks.example.com/portico' }),
    });
    return { label, idle, get, patch };
  } finally {
    await stopServer(child);
  }
}

export async function benchApi() {
  const hello = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"hello":"world"}'); }).listen(0, '127.0.0.1', function () { console.error('listening on http://127.0.0.1:' + this.address().port); });`;
  const bare = await startBare(hello);
  try {
    const helloBefore = await load(bare.url);
    const helloRss = rssMiB(bare.child.pid);
    const results = await benchPlatforms();
    const helloAfter = await load(bare.url);
    return { helloRate: (helloBefore + helloAfter) / 2, helloRates: [helloBefore, helloAfter], helloRss, results };
  } finally {
    bare.child.removeAllListeners('exit');
    bare.child.kill();
  }
}

async function benchPlatforms() {
  if (!postgresUrl())
    console.warn('PORTICO_BENCH_DATABASE_URL / PORTICO_TEST_DATABASE_URL not set: PostgreSQL not measured');
  // One log line per request, as a server runs by default.
  return onEachBackend(benchPlatform, { PORTICO_LOG_LEVEL: 'info' });
}
