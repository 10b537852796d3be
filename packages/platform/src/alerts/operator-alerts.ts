/**
 * Operator alerts (decision 034): `delivery.failed`, `endpoint.disabled`, `endpoint.recovered` and
 * `integration.circuit_opened`, each a signed JSON POST to `PORTICO_ALERT_URL`, and to the alert URL
 * of the organization of the installation it is about, when its admins set one (decision 036).
 *
 * An alert is a delivery of Portico's own delivery engine, asked for like any other
 * (`requestDelivery`): a durable row, signed with `X-Platform-Signature`, retried in the spec's
 * windows, shown in the deliveries log, redeliverable. It belongs to the **alerts installation**
 * (`portico-alerts`): an organization installation of the built-in webhook integration in the
 * built-in `portico` organization, made at start when the setting is there. Its signing secret
 * is the operator's to read and rotate (`GET /v1/installations/portico-alerts/signing-secret`).
 *
 * An organization's alerts are deliveries of its own alerts installation (`portico-alerts-<org>`,
 * made when an admin first sets its URL, in the built-in organization like the operator's), signed
 * with that installation's secret, which the organization's admins read
 * (`GET /v1/orgs/{org}/alert-url/signing-secret`): one organization never sees another's alerts.
 *
 * Alerts never go to the endpoint they are about: the alert endpoints are the alerts installations',
 * and an alert about an endpoint whose URL is an alert URL itself is not sent there. Nothing about
 * an alerts installation's own deliveries or endpoint is alerted, so an alert that fails makes no alert.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { BUILTIN_ORGANIZATION } from '../builtins.js';
import { requestDelivery } from '../delivery/deliveries.js';
import { validSecrets } from '../delivery/signing-secrets.js';
import { ConfigError } from '../errors/config-error.js';
import * as repository from '../storage/repositories/alerts.js';
import type { ServiceContext } from '../types.js';
import type { AlertHooks, CircuitOpened, ScopesRequested } from './alert-hooks.js';

/** The installation the operator's alert deliveries belong to. */
export const ALERTS_INSTALLATION_ID = 'portico-alerts';

/** The installation an organization's alert deliveries belong to. */
export const organizationAlertsInstallationId = (organizationId: string) =>
  `${ALERTS_INSTALLATION_ID}-${organizationId}`;

/** Whether the installation is one alerts are delivered for (the operator's or an organization's). */
export const isAlertsInstallation = (installationId: string) =>
  installationId === ALERTS_INSTALLATION_ID || installationId.startsWith(`${ALERTS_INSTALLATION_ID}-`);

export type AlertType =
  | 'delivery.failed'
  | 'endpoint.failing'
  | 'endpoint.disabled'
  | 'endpoint.recovered'
  | 'integration.circuit_opened'
  | 'installation.scopes_requested';

/** Failures in a row after which an endpoint is reported failing (`endpoint.failing`), by default. */
export const FAILING_AFTER = 5;

/** The JSON body of an alert: every key is always there, null when it does not apply. */
export interface OperatorAlert {
  /** Unique per alert and stable for its cause: a receiver dedupes on it. Also `X-Platform-Event-Id`. */
  eventId: string;
  type: AlertType;
  occurredAt: string;
  /** The installation it is about (for a circuit breaker: the one whose dispatch opened it). */
  installation: {
    id: string;
    integration: string;
    organizationId: string;
    target: { type: string; id: string };
  } | null;
  /** The endpoint (the installation's URL) it is about. */
  endpoint: { id: string; url: string; disabledReason: string | null } | null;
  /** The platform event of the delivery or dispatch it is about (`type` is the delivery's type). */
  event: { id: string; type: string } | null;
  /** The delivery that ended failed, or whose attempt disabled the endpoint. */
  delivery: { id: string; attempts: number } | null;
  /** For `integration.circuit_opened`. */
  circuit: { integration: string; failures: number; retryAt: string } | null;
  lastError: string | null;
  /** For `installation.scopes_requested` only: what was granted, what the new version asks for beyond it. */
  scopes?: { version: number; granted: string[]; requested: string[] };
}

export interface OperatorAlertsOptions {
  ctx: ServiceContext;
  /** PORTICO_ALERT_URL; undefined: only organizations' alert URLs get alerts. */
  url: string | undefined;
  logger?: Logger | undefined;
  /**
   * Failures in a row after which `endpoint.failing` is sent (default FAILING_AFTER): an early
   * warning, long before a delivery is given up or the endpoint disabled (days, under the extended policy).
   */
  failingAfter?: number | undefined;
}

type Facts = NonNullable<Awaited<ReturnType<typeof repository.installationFacts>>>;

/** Where the organization of the installation an alert is about wants its alerts (both null: nowhere). */
type OrganizationAlert = Pick<Facts, 'org_alert_url' | 'org_alert_installation'>;

