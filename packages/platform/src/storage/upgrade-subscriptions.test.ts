/**
 * A database made by the version before subscriptions (schema 20: the webhook integration forwarded
 * each event through a dispatch, its endpoints only recorded where deliveries went) upgrades on
 * start, on SQLite and PostgreSQL: each configured webhook installation's configuration becomes its
 * first subscription over the endpoint of its URL (the endpoint's id, health and deliveries kept),
 * new events are fanned out to it, and a delivery that failed before the upgrade is redelivered to
 * the URL as it is after a fix.
 */
import { parseManifest } from '@portico/manifest';
import { afterEach, describe, expect, it } from 'vitest';
import { hashToken } from '../access/tokens.js';
import { BUILTINS } from '../builtins.js';
import { startPlatform } from '../server.js';
import { client } from '../test-support/api.js';
import { backends, SECRET_KEY } from '../test-support/backends.js';
import { databaseAtSchema } from '../test-support/older-database.js';
import { ScriptedReceiver, until } from '../test-support/webhook-world.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(backends)('upgrading a schema-20 database to subscriptions on $name', (backend) => {
  it('makes each configuration a subscription over its endpoint, and delivers to it', async () => {
    const receiver = new ScriptedReceiver();
    await receiver.start();
    cleanups.push(() => receiver.close());
    const wrong = receiver.script('/wrong', [500]);
    const fixed = receiver.script('/fixed', [200]);

    const { config, old, db, box } = await databaseAtSchema(backend, 20, cleanups);
    const { manifest } = BUILTINS[0] as (typeof BUILTINS)[number];
    const parsed = parseManifest(manifest, { internalPublisher: true });
    if (!parsed.ok) throw new Error('the built-in manifest does not parse');
    // (Recent enough for the retention job to keep.)
    const now = Date.now();
    await db
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
    await db
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
        gitbook: null,
      })
      .execute();
    const installation = (
      id: string,
      target: 'organization' | 'space',
      configuration: object,
      parent: string | null,
    ) => ({
      id,
      integration_name: 'webhook',
      organization_id: 'acme',
      target_type: target,
      target_id: target === 'space' ? 'docs' : 'acme',
      parent_id: parent,
      status: 'active' as const,
      configuration: JSON.stringify(configuration),
      installation_key: box.seal('key'),
      space_selection: target === 'organization' ? ('selected' as const) : null,
      site_selection: target === 'organization' ? ('selected' as const) : null,
      created_by: 'operator',
      created_at: 1,
      updated_at: 1,
      uninstalled_at: null,
    });
    await db
      .insertInto('installations')
      .values(installation('inst_org', 'organization', {}, null))
      .execute();
    await db
      .insertInto('installations')
      .values(
        installation(
          'inst_space',
          'space',
          { url: wrong, space_content_updated: true, headers: 'X-Team: docs', delivery_policy: 'standard' },
          'inst_org',
        ),
      )
      .execute();
    for (const id of ['inst_org', 'inst_space']) {
      await db
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
    // Where the version before delivered: a plain endpoint, failing, and a delivery that failed there.
    await db
      .insertInto('endpoints')
      .values({
        id: 'ep_before',
        installation_id: 'inst_space',
        url: wrong,
        destination: new URL(wrong).origin.replace(/^http:\/\/127\.0\.0\.1:(\d+)$/, 'http://127.0.0.1:$1'),
        consecutive_failures: 4,
        failing_since: now - 5000,
        last_success_at: null,
        last_failure_at: now - 1000,
        last_error: 'the receiver answered 500',
        disabled_at: null,
        disabled_reason: null,
        created_at: now - 10_000,
        updated_at: now - 1000,
      } as never)
      .execute();
    await db
      .insertInto('deliveries')
      .values({
        id: 'dlv_before',
        installation_id: 'inst_space',
        event_id: 'evt_before',
        type: 'space_content_updated',
        url: wrong,
        body: JSON.stringify({ eventId: 'evt_before', type: 'space_content_updated' }),
        status: 'failed',
        attempts: 4,
        next_attempt_at: null,
        claimed_until: null,
        last_error: 'gave up after 4 attempts: the receiver answered 500',
        redelivery_of: null,
        endpoint_id: 'ep_before',
        destination: 'x',
        headers: JSON.stringify({ 'X-Team': 'docs' }),
        policy: 'standard',
        created_at: now - 5000,
        updated_at: now - 1000,
      })
      .execute();
    await old.close();

    const platform = await startPlatform({ ...config, secretKey: SECRET_KEY, allowPrivateNetwork: true });
    cleanups.push(() => platform.close());
    expect(platform.migrationsApplied).toContain('021_subscriptions');
    const admin = client(platform.url, platform.adminToken);
    const endpoints = (await admin('GET', '/v1/installations/inst_space/endpoints')).body;
    expect(endpoints).toEqual([
      expect.objectContaining({
        id: 'ep_before',
        url: wrong,
        subscribed: true,
        fromConfiguration: true,
        eventTypes: ['space_content_updated'],
        headers: { 'X-Team': 'docs' },
        policy: 'standard',
        state: 'failing',
        consecutiveFailures: 4,
      }),
    ]);

    // Fixed through the configuration, the same endpoint goes to the new URL, healthy again.
    const saved = await admin('PATCH', '/v1/installations/inst_space/configuration', { url: fixed });
    expect(saved.status).toBe(200);
    const again = await admin('POST', '/v1/deliveries/dlv_before/redeliver');
    expect(again.body).toMatchObject({ url: fixed, endpointId: 'ep_before', redeliveryOf: 'dlv_before' });
    await admin('POST', '/v1/events', {
      type: 'space_content_updated',
      spaceId: 'docs',
      revisionId: 'r',
      eventId: 'evt_after',
    });
    const bodies = await until('both arrive at the fixed URL', () => {
      const got = receiver.at('/fixed').map((r) => JSON.parse(r.body).eventId);
      return got.length === 2 ? got.sort() : undefined;
    });
    expect(bodies).toEqual(['evt_after', 'evt_before']);
    expect(receiver.at('/fixed').every((r) => r.headers['x-team'] === 'docs')).toBe(true);
    expect(receiver.at('/wrong')).toEqual([]);
    // Started again, nothing is adopted twice.
    const rows = await platform.ctx.db
      .selectFrom('endpoints')
      .select('id')
      .where('installation_id', '=', 'inst_space')
      .execute();
    expect(rows).toEqual([{ id: 'ep_before' }]);
  }, 60_000);
});
