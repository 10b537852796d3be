/**
 * Turns tracing on for a server. A file of its own so that the SDK's module (`otel-tracing.ts`) is
 * reached only through the dynamic import below, and nothing imports back into it.
 */
import type { Logger } from 'pino';
import { type PipelineTracing, TraceIds, type TracingSettings } from './tracing.js';

/**
 * Tracing for a server: undefined when `settings` is (nothing is loaded); else the SDK and the
 * exporter are imported now.
 */
export async function startTracing(
  settings: TracingSettings | undefined,
  secret: Uint8Array,
  options: { version: string; logger?: Logger | undefined },
): Promise<PipelineTracing | undefined> {
  if (settings === undefined) return undefined;
  const { OtelTracing } = await import('./otel-tracing.js');
  const tracing = await OtelTracing.start(settings, new TraceIds(secret), options);
  options.logger?.info(
    { traces: settings.tracesUrl, protocol: settings.protocol, service: settings.serviceName },
    'exporting traces (OpenTelemetry)',
  );
  return tracing;
}
