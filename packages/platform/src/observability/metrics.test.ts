/**
 * GET /metrics on the real server, on SQLite and PostgreSQL: real events ingested and delivered to
 * a receiver on 127.0.0.1 move the counters and histograms; what is owed is read on scrape and
 * moves as work waits and ends; labels carry no ids; Prometheus's own `promtool check metrics`
 * finds nothing to say; PORTICO_METRICS_TOKEN guards the route.
 */
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { startPlatform } from '../server.js';
import { backends } from '../test-support/backends.js';
import { fetchRequest } from '../test-support/host-request.js';
import { parseMetrics, type Scrape, scrape } from '../test-support/metrics-text.js';
import { ScriptedReceiver, until, webhookWorldFor } from '../test-support/webhook-world.js';

const root = new URL('../../../../', import.meta.url).pathname;

/** How much a sample grew between two scrapes (a sample not there yet counts 0). */
const grew = (before: Scrape, after: Scrape, name: string, labels?: Record<string, string>) =>
  (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);

describe.each(backends)('metrics on $name', (backend) => {
  const receiver = new ScriptedReceiver();
  const world = webhookWorldFor(backend, { tuning: { workerIdleMs: 500 } }, [receiver]);

  /** A scrape once nothing is owed to integrations (the setup events of a configuration change went out). */
  const settled = () =>
    until('the outbox to be empty', async () => {
      const now = await scrape(world.platform.url);
      return now.value('portico_outbox_owed') === 0 ? now : undefined;
    });

  async function send(event: Record<string, unknown>) {
    const answer = await world.admin('POST', '/v1/events', event);
    expect(answer.status).toBe(202);
    return answer.body.eventId as string;
  }

  it('counts events ingested by type, duplicates, attempts and deliveries as real events flow (fanned out: no dispatch)', async () => {
    const url = receiver.script('/counted', [500, 200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
    const before = await settled();
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(await send({ type: 'space_content_updated', spaceId: 'docs', revisionId: `r${i}` }));
    expect(
      (
        await world.admin('POST', '/v1/events', {
          type: 'space_content_updated',
          spaceId: 'docs',
          revisionId: 'x',
          eventId: ids[0],
        })
      ).body.duplicate,
    ).toBe(true);
    // A delivery may be written delivered a moment before its attempt is counted: wait for the
    // counts, not for the rows.
    const after = await until('3 deliveries counted', async () => {
      const now = await scrape(world.platform.url);
      return grew(before, now, 'portico_deliveries_total', { outcome: 'delivered' }) >= 3 ? now : undefined;
    });
    expect(grew(before, after, 'portico_events_ingested_total', { type: 'space_content_updated' })).toBe(3);
    expect(grew(before, after, 'portico_events_duplicate_total')).toBe(1);
    // Fanned out to the webhook subscription when accepted: no dispatch.
    expect(grew(before, after, 'portico_dispatches_total', { outcome: 'delivered' })).toBe(0);
    // The first attempt answered 500 and was retried; then every attempt answered 200.
    expect(grew(before, after, 'portico_delivery_attempts_total', { class: '5xx' })).toBe(1);
    expect(grew(before, after, 'portico_delivery_attempts_total', { class: '2xx' })).toBe(3);
    expect(grew(before, after, 'portico_deliveries_total', { outcome: 'delivered' })).toBe(3);
    expect(grew(before, after, 'portico_delivery_attempt_duration_seconds_count', { class: '2xx' })).toBe(3);
    expect(grew(before, after, 'portico_ingest_to_receipt_seconds_count')).toBe(3);
    // The retried delivery waited at least its 1 s retry: its receipt falls above the 1 s bucket.
    expect(
      grew(before, after, 'portico_ingest_to_receipt_seconds_count') -
        grew(before, after, 'portico_ingest_to_receipt_seconds_bucket', { le: '1' }),
    ).toBeGreaterThanOrEqual(1);
    expect(grew(before, after, 'portico_group_commit_batch_size_count')).toBeGreaterThan(0);
    expect(after.value('portico_outbox_owed')).toBe(0);
    expect(after.value('portico_deliveries_pending', { state: 'first_attempt' })).toBe(0);
    expect(after.value('portico_deliveries_pending', { state: 'retry_scheduled' })).toBe(0);
    expect(after.value('portico_endpoints', { state: 'healthy' })).toBe(1);
    // No label carries an installation, event or delivery id.
    for (const id of [world.space, world.orgInstallation, ...ids]) expect(after.text).not.toContain(id);
    expect(after.text).not.toMatch(/dlv_|inst_|evt_/);
  });

  it('counts a failed delivery and a failing endpoint, and a refused event not at all', async () => {
    const url = receiver.script('/refusing', [400]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
    const before = await scrape(world.platform.url);
    expect(
      (await world.admin('POST', '/v1/events', { type: 'space_content_updated', spaceId: 'nowhere', revisionId: 'r' }))
        .status,
    ).toBe(404);
    await send({ type: 'space_content_updated', spaceId: 'docs', revisionId: 'bad' });
    const after = await until('the delivery to fail', async () => {
      const now = await scrape(world.platform.url);
      return grew(before, now, 'portico_deliveries_total', { outcome: 'failed' }) === 1 ? now : undefined;
    });
    expect(grew(before, after, 'portico_events_ingested_total', { type: 'space_content_updated' })).toBe(1);
    expect(grew(before, after, 'portico_delivery_attempts_total', { class: '4xx' })).toBe(1);
    // The configuration's subscription moved to the refusing URL (starting healthy): it is failing,
    // and no endpoint else.
    expect(after.value('portico_endpoints', { state: 'failing' })).toBe(1);
    expect(after.value('portico_endpoints', { state: 'healthy' })).toBe(0);
  });

  it('reads what is owed on scrape: deliveries waiting while no engine works them, none once it does', async () => {
    const url = receiver.script('/owed', [200]);
    await world.ada('PATCH', `/v1/installations/${world.space}/configuration`, { url, space_content_updated: true });
    await world.platform.deliveries.stop();
    try {
      for (let i = 0; i < 4; i++) await send({ type: 'space_content_updated', spaceId: 'docs', revisionId: `o${i}` });
      const waiting = await until('4 deliveries owed', async () => {
        const now = await scrape(world.platform.url);
        return now.value('portico_deliveries_pending', { state: 'first_attempt' }) === 4 ? now : undefined;
      });
      expect(waiting.value('portico_deliveries_held', { state: 'attempting' })).toBe(0);
    } finally {
      world.platform.deliveries.start();
    }
    await until('nothing owed', async () => {
      const now = await scrape(world.platform.url);
      return now.value('portico_deliveries_pending', { state: 'first_attempt' }) === 0 ? true : undefined;
    });
    expect(receiver.at('/owed')).toHaveLength(4);
  });

  it('reports the database pool on PostgreSQL only', async () => {
    const now = await scrape(world.platform.url);
    // Both pools together: 10 connections for the API, 4 for the delivery engine's results (decision 062).
    if (backend.name === 'postgres') expect(now.value('portico_db_pool_connections', { state: 'max' })).toBe(14);
    else expect(now.text).not.toMatch(/^portico_db_pool_connections\{/m);
  });

  it('reports live workerd workers and their memory, and counts their stops by reason', async () => {
    const script = (
      await build({
        stdin: {
          contents:
            "import { createIntegration } from '@portico/runtime';\nexport default createIntegration({ fetch: async () => new Response('ok') });",
          resolveDir: root,
          loader: 'ts',
        },
        bundle: true,
        format: 'esm',
        platform: 'neutral',
        conditions: ['source'],
        mainFields: ['module', 'main'],
        write: false,
        logLevel: 'silent',
      })
    ).outputFiles[0]?.text as string;
    const before = await scrape(world.platform.url);
    const answer = await world.platform.hosts.workerd.dispatch(
      { name: 'metered', version: 1, script },
      fetchRequest('/ok'),
    );
    expect(answer.status).toBe(200);
    const live = await scrape(world.platform.url);
    expect(live.value('portico_workerd_workers')).toBe(1);
    expect(live.value('portico_workerd_memory_bytes')).toBeGreaterThan(1024 * 1024);
    // Idle for 500 ms (the world's setting): stopped.
    // (A stop is counted once its process has ended, a moment after the worker left the live ones.)
    const stopped = await until('the idle worker to stop', async () => {
      const now = await scrape(world.platform.url);
      const counted = grew(before, now, 'portico_workerd_worker_stops_total', { reason: 'idle' }) === 1;
      return now.value('portico_workerd_workers') === 0 && counted ? now : undefined;
    });
    expect(stopped.value('portico_workerd_memory_bytes')).toBe(0);
  }, 60_000);

  it('passes `promtool check metrics` on what it serves after real traffic', async (test) => {
    const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
    if (promtool.error) {
      // CI installs it (.ci/run); elsewhere: apt-get install prometheus.
      if (process.env.CI) throw new Error(`promtool is needed in CI: ${promtool.error.message}`);
      test.skip();
      return;
    }
    const text = await fetch(`${world.platform.url}/metrics`).then((r) => r.text());
    expect(text).toContain('portico_deliveries_total');
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect({ status: checked.status, problems: `${checked.stdout}${checked.stderr}`.trim() }).toEqual({
      status: 0,
      problems: '',
    });
  });
});

describe.each(backends)('the metrics token on $name', (backend) => {
  it('refuses /metrics without PORTICO_METRICS_TOKEN or with another token (401, the API error shape), answers it with', async () => {
    const { config, cleanup } = await backend.fresh();
    const platform = await startPlatform({ ...config, metricsToken: 'metrics-secret' });
    try {
      const bare = await fetch(`${platform.url}/metrics`);
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await bare.json()).toEqual({
        error: { code: 'unauthorized', message: expect.stringContaining('PORTICO_METRICS_TOKEN') },
      });
      for (const header of ['Bearer wrong', `Bearer ${platform.adminToken}`, 'Basic bWV0cmljcy1zZWNyZXQ=']) {
        const refused = await fetch(`${platform.url}/metrics`, { headers: { authorization: header } });
        expect(refused.status).toBe(401);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
      const allowed = await fetch(`${platform.url}/metrics`, { headers: { authorization: 'Bearer metrics-secret' } });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('content-type')).toContain('text/plain');
      expect(parseMetrics(await allowed.text()).types.get('portico_events_ingested_total')).toBe('counter');
      // Readiness stays open to probes.
      expect((await fetch(`${platform.url}/readyz`)).status).toBe(200);
    } finally {
      await platform.close();
      await cleanup();
    }
  });

  it('answers /metrics to anyone on the server’s address when no token is set', async () => {
    const { config, cleanup } = await backend.fresh();
    const platform = await startPlatform(config);
    try {
      const open = await fetch(`${platform.url}/metrics`);
      expect(open.status).toBe(200);
      expect(parseMetrics(await open.text()).types.get('portico_delivery_attempt_duration_seconds')).toBe('histogram');
    } finally {
      await platform.close();
      await cleanup();
    }
  });
});
