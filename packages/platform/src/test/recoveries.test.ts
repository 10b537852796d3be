/**
 * Recover-since on the real server, on SQLite and PostgreSQL: every failed delivery of a window is
 * redelivered once (a chain once, by its latest delivery), as a background job whose progress
 * is read back; a job stopped mid-way goes on after a restart without sending anything twice;
 * and a database from before the job table (schema 6) upgrades and recovers what failed before.
 */
import { parseManifest } from '@portico/manifest';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretBox } from '../access/secret-box.js';
import { hashToken } from '../access/tokens.js';
import { BUILTINS } from '../builtins.js';
import { RecoveryRunner } from '../jobs/recoveries.js';
import { type RunningPlatform, startPlatform } from '../server.js';
import { openDatabase } from '../storage/database.js';
import { loadMigrations, migrate } from '../storage/migrate.js';
import { client } from '../test-support/api.js';
import { type Backend, backends, SECRET_KEY } from '../test-support/backends.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Asks the platform (as the installation) to deliver one event per id to `url`, and waits until each ended. */
async function deliverAll(platform: RunningPlatform, token: string, installation: string, url: string, ids: string[]) {
  const as = client(platform.url, token);
  for (const eventId of ids) {
    const answer = await as('POST', `/v1/installations/${installation}/deliveries`, {
      url,
      eventId,
      type: 'space_content_updated',
      payload: { eventId },
    });
    expect(answer.status).toBe(202);
  }
  await until(`${ids.length} deliveries ended`, async () => {
    const rows = await platform.ctx.db
      .selectFrom('deliveries')
      .select('status')
      .where('installation_id', '=', installation)
      .where('event_id', 'in', ids)
      .execute();
    return rows.length >= ids.length && rows.every((r) => r.status !== 'pending') ? true : undefined;
  });
}

const finished = (platform: RunningPlatform, id: string) =>
  until(`the recovery ${id} to end`, async () => {
    const { body } = await client(platform.url, platform.adminToken)('GET', `/v1/recoveries/${id}`);
    return body.status === 'running' ? undefined : body;
  });

