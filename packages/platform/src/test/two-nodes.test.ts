/**
 * Two nodes on one PostgreSQL database, one killed with SIGKILL mid-stream: nothing acknowledged
 * is lost. Two `portico serve` processes share a fresh database; senders post 2,000 events to
 * both in turn; each is fanned out to the webhook subscription as it is accepted, and delivered to
 * a receiver that records every request. One node is killed while events still arrive and deliveries are in flight; requests to
 * it fail from then on and the sender sends them to the other node instead (as a client behind a
 * load balancer would). The surviving node takes over the killed node's claimed outbox rows and
 * deliveries once their leases expire (30 s; delivery timeout + 20 s), so every acknowledged
 * eventId reaches the receiver; a duplicate is only the same delivery attempted again, never a
 * second delivery of one event; the database ends with nothing owed or claimed, and the survivor
 * stops cleanly on SIGTERM. PostgreSQL only: skipped without PORTICO_TEST_DATABASE_URL.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendantsOf, isRunning, type ProcessInfo } from '../hosts/proc.js';
import { client } from '../test-support/api.js';
import { ADMIN_TOKEN, backends, postgresUrl, SECRET_KEY } from '../test-support/backends.js';
import { type ServeProcess, spawnServe } from '../test-support/serve-process.js';
import { until } from '../test-support/webhook-world.js';

const EVENTS = 2000;
const SENDERS = 8;
/** The engine's attempts in flight per node: at most this many were cut off by the kill. */
const CONCURRENCY = 64;
/** How long the receiver takes to answer, so that attempts are often in flight at the receiver. */
const RECEIVER_DELAY_MS = 50;
/**
 * Every wait after the kill ends by itself. Recovery needs the killed node's leases to expire
 * (30 s for outbox rows, 10 + 20 s for deliveries), so a wait fails once nothing has moved for
 * STALL_MS, or at the latest CAP_MS after the kill (the backlog's pace depends on the machine).
 */
const STALL_MS = 60_000;
const CAP_MS = 200_000;

if (!postgresUrl) {
  console.warn(
    'PORTICO_TEST_DATABASE_URL is not set: the two-node SIGKILL test (delivery/two-nodes.test.ts) is skipped; it needs PostgreSQL.',
  );
}

interface Received {
  eventId: string;
  delivery: string;
  attempt: string;
  at: number;
  /** The sending socket's port (which node sent it, through /proc). */
  port: number;
  /** The answer was handed to the connection. */
  answered: boolean;
  /** Sent by the killed node and still unanswered when it was killed: it never learned the outcome. */
  cutOff: boolean;
}

type Answer = { status: number; body: { eventId?: string; duplicate?: boolean } | undefined } | { error: string };

