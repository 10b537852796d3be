/**
 * The delivery engine on a controllable clock: exact retry windows, and a chaos receiver that
 * answers at random; every delivery ends delivered or failed and the log agrees with the receiver.
 */
import { retryDelay, verify } from '@portico/webhooks';
import { describe, expect, it, vi } from 'vitest';
import { secretsOf } from '../storage/repositories/signing-secrets.js';
import { client } from '../test-support/api.js';
import { backends } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';
import { DeliveryEngine } from './delivery-engine.js';

describe('the retry schedule on a controllable clock', () => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backends[0] as (typeof backends)[number], { ownEngine: true }, [receiver]);

  it('attempts exactly when each retry is due: 1050, 2100 and 4200 ms after the attempt before (random 0.5), then fails', async () => {
    let clock = Date.now() + 60_000;
    const engine = new DeliveryEngine({
      ctx: world.platform.ctx,
      allowPrivateNetwork: true,
      userAgent: 'test',
      timeoutMs: 1000,
      now: () => clock,
      random: () => 0.5,
    });
    const url = receiver.script('/clock', [503, 503, 503, 503]);
    const { body } = await client(world.platform.url, world.spaceToken)(
      'POST',
      `/v1/installations/${world.space}/deliveries`,
      {
        url,
        eventId: 'evt_clock',
        type: 'test',
        payload: { eventId: 'evt_clock' },
      },
    );
    const row = () =>
      world.platform.ctx.db.selectFrom('deliveries').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();

    expect(await engine.runDue()).toBe(1);
    for (const [retry, delay] of [1050, 2100, 4200].entries()) {
      expect(delay).toBe(retryDelay(retry + 1, () => 0.5));
      const due = (await row()).next_attempt_at as number;
      expect(due - clock).toBe(delay);
      clock = due - 1;
      expect(await engine.runDue()).toBe(0); // one millisecond early: nothing
      clock = due;
      expect(await engine.runDue()).toBe(1);
    }
    const final = await row();
    expect(final).toMatchObject({ status: 'failed', attempts: 4, next_attempt_at: null });
    expect(receiver.at('/clock').map((r) => r.headers['x-platform-delivery-attempt'])).toEqual(['1', '2', '3', '4']);
  });
});

describe.each(backends)('a claim of first attempts on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, { ownEngine: true }, [receiver]);

  it('reads the signing secrets once per installation for the whole claim, and a rotation counts from the next claim', async () => {
    const engine = new DeliveryEngine({
      ctx: world.platform.ctx,
      allowPrivateNetwork: true,
      userAgent: 'test',
      timeoutMs: 5000,
    });
    const space = client(world.platform.url, world.spaceToken);
    const ask = (url: string, eventId: string) =>
      space('POST', `/v1/installations/${world.space}/deliveries`, {
        url,
        eventId,
        type: 'test',
        payload: { eventId },
      });
    const old = (await world.ada('GET', `/v1/installations/${world.space}/signing-secret`)).body.secret as string;
    const url = receiver.script('/claimed', [200, 200, 200, 200]);
    for (let i = 0; i < 4; i++) await ask(url, `evt_claimed_${i}`);
    const reads = vi.spyOn(secretsOf, 'all');
    try {
      // (The endpoint's limit starts at 2: two start at once, the other two as those end.)
      expect(await engine.runDue()).toBe(2);
      await until('the four attempts', () => (receiver.at('/claimed').length === 4 ? true : undefined));
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
    const signedWith = async (secret: string, path: string) =>
      Promise.all(receiver.at(path).map((r) => verify(secret, r.body, r.headers['x-platform-signature'] as string)));
    expect(await signedWith(old, '/claimed')).toEqual([true, true, true, true]);

    // Rotated after that claim: the next claim signs with the new secret (and the old one, for 24 h).
    const fresh = (await world.ada('POST', `/v1/installations/${world.space}/signing-secret/rotate`)).body
      .secret as string;
    const after = receiver.script('/after-rotation', [200]);
    await ask(after, 'evt_after_rotation');
    // (Asked for without this engine, as on another node: it is told to look.)
    engine.wake();
    expect(await engine.runDue()).toBe(1);
    expect(await signedWith(fresh, '/after-rotation')).toEqual([true]);
    expect(await signedWith(old, '/after-rotation')).toEqual([true]);
    await engine.stop();
  }, 30_000);
});