const installationOf = (facts: Facts): OperatorAlert['installation'] => ({
  id: facts.installation_id,
  integration: facts.integration_name,
  organizationId: facts.organization_id,
  target: { type: facts.target_type, id: facts.target_id },
});

const sameUrl = (a: string, b: string) => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
};

export class OperatorAlerts implements AlertHooks {
  private readonly ctx: ServiceContext;
  private readonly url: string | undefined;
  private readonly logger: Logger | undefined;
  /** Alerts being read or written now (`drain` waits for them). */
  private readonly underWay = new Set<Promise<void>>();

  private readonly failingAfter: number;

  private constructor(options: OperatorAlertsOptions) {
    this.ctx = options.ctx;
    this.url = options.url;
    this.logger = options.logger;
    this.failingAfter = options.failingAfter ?? FAILING_AFTER;
  }

  /**
   * Makes the operator's alerts installation exist when PORTICO_ALERT_URL is set (after the
   * built-ins are published) and answers the alerts.
   */
  static async start(options: OperatorAlertsOptions): Promise<OperatorAlerts> {
    const { ctx } = options;
    if (options.url === undefined) return new OperatorAlerts(options);
    const there = await repository.ensureAlertsInstallation(ctx.db, {
      id: ALERTS_INSTALLATION_ID,
      organizationId: BUILTIN_ORGANIZATION,
      integration: 'webhook',
      installationKey: ctx.box.seal(randomBytes(32).toString('base64url')),
      now: ctx.now(),
    });
    if (!there) {
      throw new ConfigError(
        `PORTICO_ALERT_URL is set, but the installation ${ALERTS_INSTALLATION_ID} that alerts are delivered for could not be made: the webhook integration is already installed in the ${BUILTIN_ORGANIZATION} organization, or ${ALERTS_INSTALLATION_ID} was uninstalled. Uninstall the other installation, or unset PORTICO_ALERT_URL`,
      );
    }
    // Its signing secret exists before the first alert, so the operator can read it at once.
    await validSecrets(ctx, ALERTS_INSTALLATION_ID);
    options.logger?.info(
      { alertUrl: options.url, installation: ALERTS_INSTALLATION_ID },
      `operator alerts go to the alert URL, signed with the secret of GET /v1/installations/${ALERTS_INSTALLATION_ID}/signing-secret`,
    );
    return new OperatorAlerts(options);
  }

  deliveryEnded(deliveryId: string, disabledEndpoint: boolean): void {
    this.inBackground('delivery', async () => {
      const ended = await repository.endedDelivery(this.ctx.db, deliveryId);
      // An alert's own delivery failing makes no alert.
      if (ended === undefined || isAlertsInstallation(ended.installation_id)) return;
      if (ended.status !== 'failed') return;
      const endpoint =
        ended.endpoint_id === null
          ? null
          : { id: ended.endpoint_id, url: ended.url, disabledReason: ended.disabled_reason };
      const common = {
        installation: installationOf(ended),
        endpoint,
        event: { id: ended.event_id, type: ended.type },
        delivery: { id: ended.id, attempts: ended.attempts },
        circuit: null,
      };
      if (disabledEndpoint && ended.endpoint_id !== null) {
        await this.send(ended, ended.url, {
          eventId: `endpoint.disabled:${ended.endpoint_id}:${ended.disabled_at ?? 0}`,
          type: 'endpoint.disabled',
          ...common,
          lastError: ended.endpoint_last_error ?? ended.last_error,
        });
      }
      // Every delivery that ended failed is said, also one its endpoint's disabling ended or one
      // refused while it is disabled: each is an event its receiver did not get.
      await this.send(ended, ended.url, {
        eventId: `delivery.failed:${ended.id}`,
        type: 'delivery.failed',
        ...common,
        lastError: ended.last_error,
      });
    });
  }

  async endpointEnabling(installationId: string, endpointId: string): Promise<(() => void) | undefined> {
    if (isAlertsInstallation(installationId)) return undefined;
    const before = await repository.endpointWithInstallation(this.ctx.db, installationId, endpointId);
    if (before === undefined || before.disabled_at === null) return undefined;
    return () => {
      const at = this.ctx.now();
      this.inBackground('endpoint', () =>
        this.send(before, before.url, {
          eventId: `endpoint.recovered:${before.id}:${at}`,
          type: 'endpoint.recovered',
          installation: installationOf(before),
          endpoint: { id: before.id, url: before.url, disabledReason: before.disabled_reason },
          event: null,
          delivery: null,
          circuit: null,
          lastError: before.last_error,
        }),
      );
    };
  }

