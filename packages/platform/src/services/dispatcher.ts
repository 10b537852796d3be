/**
 * Dispatch: sending envelopes to integrations, and the durable loop that works through what is
 * owed. Platform events are persisted first and routed here afterwards (each to the installations
 * whose target matches, that are active, whose scopes allow it and whose integration handles it);
 * routing writes one outbox row per installation in the same transaction that marks the event
 * routed. Outbox rows are claimed with a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL); an
 * installation's setup events go out one at a time and in order, and nothing overtakes them, while
 * its platform events go out side by side. Failures are retried with backoff, and every dispatch is
 * recorded with its host, status, duration, error and the integration's logs.
 */
import type { Manifest } from '@portico/manifest';
import { encodeEnvelope, type IntegrationDescriptor, type PlatformEvent } from '@portico/runtime';
import type { Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { Host, HostKind, HostResponse, IntegrationBundle } from '../hosts/host.js';
import { HostError } from '../hosts/host.js';
import type { InProcessHost } from '../hosts/in-process-host.js';
import type { Database } from '../storage/schema.js';
import type { ServiceContext } from './context.js';
import { buildEnvironment } from './environment.js';
import { WakeLoop } from './wake-loop.js';

type InstallationRow = Database['installations'];

/** The scope an integration needs to receive each platform event (DESIGN.md). */
export const REQUIRED_SCOPE: Record<string, string> = {
  space_content_updated: 'space:content:read',
  space_view: 'space:content:read',
  space_visibility_updated: 'space:metadata:read',
  space_gitsync_started: 'space:git:sync',
  space_gitsync_completed: 'space:git:sync',
  site_view: 'site:views:read',
  page_feedback: 'site:views:read',
};
export const SITE_EVENTS = new Set(['site_view', 'page_feedback']);

export interface Hosts {
  workerd: Host;
  inProcess: InProcessHost;
  remote: Host;
}

interface LoadedBundle extends IntegrationBundle {
  manifest: Manifest;
  secrets: string | null;
}

export interface DispatcherOptions {
  ctx: ServiceContext;
  hosts: Hosts;
  logger?: Logger | undefined;
  /** How often other nodes' work and retries are looked for (default 500 ms). */
  pollMs?: number;
  /** How long a claimed row stays with this node (default 30 s). */
  leaseMs?: number;
  /** Attempts before a dispatch is given up (default 5). */
  maxAttempts?: number;
}

export class Dispatcher {
  private readonly ctx: ServiceContext;
  private readonly bundles = new Map<string, Promise<LoadedBundle>>();
  private readonly descriptors = new Map<string, Promise<IntegrationDescriptor | undefined>>();
  private readonly loop: WakeLoop;

  constructor(private readonly options: DispatcherOptions) {
    this.ctx = options.ctx;
    this.loop = new WakeLoop(
      async () => {
        while ((await this.pass()) > 0 && !this.loop.isStopped) {}
      },
      () => options.pollMs ?? 500,
      (error) => options.logger?.error({ err: error }, 'dispatch pass failed'),
    );
  }

  start(): void {
    this.ctx.wake = () => this.loop.wake();
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.ctx.wake = () => {};
    await this.loop.stop();
  }

  /** Runs a pass now (or right after the one running). */
  wake(): void {
    this.loop.wake();
  }

  /** Routes waiting events and dispatches one batch of owed rows; answers how much it did. */
  async pass(): Promise<number> {
    const routed = await this.routeEvents();
    const dispatched = await this.dispatchOwed();
    return routed + dispatched;
  }

  /** Sends one event to one installation now, records the dispatch, and answers the integration's response. */
  async send(
    installation: InstallationRow,
    event: PlatformEvent,
    body?: Uint8Array,
  ): Promise<HostResponse & { host: HostKind }> {
    const bundle = await this.bundle(installation.integration_name);
    const host = this.hostFor(bundle);
    const environment = await buildEnvironment(this.ctx, installation, bundle);
    const encoded = await encodeEnvelope({ event, environment, ...(body ? { body } : {}) });
    const started = performance.now();
    try {
      const response = await host.dispatch(bundle, {
        method: 'POST',
        headers: encoded.headers,
        body: encoded.body,
        installationId: installation.id,
      });
      await this.record(installation.id, event, host.kind, response.status, response.durationMs, null, response.logs);
      return { ...response, host: host.kind };
    } catch (error) {
      const message = error instanceof HostError ? error.message : `dispatch failed: ${(error as Error).message}`;
      await this.record(installation.id, event, host.kind, 0, performance.now() - started, message, []);
      throw error;
    }
  }

  /** What the integration handles (`GET /v1`), cached per version; undefined when it cannot tell. */
  async describe(bundle: IntegrationBundle): Promise<IntegrationDescriptor | undefined> {
    const key = `${bundle.name}@${bundle.version}`;
    let descriptor = this.descriptors.get(key);
    if (descriptor === undefined) {
      descriptor = this.hostFor(bundle)
        .dispatch(bundle, { method: 'GET', headers: {} })
        .then((response) =>
          response.status === 200
            ? (JSON.parse(new TextDecoder().decode(response.body)) as IntegrationDescriptor)
            : undefined,
        )
        .catch(() => undefined);
      this.descriptors.set(key, descriptor);
      void descriptor.then((d) => d === undefined && this.descriptors.delete(key));
    }
    return descriptor;
  }

  /** The latest published version of an integration, cached by version. */
  async bundle(name: string, version?: number): Promise<LoadedBundle> {
    const latest =
      version ??
      (
        await this.ctx.db
          .selectFrom('integrations')
          .select('latest_version')
          .where('name', '=', name)
          .executeTakeFirstOrThrow()
      ).latest_version;
    const key = `${name}@${latest}`;
    let bundle = this.bundles.get(key);
    if (bundle === undefined) {
      bundle = this.ctx.db
        .selectFrom('integration_versions')
        .selectAll()
        .where('integration_name', '=', name)
        .where('version', '=', latest)
        .executeTakeFirstOrThrow()
        .then((row) => ({
          name,
          version: latest,
          script: row.script,
          endpoint: row.endpoint,
          manifest: JSON.parse(row.manifest) as Manifest,
          secrets: row.secrets,
        }));
      this.bundles.set(key, bundle);
      bundle.catch(() => this.bundles.delete(key));
    }
    return bundle;
  }

  hostFor(bundle: IntegrationBundle): Host {
    if (this.options.hosts.inProcess.has(bundle.name)) return this.options.hosts.inProcess;
    if (bundle.endpoint) return this.options.hosts.remote;
    return this.options.hosts.workerd;
  }

  private async record(
    installationId: string,
    event: PlatformEvent,
    host: HostKind,
    status: number,
    durationMs: number,
    error: string | null,
    logs: string[],
  ) {
    await this.ctx.db
      .insertInto('dispatches')
      .values({
        installation_id: installationId,
        event_id: event.type === 'fetch' || event.type === 'ui_render' ? null : event.eventId,
        event_type: event.type,
        host,
        status,
        duration_ms: Math.round(durationMs),
        error,
        logs: JSON.stringify(logs.slice(0, 200)),
        at: this.ctx.now(),
      })
      .execute();
  }

  private async routeEvents(): Promise<number> {
    const events = await this.ctx.db
      .selectFrom('events')
      .selectAll()
      .where('routed_at', 'is', null)
      .orderBy('received_at')
      .limit(20)
      .execute();
    for (const event of events) {
      const payload = JSON.parse(event.payload) as Record<string, unknown> & { type: string; eventId: string };
      const targets = await this.targetsOf(payload);
      await this.ctx.db.transaction().execute(async (trx) => {
        const marked = await trx
          .updateTable('events')
          .set({ routed_at: this.ctx.now() })
          .where('event_id', '=', event.event_id)
          .where('routed_at', 'is', null)
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) === 0) return; // another node routed it
        for (const installation of targets) {
          await trx
            .insertInto('outbox')
            .values({
              installation_id: installation.id,
              event_id: event.event_id,
              event: JSON.stringify({ ...payload, installationId: installation.id }),
              created_at: this.ctx.now(),
              dispatched_at: null,
            })
            .execute();
        }
      });
    }
    return events.length;
  }

  /** Installations an event goes to: matching target, active, allowed by scope, with a handler. */
  private async targetsOf(event: Record<string, unknown> & { type: string }): Promise<InstallationRow[]> {
    const site = SITE_EVENTS.has(event.type);
    const placeId = String(site ? event.siteId : event.spaceId);
    const place = await this.ctx.db
      .selectFrom(site ? 'sites' : 'spaces')
      .select('organization_id')
      .where('id', '=', placeId)
      .executeTakeFirst();
    if (!place) return [];
    const candidates = await this.ctx.db
      .selectFrom('installations')
      .selectAll()
      .where('uninstalled_at', 'is', null)
      .where('status', '=', 'active')
      .where((eb) =>
        eb.or([
          eb.and([eb('target_type', '=', site ? 'site' : 'space'), eb('target_id', '=', placeId)]),
          eb.and([eb('target_type', '=', 'organization'), eb('organization_id', '=', place.organization_id)]),
        ]),
      )
      .orderBy('created_at')
      .execute();
    const targets: InstallationRow[] = [];
    for (const installation of candidates) {
      const bundle = await this.bundle(installation.integration_name);
      const scope = REQUIRED_SCOPE[event.type];
      if (scope !== undefined && !(bundle.manifest.scopes as string[]).includes(scope)) continue;
      const descriptor = await this.describe(bundle);
      if (descriptor !== undefined && !descriptor.events.includes(event.type)) continue;
      targets.push(installation);
    }
    return targets;
  }

  private async dispatchOwed(): Promise<number> {
    const now = this.ctx.now();
    const lease = this.options.leaseMs ?? 30_000;
    const postgres = this.ctx.dialect === 'postgres';
    const claimed = await this.ctx.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('outbox as o')
        .selectAll('o')
        .where('o.dispatched_at', 'is', null)
        .where('o.available_at', '<=', now)
        .where((eb) => eb.or([eb('o.claimed_until', 'is', null), eb('o.claimed_until', '<', now)]))
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('outbox as earlier')
                .select('earlier.id')
                .whereRef('earlier.installation_id', '=', 'o.installation_id')
                .where('earlier.dispatched_at', 'is', null)
                .where('earlier.event_id', 'is', null)
                .whereRef('earlier.id', '<', 'o.id'),
            ),
          ),
        )
        .orderBy('o.id')
        .limit(32)
        .$if(postgres, (qb) => qb.forUpdate().skipLocked())
        .execute();
      if (rows.length > 0) {
        await trx
          .updateTable('outbox')
          .set({ claimed_until: now + lease })
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .execute();
      }
      return rows;
    });
    await Promise.all(claimed.map((row) => this.dispatchRow(row)));
    return claimed.length;
  }

  private async dispatchRow(row: Selectable<Database['outbox']>) {
    const settle = (outcome: string) =>
      this.ctx.db
        .updateTable('outbox')
        .set({ dispatched_at: this.ctx.now(), outcome, claimed_until: null })
        .where('id', '=', row.id)
        .execute();
    const installation = await this.ctx.db
      .selectFrom('installations')
      .selectAll()
      .where('id', '=', row.installation_id)
      .executeTakeFirst();
    if (!installation || installation.uninstalled_at !== null) return settle('skipped: uninstalled');
    const owed = JSON.parse(row.event) as Record<string, unknown> & { type: string };
    const setup = row.event_id === null;
    if (installation.status === 'paused') return settle('skipped: paused');
    if (!setup && installation.status !== 'active') return settle(`skipped: ${installation.status}`);
    const { cause: _cause, ...fields } = owed;
    const event = (setup
      ? { ...fields, eventId: `setup_${row.id}`, status: installation.status }
      : fields) as unknown as PlatformEvent;
    let failure: string;
    try {
      const response = await this.send(installation, event);
      if (response.status >= 200 && response.status < 300) return settle('delivered');
      const text = new TextDecoder().decode(response.body).slice(0, 500);
      if (response.status === 404 && text.includes('event_not_handled')) return settle('not_handled');
      if (response.status < 500 && response.status !== 429) return settle(`failed: ${response.status} ${text}`);
      failure = `${response.status} ${text}`;
    } catch (error) {
      failure = (error as Error).message;
    }
    const attempts = row.attempts + 1;
    if (attempts >= (this.options.maxAttempts ?? 5)) return settle(`failed after ${attempts} attempts: ${failure}`);
    await this.ctx.db
      .updateTable('outbox')
      .set({
        attempts,
        available_at: this.ctx.now() + 1000 * 2 ** (attempts - 1),
        claimed_until: null,
        outcome: `retrying: ${failure}`,
      })
      .where('id', '=', row.id)
      .execute();
  }
}