describe('a lease that runs out during an attempt', () => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backends[0] as (typeof backends)[number], { ownEngine: true }, [receiver]);

  it('drops the late result: the node that took the delivery over writes it', async () => {
    const engine = new DeliveryEngine({
      ctx: world.platform.ctx,
      allowPrivateNetwork: true,
      userAgent: 'test',
      timeoutMs: 1000,
    });
    const url = receiver.script('/slow', ['hang']);
    const { body } = await client(world.platform.url, world.spaceToken)(
      'POST',
      `/v1/installations/${world.space}/deliveries`,
      {
        url,
        eventId: 'evt_lease',
        type: 'test',
        payload: { eventId: 'evt_lease' },
      },
    );
    const running = engine.runDue();
    await until('the attempt at the receiver', () => (receiver.at('/slow').length > 0 ? true : undefined));
    // Another node's claim: this node stalled past its lease.
    await world.platform.ctx.db
      .updateTable('deliveries')
      .set({ claimed_until: 42 })
      .where('id', '=', body.id)
      .execute();
    expect(await running).toBe(1);
    const row = await world.platform.ctx.db
      .selectFrom('deliveries')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 0, claimed_until: 42 });
    const attempts = await world.platform.ctx.db
      .selectFrom('delivery_attempts')
      .select('id')
      .where('delivery_id', '=', body.id)
      .execute();
    expect(attempts).toEqual([]);
  });
});

describe.each(backends)('a chaos receiver on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  it('ends every delivery delivered or failed, and the log agrees with what the receiver saw', async () => {
    // A fixed pseudo-random script, so a failure can be replayed.
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const answers = [200, 500, 429, 'hang', 'reset'] as const;
    const count = 40;
    const deliver = client(world.platform.url, world.spaceToken);
    const scripts = new Map<string, (typeof answers)[number][]>();
    for (let i = 0; i < count; i++) {
      const script = Array.from(
        { length: 4 },
        () => answers[Math.floor(random() * answers.length)] as (typeof answers)[number],
      );
      scripts.set(`/chaos/${i}`, script);
      const url = receiver.script(`/chaos/${i}`, [...script, 200]);
      await deliver('POST', `/v1/installations/${world.space}/deliveries`, {
        url,
        eventId: `evt_chaos_${i}`,
        type: 'test',
        payload: { eventId: `evt_chaos_${i}`, i },
      });
    }
    const logs = await until(
      'every chaos delivery to end',
      async () => {
        const { body } = await world.ada('GET', `/v1/installations/${world.space}/deliveries?limit=200`);
        const chaos = body.filter((d: { eventId: string }) => d.eventId.startsWith('evt_chaos_'));
        return chaos.length === count && chaos.every((d: { status: string }) => d.status !== 'pending')
          ? chaos
          : undefined;
      },
      45_000,
    );
    for (const log of logs as { eventId: string; status: string; attempts: { status: number | null }[] }[]) {
      const i = Number(log.eventId.replace('evt_chaos_', ''));
      const script = scripts.get(`/chaos/${i}`) ?? [];
      const seen = receiver.at(`/chaos/${i}`);
      // The receiver saw exactly the attempts the log holds, in order.
      expect({ i, requests: seen.length }).toEqual({ i, requests: log.attempts.length });
      expect(seen.map((r) => r.headers['x-platform-delivery-attempt'])).toEqual(
        log.attempts.map((_, n) => String(n + 1)),
      );
      const firstOk = script.indexOf(200);
      if (firstOk >= 0) {
        expect({ i, status: log.status, attempts: log.attempts.length }).toEqual({
          i,
          status: 'delivered',
          attempts: firstOk + 1,
        });
      } else {
        expect({ i, status: log.status, attempts: log.attempts.length }).toEqual({ i, status: 'failed', attempts: 4 });
      }
      log.attempts.forEach((attempt, n) => {
        const answer = script[n];
        expect(attempt.status).toBe(typeof answer === 'number' ? answer : null);
      });
    }
  }, 90_000);
});

