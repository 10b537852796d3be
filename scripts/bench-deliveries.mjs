// Delivery benchmarks: events in through the API, signed deliveries acknowledged by the verifying
// reference receiver, next to the ceiling: the same HTTP client posting the same bodies straight
// to the same receiver. Then latency from ingest to receipt at a steady rate, and the server's memory.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postWebhook } from '@portico/platform';
import { sign } from '@portico/webhooks';
import { createReceiverServer } from '@portico-examples/webhook-receiver';
import pg from 'pg';

const bin = new URL('../packages/cli/dist/bin.js', import.meta.url).pathname;
const EVENTS = 2000;

function start(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const url = /running at (http:\/\/\S+)/.exec(err)?.[1];
      if (url) resolve({ child, url });
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function benchBackend(label, env) {
  const { child, url } = await start(env);
  const call = async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${env.PORTICO_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const received = new Map();
  let server;
  try {
    await call('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await call('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
    const org = (await call('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).id;
    const space = (await call('POST', `/v1/installations/${org}/spaces/docs`)).id;
    const secret = (await call('GET', `/v1/installations/${space}/signing-secret`)).secret;
    server = createReceiverServer({ secret, work: (event) => received.set(event.eventId, performance.now()) });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${server.address().port}/hook`;
    await call('PATCH', `/v1/installations/${space}/configuration`, { url: hook, space_content_updated: true });

    // Throughput: 2,000 events as fast as eight senders can post them, until the last is received.
    const started = performance.now();
    let next = 0;
    const send = async () => {
      while (next < EVENTS) {
        const i = next++;
        await call('POST', '/v1/events', {
          type: 'space_content_updated',
          eventId: `bench_${i}`,
          spaceId: 'docs',
          revisionId: 'r',
        });
      }
    };
    await Promise.all(Array.from({ length: 8 }, send));
    while (received.size < EVENTS) await new Promise((r) => setTimeout(r, 20));
    const endToEnd = (EVENTS * 1000) / (performance.now() - started);

    // Latency at a steady rate: 50 events per second for 10 s, ingest to receipt.
    const sentAt = new Map();
    const steady = [];
    for (let i = 0; i < 500; i++) {
      const id = `steady_${i}`;
      sentAt.set(id, performance.now());
      steady.push(
        call('POST', '/v1/events', { type: 'space_content_updated', eventId: id, spaceId: 'docs', revisionId: 'r' }),
      );
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all(steady);
    while ([...sentAt.keys()].some((id) => !received.has(id))) await new Promise((r) => setTimeout(r, 20));
    const latencies = [...sentAt.entries()].map(([id, t]) => received.get(id) - t).sort((a, b) => a - b);
    const memory = rssMiB(child.pid);

    // The ceiling: the engine's HTTP client posting signed bodies straight to the same receiver.
    const body = JSON.stringify({
      eventId: 'x',
      type: 'space_content_updated',
      spaceId: 'docs',
      installationId: space,
      revisionId: 'r',
    });
    const ceilingStarted = performance.now();
    let sent = 0;
    const direct = async () => {
      while (sent < EVENTS) {
        const i = sent++;
        const payload = body.replace('"eventId":"x"', `"eventId":"ceiling_${label}_${i}"`);
        const headers = { 'content-type': 'application/json', 'x-platform-signature': await sign(secret, payload) };
        const result = await postWebhook(hook, headers, payload, { timeoutMs: 10_000, allowPrivateNetwork: true });
        if (result.kind !== 'answered' || result.status !== 200)
          throw new Error(`ceiling post failed: ${JSON.stringify(result)}`);
      }
    };
    await Promise.all(Array.from({ length: 64 }, direct));
    const ceiling = (EVENTS * 1000) / (performance.now() - ceilingStarted);
    return { label, endToEnd, ceiling, p50: percentile(latencies, 50), p99: percentile(latencies, 99), memory };
  } finally {
    server?.close();
    await new Promise((r) => {
      child.on('exit', r);
      child.kill('SIGTERM');
    });
  }
}

export async function benchDeliveries() {
  const secrets = {
    PORTICO_ADMIN_TOKEN: `pta_${randomBytes(16).toString('hex')}`,
    PORTICO_SECRET_KEY: randomBytes(32).toString('base64'),
    PORTICO_ALLOW_PRIVATE_NETWORK: '1',
    PORTICO_LOG_LEVEL: 'warn',
  };
  const results = [];
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  try {
    results.push(await benchBackend('SQLite', { ...secrets, PORTICO_DATA_DIR: dir }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
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
        await benchBackend('PostgreSQL', { ...secrets, PORTICO_DATA_DIR: pgDir, PORTICO_DATABASE_URL: url.toString() }),
      );
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      rmSync(pgDir, { recursive: true, force: true });
    }
  }
  return results;
}
