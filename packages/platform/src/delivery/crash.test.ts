/**
 * A crash in the middle of 2,000 deliveries: kill -9 the server while it delivers, restart it,
 * and every eventId arrives at least once; the only duplicates are attempts of the same delivery
 * that were in flight at the kill.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../test-support/api.js';
import { ADMIN_TOKEN, backends, SECRET_KEY } from '../test-support/backends.js';
import { type ServeProcess, spawnServe } from '../test-support/serve-process.js';
import { until } from '../test-support/webhook-world.js';

const EVENTS = 2000;
const CONCURRENCY = 64; // the engine's attempts in flight per node

describe.each(backends.map((b) => b.name))('kill -9 during 2,000 deliveries on %s', (backendName) => {
  const seen: { eventId: string; delivery: string; attempt: string }[] = [];
  let receiver: Server;
  let url: string;
  let cleanup: () => Promise<void> = async () => {};
  const processes: ServeProcess[] = [];
  // The receiver holds its answers until every event is accepted, so deliveries are still under
  // way at the kill however fast the pipeline keeps up with the senders.
  let openGate = () => {};
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push({
          eventId: JSON.parse(body).eventId,
          delivery: String(req.headers['x-platform-delivery-id']),
          attempt: String(req.headers['x-platform-delivery-attempt']),
        });
        void gate.then(() => res.end('{"received":true}'));
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    openGate();
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await new Promise<void>((r) => receiver.close(() => r()));
    await cleanup();
  });

  it('delivers every accepted event at least once, duplicating only attempts in flight at the kill', async () => {
    const backend = backends.find((b) => b.name === backendName);
    if (!backend) throw new Error(`${backendName} is not configured`);
    const fresh = await backend.fresh();
    cleanup = fresh.cleanup;
    const env = {
      PORTICO_DATA_DIR: fresh.config.dataDir,
      PORTICO_ADMIN_TOKEN: ADMIN_TOKEN,
      PORTICO_SECRET_KEY: SECRET_KEY,
      PORTICO_ALLOW_PRIVATE_NETWORK: '1',
      PORTICO_LOG_LEVEL: 'warn',
      ...(fresh.config.databaseUrl ? { PORTICO_DATABASE_URL: fresh.config.databaseUrl } : {}),
    };
    const first = await spawnServe(env);
    processes.push(first);
    const admin = client(first.url, ADMIN_TOKEN);
    await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
    await admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
    const org = (await admin('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id;
    const space = (await admin('POST', `/v1/installations/${org}/spaces/docs`)).body.id;
    await admin('PATCH', `/v1/installations/${space}/configuration`, { url, space_content_updated: true });

    // Accept all 2,000 (eight senders) while the receiver holds its answers, then kill the server
    // halfway through delivering them.
    let next = 0;
    const send = async () => {
      while (next < EVENTS) {
        const i = next++;
        const answer = await admin('POST', '/v1/events', {
          type: 'space_content_updated',
          eventId: `evt_${i}`,
          spaceId: 'docs',
          revisionId: `r${i}`,
        });
        if (answer.status !== 202) throw new Error(`event ${i}: ${answer.status}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, send));
    openGate();
    await until(
      'half the deliveries',
      () => (new Set(seen.map((s) => s.eventId)).size >= EVENTS / 2 ? true : undefined),
      120_000,
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const atKill = seen.length;

    const second = await spawnServe(env);
    processes.push(second);
    await until(
      'every eventId',
      () => (new Set(seen.map((s) => s.eventId)).size === EVENTS ? true : undefined),
      180_000,
    );
    await new Promise((r) => setTimeout(r, 500));
    second.child.kill('SIGTERM');
    await second.exited;

    expect(atKill).toBeLessThan(EVENTS);
    const byEvent = new Map<string, { delivery: string; attempt: string }[]>();
    for (const s of seen) byEvent.set(s.eventId, [...(byEvent.get(s.eventId) ?? []), s]);
    expect(byEvent.size).toBe(EVENTS);
    const duplicated = [...byEvent.entries()].filter(([, requests]) => requests.length > 1);
    // A duplicate is the same delivery attempted again after the restart, never a second delivery.
    for (const [eventId, requests] of duplicated) {
      expect({ eventId, deliveries: new Set(requests.map((r) => r.delivery)).size }).toEqual({
        eventId,
        deliveries: 1,
      });
    }
    expect(duplicated.length).toBeLessThanOrEqual(CONCURRENCY);
  }, 400_000);
});
