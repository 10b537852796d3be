// API benchmarks: the real server (`portico serve`, a child process) under autocannon, next to a
// bare node:http hello-world server measured the same way in the same run (before and after the
// servers, averaged, so a change in the machine's load during the run weighs on both sides). Each
// measurement follows a short warm-up of the same load (JIT, caches, connections).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

const bin = new URL('../packages/cli/dist/bin.js', import.meta.url).pathname;
const DURATION_SECONDS = 5;
const WARMUP_SECONDS = 1;
const CONNECTIONS = 10;

function start(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no start within 30 s: ${err}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const url = /(?:running at|listening on) (http:\/\/\S+)/.exec(err)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
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

async function seed(url, adminToken) {
  const call = async (method, path, body, token = adminToken) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
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
  const { child, url } = await start([bin, 'serve', '--port', '0'], env);
  try {
    const { token, id } = await seed(url, env.PORTICO_ADMIN_TOKEN);
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
    await stop(child);
  }
}

export async function benchApi() {
  const hello = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"hello":"world"}'); }).listen(0, '127.0.0.1', function () { console.error('listening on http://127.0.0.1:' + this.address().port); });`;
  const bare = await start(['-e', hello], {});
  try {
    const helloBefore = await load(bare.url);
    const helloRss = rssMiB(bare.child.pid);
    const results = await benchPlatforms();
    const helloAfter = await load(bare.url);
    return { helloRate: (helloBefore + helloAfter) / 2, helloRates: [helloBefore, helloAfter], helloRss, results };
  } finally {
    await stop(bare.child);
  }
}

async function benchPlatforms() {
  const secrets = {
    PORTICO_ADMIN_TOKEN: `pta_${randomBytes(16).toString('hex')}`,
    PORTICO_SECRET_KEY: randomBytes(32).toString('base64'),
  };
  const results = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  try {
    results.push(await benchPlatform('SQLite', { ...secrets, PORTICO_DATA_DIR: dataDir }));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const pgUrl = process.env.PORTICO_BENCH_DATABASE_URL ?? process.env.PORTICO_TEST_DATABASE_URL;
  if (pgUrl) {
    const name = `portico_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    const pgDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
    try {
      results.push(
        await benchPlatform('PostgreSQL', {
          ...secrets,
          PORTICO_DATA_DIR: pgDir,
          PORTICO_DATABASE_URL: url.toString(),
        }),
      );
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      rmSync(pgDir, { recursive: true, force: true });
    }
  } else {
    console.warn('PORTICO_BENCH_DATABASE_URL / PORTICO_TEST_DATABASE_URL not set: PostgreSQL not measured');
  }
  return results;
}
