/**
 * Where the pipeline tells operator alerts (operator-alerts.ts) that something an operator should
 * know about happened. Each is called only once its cause is committed, never on the path of a
 * delivery that succeeds, and never waits: an alert is written and sent in the background.
 */
import type { Database } from '../storage/schema.js';

export interface AlertHooks {
  /** A delivery ended `failed` after an attempt; `disabledEndpoint`: that attempt disabled its endpoint. */
  deliveryEnded(deliveryId: string, disabledEndpoint: boolean): void;
  /**
   * An endpoint is about to be enabled: answers, when it is disabled now, what to call once the
   * enabling has committed (it sends `endpoint.recovered`).
   */
  endpointEnabling(installationId: string, endpointId: string): Promise<(() => void) | undefined>;
  /** An integration's circuit breaker opened, after the failure of the dispatch of `row`. */
  circuitOpened(opened: CircuitOpened): void;
  /**
   * Early warning: an attempt to the endpoint failed, `failures` in a row now (its consecutive
   * failures, as stored once the attempt's result committed). Sends `endpoint.failing` when that
   * reaches the threshold (`OperatorAlertsOptions.failingAfter`), once per streak.
   */
  endpointFailed?(installationId: string, endpointId: string, failures: number, lastError: string): void;
  /**
   * An attempt to the endpoint succeeded after `failuresBefore` failures in a row: when those had
   * reached the threshold (`endpoint.failing` was sent), sends `endpoint.recovered`.
   */
  endpointAnswered?(installationId: string, endpointId: string, failuresBefore: number): void;
  /**
   * A version was published that asks an organization installation for scopes its organization has
   * not granted (committed): sends `installation.scopes_requested` (DESIGN.md "Granted scopes").
   */
  scopesRequested?(request: ScopesRequested): void;
}

export interface ScopesRequested {
  installationId: string;
  integration: string;
  version: number;
  granted: string[];
  requested: string[];
}

export interface CircuitOpened {
  integration: string;
  /** Failures in a row that opened it. */
  failures: number;
  /** When it lets a probe through (Unix ms). */
  until: number;
  /** The last failure. */
  cause: string;
  /** The owed row whose dispatch failed and opened it. */
  row: Pick<Database['outbox'], 'installation_id' | 'event_id' | 'event_type'>;
}