describe.each(backends)('a running engine on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  const row = (id: string) =>
    world.platform.ctx.db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const ask = async (path: string, script: ('hang' | number)[]) => {
    const url = receiver.script(path, script);
    const { body } = await client(world.platform.url, world.spaceToken)(
      'POST',
      `/v1/installations/${world.space}/deliveries`,
      { url, eventId: `evt${path.replace(/\//g, '_')}`, type: 'test', payload: { path } },
    );
    return body.id as string;
  };

  it('keeps a delivery to retry claimed and attempts it again itself; stopping lets it go', async () => {
    const retried = await ask('/held/retried', [503, 200]);
    const first = await until('the first attempt', async () => {
      const r = await row(retried);
      return r.attempts === 1 ? r : undefined;
    });
    // Claimed past its next attempt: no claim by this node or another takes it meanwhile.
    expect(first.status).toBe('pending');
    expect(first.claimed_until).toBeGreaterThan(first.next_attempt_at as number);
    const done = await until('the retry', async () => {
      const r = await row(retried);
      return r.status === 'delivered' ? r : undefined;
    });
    expect(done).toMatchObject({ attempts: 2, claimed_until: null });

    const left = await ask('/held/left', [503, 503, 503, 503]);
    await until('the first attempt', async () => ((await row(left)).attempts === 1 ? true : undefined));
    await world.platform.deliveries.stop();
    // Back in the database, unclaimed, for any node (or the next start) to take.
    expect(await row(left)).toMatchObject({ status: 'pending', attempts: 1, claimed_until: null });
    expect(receiver.at('/held/left')).toHaveLength(1);
  }, 30_000);
});

describe.each(backends)('deliveries waiting for a slot on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, { ownEngine: true }, [receiver]);

  it('waits in memory claimed by this node, keeps its lease renewed, and goes back unclaimed on stop', async () => {
    const { db } = world.platform.ctx;
    // One slot per destination; a lease of 3 s (renewed before an attempt could outlast it).
    const engine = new DeliveryEngine({
      ctx: world.platform.ctx,
      allowPrivateNetwork: true,
      userAgent: 'test',
      perDestination: 1,
      timeoutMs: 1000,
      leaseMs: 3000,
    });
    world.platform.ctx.deliveries = engine.intake;
    engine.start();
    const ids: string[] = [];
    const rows = () =>
      db
        .selectFrom('deliveries')
        .select(['id', 'status', 'attempts', 'claimed_until'])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute();
    try {
      const url = receiver.script('/waiting', ['hang']);
      for (let i = 0; i < 3; i++) {
        const { body } = await client(world.platform.url, world.spaceToken)(
          'POST',
          `/v1/installations/${world.space}/deliveries`,
          { url, eventId: `evt_waiting_${i}`, type: 'test', payload: { i } },
        );
        ids.push(body.id);
      }
      await until('the first attempt at the receiver', () => (receiver.at('/waiting').length > 0 ? true : undefined));
      // The first is under way; the other two wait in the engine's memory, claimed by it.
      const claimed = await until('every row claimed', async () => {
        const now = await rows();
        return now.every((r) => r.claimed_until !== null) ? now : undefined;
      });
      const leases = new Map(claimed.map((r) => [r.id, r.claimed_until as number]));
      // They wait (the first's retries keep the slot): their leases are renewed.
      await until(
        'the waiting rows’ leases renewed',
        async () =>
          (await rows())
            .filter((r) => r.attempts === 0 && r.id !== ids[0])
            .every((r) => (r.claimed_until as number) > (leases.get(r.id) as number))
            ? true
            : undefined,
        5000,
      );
      // Still one attempt at a time at the destination.
      expect(new Set(receiver.at('/waiting').map((r) => r.headers['x-platform-delivery-id']))).toEqual(
        new Set([ids[0]]),
      );
    } finally {
      await engine.stop();
    }
    // Everything goes back to the database, unclaimed, for any node (or the next start) to take.
    expect(await rows()).toEqual(
      ids.map((id, i) =>
        expect.objectContaining({
          id,
          status: 'pending',
          claimed_until: null,
          attempts: i === 0 ? expect.any(Number) : 0,
        }),
      ),
    );
  }, 30_000);
});

