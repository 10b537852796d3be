/**
 * One call of an integration: the envelope (the event and the installation's environment) sent to
 * the host that runs its version, and the dispatch-log row that records it. The row is built, not
 * written: the caller writes it with its own changes.
 */
import type { PlatformEvent } from '@portico/runtime';
import type { Insertable } from 'kysely';
import { seenThroughIntegrationEndpoint } from '../gitbook/environment.js';
import { HostError, type HostKind, type HostResponse, type LogLine } from '../hosts/host.js';
import type { Database } from '../storage/schema.js';
import type { DeliveryTargets, DispatchGrant, ServiceContext } from '../types.js';
import { buildEnvironment, type KnownForEnvironment } from './environment.js';
import type { IntegrationRegistry } from './integration-registry.js';

export type DispatchRecord = Insertable<Database['dispatches']>;

export type CallResult = {
  host: HostKind;
  record: DispatchRecord;
} & ({ answer: HostResponse; error: undefined } | { answer: undefined; error: Error });

export interface CallSettings {
  ctx: ServiceContext;
  registry: IntegrationRegistry;
  /**
   * The `env` of an integration that runs in this process, for an event dispatch: service bindings
   * that act with the dispatch's grant (no token lookup per API call).
   */
  bindingsFor?: ((grant: DispatchGrant) => Record<string, unknown>) | undefined;
}

export async function callIntegration(
  settings: CallSettings,
  installation: Database['installations'],
  event: PlatformEvent,
  body?: Uint8Array,
  known?: KnownForEnvironment & {
    latestVersion: number;
    tokenScopes?: string[] | null;
    deliveryTargets?: DeliveryTargets;
  },
): Promise<CallResult> {
  const { ctx, registry } = settings;
  const bundle = await registry.bundle(installation.integration_name, known?.latestVersion);
  const host = registry.hostFor(bundle);
  const record = (status: number, durationMs: number, error: string | null, logs: LogLine[]): DispatchRecord => ({
    installation_id: installation.id,
    // Synchronous calls are no stored event's.
    event_id:
      event.type === 'fetch' || event.type === 'ui_render' || event.type === 'fetch_published_script'
        ? null
        : event.eventId,
    event_type: event.type,
    host: host.kind,
    status,
    duration_ms: Math.round(durationMs),
    error,
    // Hosts bound the lines (output.ts): the first 200, then one saying how many were dropped.
    logs: JSON.stringify(logs),
    at: ctx.now(),
  });
  const started = performance.now();
  try {
    const built = await buildEnvironment(ctx, installation, bundle, known);
    const environment = bundle.gitbook === undefined ? built : seenThroughIntegrationEndpoint(event, built);
    const scopes = known?.tokenScopes;
    const bindings =
      host.kind === 'in-process' && settings.bindingsFor && scopes && installation.uninstalled_at === null
        ? settings.bindingsFor({
            token: environment.apiTokens.installation,
            principal: { kind: 'installation', installationId: installation.id, scopes, installation },
            deliveryTargets: known?.deliveryTargets,
          })
        : undefined;
    const answer = await host.dispatch(bundle, {
      method: 'POST',
      envelope: { event, environment, ...(body ? { body } : {}) },
      installationId: installation.id,
      ...(bindings ? { bindings } : {}),
    });
    return {
      host: host.kind,
      answer,
      error: undefined,
      record: record(answer.status, answer.durationMs, null, answer.logs),
    };
  } catch (error) {
    const message = error instanceof HostError ? error.message : `dispatch failed: ${(error as Error).message}`;
    return {
      host: host.kind,
      answer: undefined,
      error: error as Error,
      record: record(0, performance.now() - started, message, []),
    };
  }
}