  endpointFailed(installationId: string, endpointId: string, failures: number, lastError: string): void {
    // Once per streak: at the threshold, not at every failure after it.
    if (failures !== this.failingAfter || isAlertsInstallation(installationId)) return;
    const at = this.ctx.now();
    this.inBackground('failing endpoint', async () => {
      const endpoint = await repository.endpointWithInstallation(this.ctx.db, installationId, endpointId);
      if (endpoint === undefined) return;
      await this.send(endpoint, endpoint.url, {
        eventId: `endpoint.failing:${endpoint.id}:${at}`,
        type: 'endpoint.failing',
        installation: installationOf(endpoint),
        endpoint: { id: endpoint.id, url: endpoint.url, disabledReason: endpoint.disabled_reason },
        event: null,
        delivery: null,
        circuit: null,
        lastError: lastError.slice(0, 2000),
      });
    });
  }

  endpointAnswered(installationId: string, endpointId: string, failuresBefore: number): void {
    // Only a streak that was reported failing is reported over.
    if (failuresBefore < this.failingAfter || isAlertsInstallation(installationId)) return;
    const at = this.ctx.now();
    this.inBackground('recovered endpoint', async () => {
      const endpoint = await repository.endpointWithInstallation(this.ctx.db, installationId, endpointId);
      if (endpoint === undefined) return;
      await this.send(endpoint, endpoint.url, {
        eventId: `endpoint.recovered:${endpoint.id}:${at}`,
        type: 'endpoint.recovered',
        installation: installationOf(endpoint),
        endpoint: { id: endpoint.id, url: endpoint.url, disabledReason: endpoint.disabled_reason },
        event: null,
        delivery: null,
        circuit: null,
        lastError:
          `answered after ${failuresBefore} failed attempts in a row; last: ${endpoint.last_error ?? 'unknown'}`.slice(
            0,
            2000,
          ),
      });
    });
  }

  circuitOpened(opened: CircuitOpened): void {
    this.inBackground('circuit breaker', async () => {
      const facts = await repository.installationFacts(this.ctx.db, opened.row.installation_id);
      await this.send(facts, undefined, {
        eventId: `integration.circuit_opened:${opened.integration}:${opened.until}`,
        type: 'integration.circuit_opened',
        installation: facts === undefined ? null : installationOf(facts),
        endpoint: null,
        event: opened.row.event_id === null ? null : { id: opened.row.event_id, type: opened.row.event_type },
        delivery: null,
        circuit: {
          integration: opened.integration,
          failures: opened.failures,
          retryAt: new Date(opened.until).toISOString(),
        },
        lastError: opened.cause,
      });
    });
  }

  scopesRequested(request: ScopesRequested): void {
    this.inBackground('scope request', async () => {
      const facts = await repository.installationFacts(this.ctx.db, request.installationId);
      if (facts === undefined) return;
      await this.send(facts, undefined, {
        eventId: `installation.scopes_requested:${request.installationId}:${request.version}`,
        type: 'installation.scopes_requested',
        installation: installationOf(facts),
        endpoint: null,
        event: null,
        delivery: null,
        circuit: null,
        lastError: null,
        scopes: { version: request.version, granted: request.granted, requested: request.requested },
      });
    });
  }

  /** Waits for the alerts being written now (a stopping server, before it closes the database). */
  async drain(): Promise<void> {
    while (this.underWay.size > 0) await Promise.allSettled([...this.underWay]);
  }

  /**
   * Asks the delivery engine for the alert's deliveries: to the operator's alert URL, and to that of
   * the organization (`to`) of the installation it is about. `about` is the URL of the endpoint it
   * is about: an alert URL equal to it gets nothing.
   */
  private async send(
    to: OrganizationAlert | undefined,
    about: string | undefined,
    alert: Omit<OperatorAlert, 'occurredAt'>,
  ): Promise<void> {
    const targets: { installationId: string; url: string }[] = [];
    if (this.url !== undefined) targets.push({ installationId: ALERTS_INSTALLATION_ID, url: this.url });
    if (to?.org_alert_url && to.org_alert_installation) {
      targets.push({ installationId: to.org_alert_installation, url: to.org_alert_url });
    }
    const payload: OperatorAlert = { ...alert, occurredAt: new Date(this.ctx.now()).toISOString() };
    const sent = await Promise.allSettled(
      targets.map(async ({ installationId, url }) => {
        if (about !== undefined && sameUrl(about, url)) {
          this.logger?.warn(
            { alert: alert.type, url: about, installation: installationId },
            'an alert about the alert URL itself is not sent there (it never goes to the endpoint it is about)',
          );
          return;
        }
        await requestDelivery(this.ctx, { kind: 'admin' }, installationId, {
          url,
          eventId: payload.eventId,
          type: payload.type,
          payload: payload as unknown as Record<string, unknown>,
        });
      }),
    );
    for (const result of sent) if (result.status === 'rejected') throw result.reason;
  }

  private inBackground(about: string, work: () => Promise<void>): void {
    const running: Promise<void> = work()
      .catch((error) => this.logger?.error({ err: error }, `could not make the operator alert about a ${about}`))
      .finally(() => this.underWay.delete(running));
    this.underWay.add(running);
  }
}