/** POST /v1/events with a bounded wait; a network failure is an answer too. */
async function postEvent(node: ServeProcess, event: Record<string, unknown>): Promise<Answer> {
  try {
    const response = await fetch(`${node.url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let body: { eventId?: string; duplicate?: boolean } | undefined;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body };
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}

/**
 * The local ports of a process's TCP sockets (Linux /proc: its socket inodes, found in
 * /proc/net/tcp{,6}), only those connected to `remotePort` when it is given; empty where there is
 * no /proc. Linux gives two processes the same local port when they connect to different places,
 * so a port tells which node sent a request only among sockets to the receiver.
 */
function tcpPortsOf(pid: number, remotePort?: number): Set<number> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // Closed meanwhile.
      }
    }
  } catch {
    return new Set();
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, remote, inode] = [fields[1], fields[2], fields[9]];
      if (local === undefined || remote === undefined || inode === undefined || !inodes.has(inode)) continue;
      if (remotePort !== undefined && Number.parseInt(remote.slice(remote.lastIndexOf(':') + 1), 16) !== remotePort)
        continue;
      ports.add(Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
    }
  }
  return ports;
}

/**
 * Waits until `done`, failing once `progress` (a number that grows while work gets done) has not
 * grown for `stallMs`, or at `deadline` at the latest.
 */
async function untilDone(
  what: string,
  probe: () => Promise<{ done: boolean; progress: number }> | { done: boolean; progress: number },
  stallMs: number,
  deadline: number,
): Promise<void> {
  let best = Number.NEGATIVE_INFINITY;
  let movedAt = Date.now();
  for (;;) {
    const { done, progress } = await probe();
    if (done) return;
    if (progress > best) {
      best = progress;
      movedAt = Date.now();
    }
    if (Date.now() - movedAt > stallMs) throw new Error(`${what}: nothing moved for ${stallMs / 1000} s`);
    if (Date.now() > deadline) throw new Error(`${what}: not done by the deadline`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!postgresUrl)('two nodes on one PostgreSQL database, one killed with SIGKILL mid-stream', () => {
  const seen: Received[] = [];
  let receiver: Server;
  let url: string;
  const nodes: ServeProcess[] = [];
  /** Every process the nodes started, noted while they ran (a killed node's children are reparented). */
  const started = new Map<string, ProcessInfo>();
  const noteStarted = () => {
    const pids = nodes.map((n) => n.child.pid).filter((pid): pid is number => pid !== undefined);
    for (const p of descendantsOf(pids)) started.set(`${p.pid}@${p.startTicks}`, p);
  };
  let watcher: NodeJS.Timeout | undefined;
  let db: pg.Client | undefined;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const record: Received = {
          eventId: JSON.parse(body).eventId,
          delivery: String(req.headers['x-platform-delivery-id']),
          attempt: String(req.headers['x-platform-delivery-attempt']),
          at: Date.now(),
          port: req.socket.remotePort ?? 0,
          answered: false,
          cutOff: false,
        };
        seen.push(record);
        setTimeout(() => {
          record.answered = true;
          if (!res.destroyed) res.end('{"received":true}');
        }, RECEIVER_DELAY_MS);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    clearInterval(watcher);
    noteStarted();
    // No portico node, nor any process one started (workerd), outlives the test, whatever happened in it.
    for (const node of nodes)
      if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
    await Promise.all(nodes.map((node) => Promise.race([node.exited, sleep(10_000)])));
    for (const p of started.values()) {
      if (!isRunning(p.pid, p.startTicks)) continue;
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // It ended just now.
      }
    }
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
    await db?.end().catch(() => undefined);
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('delivers every acknowledged event, duplicating only attempts cut off by the kill, and the survivor stops cleanly', async () => {
    const backend = backends.find((b) => b.name === 'postgres');
    if (!backend) throw new Error('postgres is not configured');
    const fresh = await backend.fresh();
    cleanups.push(fresh.cleanup);
    const databaseUrl = fresh.config.databaseUrl as string;
    // Each node has its own data directory, as on separate machines; the database and secrets are shared.
    const otherDataDir = await mkdtemp(join(tmpdir(), 'portico-node-b-'));
    cleanups.push(() => rm(otherDataDir, { recursive: true, force: true }));
    const env = (dataDir: string) => ({
      PORTICO_DATA_DIR: dataDir,
      PORTICO_DATABASE_URL: databaseUrl,
      PORTICO_ADMIN_TOKEN: ADMIN_TOKEN,
      PORTICO_SECRET_KEY: SECRET_KEY,
      PORTICO_ALLOW_PRIVATE_NETWORK: '1',
      PORTICO_LOG_LEVEL: 'warn',
    });
    const [doomed, survivor] = await Promise.all([
      spawnServe(env(fresh.config.dataDir)),
      spawnServe(env(otherDataDir)),
    ]);
    nodes.push(doomed, survivor);
    watcher = setInterval(noteStarted, 500);
    const database = new pg.Client({ connectionString: databaseUrl });
    db = database;
    await database.connect();
    const rows = async (query: string, values: unknown[] = []) => (await database.query(query, values)).rows;

    // Set up through one node, configure through the other: they share everything.
    const admin = client(doomed.url, ADMIN_TOKEN);
    expect((await admin('POST', '/v1/orgs', { id: 'acme', title: 'Acme' })).status).toBe(201);
    expect((await admin('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' })).status).toBe(201);
    const org = (await admin('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id;
    const space = (await admin('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
    const configured = await client(survivor.url, ADMIN_TOKEN)('PATCH', `/v1/installations/${space}/configuration`, {
      url,
      space_content_updated: true,
    });
    expect(configured.body.status).toBe('active');

    // Eight senders, each event to one node in turn (even to the doomed one, odd to the
    // survivor). A request the doomed node refuses or never answers goes to the survivor.
    const acknowledged = new Map<string, { node: 'doomed' | 'survivor'; duplicate: boolean }>();
    const failedAtDoomed: { eventId: string; error: string; afterKill: boolean }[] = [];
    const problems: string[] = [];
    let killedAt: number | undefined;
    let next = 0;
    const send = async () => {
      while (next < EVENTS) {
        const i = next++;
        const eventId = `evt_${i}`;
        const event = { type: 'space_content_updated', eventId, spaceId: 'docs', revisionId: `r${i}` };
        if (i % 2 === 0) {
          const answer = await postEvent(doomed, event);
          if ('status' in answer && answer.status === 202 && answer.body?.eventId === eventId) {
            acknowledged.set(eventId, { node: 'doomed', duplicate: answer.body.duplicate === true });
            continue;
          }
          if ('status' in answer)
            problems.push(`${eventId} at the doomed node: ${answer.status} ${JSON.stringify(answer.body)}`);
          else failedAtDoomed.push({ eventId, error: answer.error, afterKill: killedAt !== undefined });
        }
        const answer = await postEvent(survivor, event);
        if ('status' in answer && answer.status === 202 && answer.body?.eventId === eventId)
          acknowledged.set(eventId, { node: 'survivor', duplicate: answer.body.duplicate === true });
        else problems.push(`${eventId} at the surviving node: ${JSON.stringify(answer)}`);
      }
    };
    const sendStarted = Date.now();
    const senders = Promise.all(Array.from({ length: SENDERS }, send));

    // Kill one node mid-stream: events still arriving, and (where /proc tells which node sent
    // what) an attempt of the doomed node waiting at the receiver for its answer.
    const distinctSeen = () => new Set(seen.map((s) => s.eventId)).size;
    const canAttribute = tcpPortsOf(process.pid).size > 0;
    await until(
      'a fifth of the events delivered',
      () => (distinctSeen() >= EVENTS / 5 || next >= EVENTS ? true : undefined),
      CAP_MS,
    );
    const cutOff = await until(
      'an attempt of the doomed node waiting at the receiver',
      () => {
        if (!canAttribute) return [];
        const ports = tcpPortsOf(doomed.child.pid as number, (receiver.address() as AddressInfo).port);
        const pending = seen.filter((s) => !s.answered && ports.has(s.port));
        return pending.length > 0 ? pending : undefined;
      },
      60_000,
    );
    const childrenAtKill = descendantsOf([doomed.child.pid as number]);
    doomed.child.kill('SIGKILL');
    const killed = Date.now();
    killedAt = killed;
    for (const s of cutOff) s.cutOff = true;
    const sentAtKill = next;
    const seenAtKill = seen.length;
    expect(await doomed.exited).toBe('SIGKILL');

    // What the killed node held: rows claimed at the kill and still claimed, with the same lease,
    // 3 s later (the survivor's own claims last one attempt, well under that).
    const claims = async () => ({
      outbox: (
        await rows('select id, claimed_until from outbox where dispatched_at is null and claimed_until is not null')
      ).map((r) => `${r.id}@${r.claimed_until}`),
      deliveries: (
        await rows("select id, claimed_until from deliveries where status = 'pending' and claimed_until is not null")
      ).map((r) => `${r.id}@${r.claimed_until}`),
    });
    const claimedAtKill = await claims();
    await sleep(3000);
    const claimedLater = await claims();
    const held = (before: string[], after: string[]) =>
      before.filter((c) => after.includes(c)).map((c) => c.slice(0, c.lastIndexOf('@')));
    const heldOutbox = held(claimedAtKill.outbox, claimedLater.outbox);
    /** Each delivery the killed node held, with the end of its lease. */
    const heldDeliveries = new Map(
      held(claimedAtKill.deliveries, claimedLater.deliveries).map((id) => {
        const lease = claimedAtKill.deliveries.find((c) => c.startsWith(`${id}@`)) as string;
        return [id, Number(lease.slice(lease.lastIndexOf('@') + 1))] as const;
      }),
    );

    await senders;
    const sendEnded = Date.now();

    // Every acknowledged event arrives, and nothing stays owed or claimed in the database.
    const arrivedIds = () => new Set(seen.map((s) => s.eventId));
    await untilDone(
      'every acknowledged eventId at the receiver',
      () => {
        const arrived = arrivedIds();
        return { done: [...acknowledged.keys()].every((id) => arrived.has(id)), progress: arrived.size };
      },
      STALL_MS,
      killed + CAP_MS,
    ).catch(() => undefined); // the assertions below name what is missing
    const allArrived = Date.now();
    const count = async (query: string) => Number((await rows(query))[0].n);
    let owed: Record<string, number> = {};
    await untilDone(
      'nothing owed or claimed in the database',
      async () => {
        owed = {
          unrouted: await count('select count(*) as n from events where routed_at is null'),
          undispatched: await count('select count(*) as n from outbox where dispatched_at is null'),
          undelivered: await count("select count(*) as n from deliveries where status <> 'delivered'"),
          claimed: await count('select count(*) as n from deliveries where claimed_until is not null'),
        };
        const left = Object.values(owed).reduce((a, b) => a + b, 0);
        return { done: left === 0, progress: -left };
      },
      STALL_MS,
      killed + CAP_MS,
    ).catch(() => undefined);
    const settled = Date.now();

    // The survivor ends cleanly on SIGTERM, in bounded time.
    await sleep(300);
    survivor.child.kill('SIGTERM');
    const survivorExit = await Promise.race([survivor.exited, sleep(30_000).then(() => 'still running after 30 s')]);

    const events = (await rows('select event_id from events')).map((r) => r.event_id as string);
    const deliveries = await rows('select id, event_id, status, claimed_until, created_at from deliveries');
    const outbox = await rows(
      'select id, event_id, outcome, dispatched_at from outbox where event_id is not null order by event_id',
    );
    const heldOutboxEvents = new Set(outbox.filter((o) => heldOutbox.includes(String(o.id))).map((o) => o.event_id));
    const reusedDeliveries = deliveries.filter(
      (d) => heldOutboxEvents.has(d.event_id) && Number(d.created_at) < killed,
    ).length;

    // What happened, for whoever reads the run.
    const byDelivery = new Map<string, Received[]>();
    for (const s of seen) byDelivery.set(s.delivery, [...(byDelivery.get(s.delivery) ?? []), s]);
    const again = [...byDelivery].filter(([, requests]) => requests.length > 1);
    const rate = (from: number, to: number) =>
      Math.round((seen.filter((r) => r.at >= from && r.at < to).length * 1000) / Math.max(to - from, 1));
    const retakenAt = again.map(([, requests]) => (requests.at(-1) as Received).at - killed);
    const warnings = (node: ServeProcess) =>
      node
        .stdout()
        .split('\n')
        .filter((line) => /"level":[4-6]\d/.test(line));
    console.log(
      JSON.stringify(
        {
          sentAtKill,
          seenAtKill,
          killAfterMs: killed - sendStarted,
          sendingMs: sendEnded - sendStarted,
          acknowledged: acknowledged.size,
          acknowledgedByDoomed: [...acknowledged.values()].filter((a) => a.node === 'doomed').length,
          failedAtDoomedAfterKill: failedAtDoomed.filter((f) => f.afterKill).length,
          failureKinds: [...new Set(failedAtDoomed.map((f) => f.error))],
          resentAndFoundPersisted: [...acknowledged].filter(([, a]) => a.duplicate).map(([id]) => id),
          requests: seen.length,
          cutOffByKill: cutOff.map((s) => s.delivery),
          heldByDoomed: { outbox: heldOutbox.length, deliveries: heldDeliveries.size },
          heldOutboxWhoseDeliveryExisted: reusedDeliveries,
          deliveriesAttemptedAgain: again.map(([id, requests]) => `${id} attempts ${requests.map((r) => r.attempt)}`),
          retakenAfterKillMs: retakenAt.length > 0 ? [Math.min(...retakenAt), Math.max(...retakenAt)] : [],
          requestsPerSecond: {
            before: rate(sendStarted, killed),
            leasesHeld: rate(killed, killed + 30_000),
            after: rate(killed + 30_000, allArrived),
          },
          allArrivedAfterKillMs: allArrived - killed,
          settledAfterKillMs: settled - killed,
          survivorExit,
          doomedWarnings: warnings(doomed).slice(0, 5),
          survivorWarnings: warnings(survivor).slice(0, 5),
        },
        null,
        2,
      ),
    );

    expect(problems).toEqual([]);
    // Before the kill the doomed node answered every request.
    expect(failedAtDoomed.filter((f) => !f.afterKill)).toEqual([]);
    // No acknowledged event is lost (each was acknowledged by one node or the other).
    const arrived = new Set(seen.map((s) => s.eventId));
    expect([...acknowledged.keys()].filter((id) => !arrived.has(id))).toEqual([]);
    expect(acknowledged.size).toBe(EVENTS);
    // A duplicate is the same delivery attempted again, never a second delivery of one event...
    const deliveriesOf = new Map<string, Set<string>>();
    for (const s of seen) deliveriesOf.set(s.eventId, (deliveriesOf.get(s.eventId) ?? new Set()).add(s.delivery));
    expect([...deliveriesOf].filter(([, ids]) => ids.size > 1).map(([id, ids]) => [id, [...ids]])).toEqual([]);
    // ...and only one the killed node held: its answer lost with the node, attempted again after the lease.
    expect(again.map(([id]) => id).filter((id) => !heldDeliveries.has(id))).toEqual([]);
    // The survivor took each over only once its lease had expired, never while it was held.
    expect(
      again
        .filter(([id, requests]) => (requests[1] as Received).at < (heldDeliveries.get(id) ?? 0))
        .map(([id, requests]) => ({ id, at: requests[1]?.at, leaseUntil: heldDeliveries.get(id) })),
    ).toEqual([]);
    expect(again.length).toBeLessThanOrEqual(CONCURRENCY);
    // The attempts the kill cut off were made again by the survivor.
    expect(cutOff.filter((s) => (byDelivery.get(s.delivery)?.length ?? 0) < 2).map((s) => s.delivery)).toEqual([]);
    // The database: one delivery per event, all delivered, nothing claimed or owed.
    expect(owed).toEqual({ unrouted: 0, undispatched: 0, undelivered: 0, claimed: 0 });
    expect(new Set(events)).toEqual(arrived);
    expect(deliveries.length).toBe(arrived.size);
    expect(deliveries.filter((d) => d.status !== 'delivered' || d.claimed_until !== null)).toEqual([]);
    // Fanned out when accepted: no event went through the outbox.
    expect(outbox).toEqual([]);
    expect(survivorExit).toBe(0);

    // Nothing the nodes started is left running: the killed node's children ended with it.
    noteStarted();
    await until(
      'every process the nodes started to end',
      () => ([...started.values(), ...childrenAtKill].every((p) => !isRunning(p.pid, p.startTicks)) ? true : undefined),
      10_000,
    );
  }, 400_000);
});