describe.each(backends)('a destination at its cap on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, { ownEngine: true }, [receiver]);

  it('keeps its slots counted exactly while claims run: what waits for a slot starts as soon as one frees', async () => {
    // Two slots and a hold; no poll to fall back on: a slot counted as taken after its attempt
    // ended (or a delivery counted twice) would leave the held deliveries waiting for a minute.
    const engine = new DeliveryEngine({
      ctx: world.platform.ctx,
      allowPrivateNetwork: true,
      userAgent: 'test',
      perDestination: 2,
      hold: 16,
      pollMs: 60_000,
    });
    world.platform.ctx.deliveries = engine.intake;
    engine.start();
    try {
      const url = receiver.script('/cap', [200]);
      const ask = client(world.platform.url, world.spaceToken);
      const count = 300;
      let next = 0;
      // Eight callers at a time: deliveries are offered, held and claimed while attempts end.
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < count) {
            const i = next++;
            await ask('POST', `/v1/installations/${world.space}/deliveries`, {
              url,
              eventId: `evt_cap_${i}`,
              type: 'test',
              payload: { i },
            });
          }
        }),
      );
      await until(
        'every delivery delivered',
        async () => {
          const { n } = await world.platform.ctx.db
            .selectFrom('deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('url', '=', url)
            .where('status', '=', 'delivered')
            .executeTakeFirstOrThrow();
          return Number(n) === count ? true : undefined;
        },
        30_000,
      );
      expect(receiver.at('/cap')).toHaveLength(count);
    } finally {
      await engine.stop();
    }
  }, 60_000);
});

describe.each(backends)('a burst of events to one endpoint on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  it('is handed over whole while the node holds fewer than half its bound, and past that waits unclaimed in the database', async () => {
    // The receiver never answers: what is handed over waits in the engine's memory, claimed.
    const url = receiver.script('/burst', ['hang']);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
    const unclaimed = async () => {
      const { n } = await world.platform.ctx.db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('installation_id', '=', world.space)
        .where('claimed_until', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(n);
    };
    const batch = async (round: number) => {
      const events = Array.from({ length: 1000 }, (_, i) => ({
        type: 'space_content_updated',
        eventId: `evt_burst_${round}_${i}`,
        spaceId: 'docs',
        revisionId: 'r',
      }));
      const { status, body } = await world.admin('POST', '/v1/events/batch', { events });
      expect(status).toBe(202);
      expect(body.results.filter((r: { error?: unknown }) => r.error !== undefined)).toEqual([]);
    };
    // Two batches of 1,000: every delivery inserted claimed by this node (the node's bound is 4,096;
    // one endpoint may fill its first half, far past the endpoint's own hold of 64).
    await batch(0);
    await batch(1);
    expect(await unclaimed()).toBe(0);
    // A third: the first half is full, so most of it waits in the database for a claim.
    await batch(2);
    const left = await unclaimed();
    expect(left).toBeGreaterThan(900);
    expect(left).toBeLessThanOrEqual(1000);
  }, 60_000);
});