describe.each(backends)('recover since on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, {}, [receiver]);

  it('redelivers each failed delivery of the window once, in the background, with its progress', async () => {
    const before = Date.now() - 1000;
    const url = receiver.script('/failing', [400]);
    await deliverAll(world.platform, world.spaceToken, world.space, url, ['r1', 'r2', 'r3']);
    const failed = (await world.ada('GET', `/v1/installations/${world.space}/deliveries?status=failed`)).body;
    expect(failed.map((d: { eventId: string }) => d.eventId).sort()).toEqual(['r1', 'r2', 'r3']);
    // r1 was redelivered by hand and failed again: its chain counts once, by the redelivery.
    const again = (
      await world.ada(
        'POST',
        `/v1/deliveries/${failed.find((d: { eventId: string }) => d.eventId === 'r1').id}/redeliver`,
      )
    ).body;
    await until('the redelivery to fail', async () => {
      const rows = (await world.ada('GET', `/v1/installations/${world.space}/deliveries?eventId=r1`)).body;
      return rows.find((d: { id: string; status: string }) => d.id === again.id && d.status === 'failed');
    });
    receiver.script('/failing', [200]);
    const received = receiver.at('/failing').length;

    const started = await world.ada('POST', `/v1/installations/${world.space}/deliveries/recover`, {
      since: new Date(before).toISOString(),
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      id: expect.stringMatching(/^rcv_/),
      installationId: world.space,
      since: new Date(before).toISOString(),
      status: expect.stringMatching(/^(running|done)$/),
      total: 3,
      errors: 0,
      lastError: null,
    });
    const done = await finished(world.platform, started.body.id);
    expect(done).toMatchObject({ status: 'done', total: 3, done: 3, errors: 0, finishedAt: expect.any(String) });
    await until('three redeliveries received', () =>
      receiver.at('/failing').length - received >= 3 ? true : undefined,
    );
    await until('the redeliveries delivered', async () => {
      const rows = (await world.ada('GET', `/v1/installations/${world.space}/deliveries?status=delivered`)).body;
      return rows.length >= 3 ? rows : undefined;
    });
    const bodies = receiver
      .at('/failing')
      .slice(received)
      .map((r) => JSON.parse(r.body).eventId)
      .sort();
    expect(bodies).toEqual(['r1', 'r2', 'r3']);
    expect((await world.ada('GET', `/v1/installations/${world.space}/recoveries`)).body[0]).toEqual(done);

    // Recovering the same window again finds nothing left to send.
    const second = await world.ada('POST', `/v1/installations/${world.space}/deliveries/recover`, { since: before });
    expect(second.body.total).toBe(0);
    expect(await finished(world.platform, second.body.id)).toMatchObject({ status: 'done', done: 0 });
    expect(receiver.at('/failing').length - received).toBe(3);
  });

  it('counts what it cannot redeliver: a disabled endpoint', async () => {
    const before = Date.now() - 1000;
    const url = receiver.script('/disabled', [400]);
    await deliverAll(world.platform, world.spaceToken, world.space, url, ['d1']);
    await world.platform.ctx.db
      .updateTable('endpoints')
      .set({ disabled_at: Date.now(), disabled_reason: 'every attempt failed for 5 days' })
      .where('url', '=', url)
      .execute();
    const started = await world.ada('POST', `/v1/installations/${world.space}/deliveries/recover`, {
      since: before,
      until: Date.now() + 60_000,
    });
    expect(started.body.total).toBe(1);
    const done = await finished(world.platform, started.body.id);
    expect(done).toMatchObject({ status: 'done', total: 1, done: 0, errors: 1 });
    expect(done.lastError).toMatch(
      /its endpoint .*\/disabled is disabled \(every attempt failed for 5 days\); enable it/,
    );
  });

  it('refuses a window that is not one, a bad time, and those who may not see the installation; changes nothing', async () => {
    const recover = (body: unknown, as = world.ada, id = world.space) =>
      as('POST', `/v1/installations/${id}/deliveries/recover`, body);
    const count = async () =>
      (
        await world.platform.ctx.db
          .selectFrom('recoveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = Number(await count());
    const inverted = await recover({ since: Date.now(), until: Date.now() - 60_000 });
    expect(inverted.status).toBe(400);
    expect(inverted.body.error).toMatchObject({
      code: 'invalid_window',
      message: expect.stringMatching(/`since` .* must be before `until`/),
    });
    expect((await recover({ since: Date.now() + 60_000 })).body.error.code).toBe('invalid_window');
    expect((await recover({ since: 'last tuesday' })).body.error).toEqual({
      code: 'invalid_time',
      message:
        'body.since must be an ISO 8601 time (e.g. 2025-01-31T12:00:00Z) or Unix milliseconds, got "last tuesday"',
    });
    expect((await recover({})).body.error.code).toBe('invalid_request');
    expect((await recover({ since: 0, colour: 'red' })).body.error.message).toMatch(/unknown field `colour`/);
    const stranger = (await world.admin('POST', '/v1/users', { id: 'mallory', name: 'Mallory' })).body.token;
    expect((await recover({ since: 0 }, client(world.platform.url, stranger))).status).toBe(403);
    expect((await recover({ since: 0 }, client(world.platform.url, world.spaceToken))).status).toBe(403);
    expect((await recover({ since: 0 }, world.ada, 'inst_none')).status).toBe(404);
    expect(Number(await count())).toBe(before);
    expect((await world.ada('GET', '/v1/recoveries/rcv_none')).status).toBe(404);
    expect(
      (await client(world.platform.url, stranger)('GET', `/v1/installations/${world.space}/recoveries`)).status,
    ).toBe(403);
  });
});

/** A platform with the webhook integration installed in a space, for tests that restart it. */
async function startSeeded(backend: Backend) {
  const { config, cleanup } = await backend.fresh();
  const settings = { ...config, secretKey: SECRET_KEY, allowPrivateNetwork: true };
  let platform = await startPlatform(settings, { deliveryTimeoutMs: 1000 });
  const admin = () => client(platform.url, platform.adminToken);
  await admin()('POST', '/v1/orgs', { id: 'acme', title: 'Acme' });
  await admin()('POST', '/v1/orgs/acme/spaces', { id: 'docs', title: 'Docs' });
  const org = (await admin()('POST', '/v1/orgs/acme/installations', { integration: 'webhook' })).body.id as string;
  const space = (await admin()('POST', `/v1/installations/${org}/spaces/docs`)).body.id as string;
  cleanups.push(async () => {
    await platform.close();
    await cleanup();
  });
  return {
    space,
    get platform() {
      return platform;
    },
    async restart() {
      await platform.close();
      platform = await startPlatform(settings, { deliveryTimeoutMs: 1000 });
    },
  };
}

describe.each(backends)('a recovery that was stopped, on $name', (backend) => {
  it('goes on after a restart (on PostgreSQL, once a dead node’s lease ends) where it stood: every failed delivery redelivered once', async () => {
    const receiver = new ScriptedReceiver();
    await receiver.start();
    cleanups.push(() => receiver.close());
    const seeded = await startSeeded(backend);
    const token = (
      await seeded.platform.ctx.db
        .selectFrom('installation_tokens')
        .select('token')
        .where('installation_id', '=', seeded.space)
        .executeTakeFirstOrThrow()
    ).token;
    const url = receiver.script('/many', [400]);
    const ids = Array.from({ length: 120 }, (_, i) => `m${String(i).padStart(3, '0')}`);
    const since = Date.now() - 1000;
    await deliverAll(seeded.platform, seeded.platform.ctx.box.open(token), seeded.space, url, ids);
    receiver.script('/many', [200]);

    // This node's runner is stopped: a runner that works 50 at a time does the first batch, then stops.
    await seeded.platform.recoveries.stop();
    const admin = client(seeded.platform.url, seeded.platform.adminToken);
    const started = (await admin('POST', `/v1/installations/${seeded.space}/deliveries/recover`, { since })).body;
    expect(started.total).toBe(120);
    let stopping: Promise<void> | undefined;
    const partial: RecoveryRunner = new RecoveryRunner({
      ctx: seeded.platform.ctx,
      batch: 50,
      onBatch: () => {
        stopping ??= partial.stop();
      },
    });
    partial.start();
    await until('the first batch', () => (stopping ? true : undefined));
    await stopping;
    const stopped = (await admin('GET', `/v1/recoveries/${started.id}`)).body;
    expect(stopped.status).toBe('running');
    expect(stopped.done).toBe(50);

    if (backend.name === 'postgres') {
      // As if a node that died still held it: another node takes it once the lease has ended.
      await seeded.platform.ctx.db
        .updateTable('recoveries')
        .set({ claimed_until: Date.now() + 1500 })
        .where('id', '=', started.id)
        .execute();
    }
    await seeded.restart();
    const done = await finished(seeded.platform, started.id);
    expect(done).toMatchObject({ status: 'done', total: 120, done: 120, errors: 0 });
    const redeliveries = await seeded.platform.ctx.db
      .selectFrom('deliveries')
      .select(['event_id', 'redelivery_of'])
      .where('installation_id', '=', seeded.space)
      .where('redelivery_of', 'is not', null)
      .execute();
    expect(redeliveries.map((r) => r.event_id).sort()).toEqual(ids);
    expect(new Set(redeliveries.map((r) => r.redelivery_of)).size).toBe(120);
  }, 60_000);
});

describe.each(backends)('upgrading a schema-6 database on $name', (backend) => {
  it('applies the dashboard migrations and recovers a delivery that failed before', async () => {
    const receiver = new ScriptedReceiver();
    await receiver.start();
    cleanups.push(() => receiver.close());
    const url = receiver.script('/old', [200]);
    const { config, cleanup } = await backend.fresh();
    cleanups.push(cleanup);
    const old = openDatabase({ url: config.databaseUrl, sqliteFile: `${config.dataDir}/portico.db` });
    await migrate(
      old,
      loadMigrations(old.dialect).filter((m) => m.id <= 6),
    );
    const box = new SecretBox(Buffer.from(SECRET_KEY, 'base64'));
    const { manifest } = BUILTINS[0] as (typeof BUILTINS)[number];
    const parsed = parseManifest(manifest, { internalPublisher: true });
    if (!parsed.ok) throw new Error('the built-in manifest does not parse');
    const hourAgo = Date.now() - 60 * 60 * 1000;
    await old.db
      .insertInto('organizations')
      .values({ id: 'portico', title: 'Portico', subdomain: null, created_at: 1 })
      .execute();
    await old.db
      .insertInto('organizations')
      .values({ id: 'acme', title: 'Acme', subdomain: null, created_at: 1 })
      .execute();
    await old.db
      .insertInto('spaces')
      .values({ id: 'docs', organization_id: 'acme', title: 'Docs', created_at: 1 })
      .execute();
    await old.db
      .insertInto('integrations')
      .values({
        name: 'webhook',
        organization_id: 'portico',
        visibility: 'public',
        share_token: 's',
        latest_version: 1,
        created_by: 'operator',
        created_at: 1,
        updated_at: 1,
      })
      .execute();
    await old.db
      .insertInto('integration_versions')
      .values({
        integration_name: 'webhook',
        version: 1,
        manifest: JSON.stringify(parsed.manifest),
        manifest_source: manifest,
        script: '// built in',
        secrets: null,
        published_by: 'operator',
        created_at: 1,
        endpoint: null,
        descriptor: null,
      })
      .execute();
    for (const [id, target, targetId, parent] of [
      ['inst_org', 'organization', 'acme', null],
      ['inst_space', 'space', 'docs', 'inst_org'],
    ] as const) {
      await old.db
        .insertInto('installations')
        .values({
          id,
          integration_name: 'webhook',
          organization_id: 'acme',
          target_type: target,
          target_id: targetId,
          parent_id: parent,
          status: 'active',
          configuration: target === 'space' ? JSON.stringify({ url, space_content_updated: true }) : '{}',
          installation_key: box.seal('key'),
          space_selection: target === 'organization' ? 'selected' : null,
          site_selection: target === 'organization' ? 'selected' : null,
          created_by: 'operator',
          created_at: 1,
          updated_at: 1,
          uninstalled_at: null,
        })
        .execute();
      await old.db
        .insertInto('installation_tokens')
        .values({
          token_hash: hashToken(`pti_${id}`),
          installation_id: id,
          token: box.seal(`pti_${id}`),
          scopes: '[]',
          created_at: 1,
          revoked_at: null,
        })
        .execute();
    }
    await old.db
      .insertInto('deliveries')
      .values({
        id: 'dlv_failed_before',
        installation_id: 'inst_space',
        event_id: 'evt_failed_before',
        type: 'space_content_updated',
        url,
        body: JSON.stringify({ eventId: 'evt_failed_before' }),
        status: 'failed',
        attempts: 1,
        next_attempt_at: null,
        claimed_until: null,
        last_error: 'HTTP 400',
        redelivery_of: null,
        endpoint_id: null,
        destination: null,
        created_at: hourAgo,
        updated_at: hourAgo,
      } as never)
      .execute();
    await old.close();

    const platform = await startPlatform({ ...config, secretKey: SECRET_KEY, allowPrivateNetwork: true });
    cleanups.push(() => platform.close());
    expect(platform.migrationsApplied).toEqual(
      loadMigrations(backend.name)
        .filter((m) => m.id > 6)
        .map((m) => m.name),
    );
    const admin = client(platform.url, platform.adminToken);
    const started = await admin('POST', '/v1/installations/inst_space/deliveries/recover', {
      since: new Date(hourAgo - 1000).toISOString(),
    });
    expect(started.body.total).toBe(1);
    expect(await finished(platform, started.body.id)).toMatchObject({ status: 'done', done: 1 });
    await until('the old event received', () =>
      receiver.at('/old').some((r) => JSON.parse(r.body).eventId === 'evt_failed_before') ? true : undefined,
    );
  }, 60_000);
});
