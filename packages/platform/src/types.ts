/**
 * The platform's core types, and the words the code uses for them.
 *
 * - **organization, space, site**: the documentation product's places, synced in by the operator
 *   (`organizations/`). A **member** has a role (`admin` or `member`) in an organization.
 * - **integration**: a published name with versions (manifest + bundled script); its latest
 *   version is the one that runs (`integrations/`).
 * - **installation**: an integration installed at organization level, or into a space or site
 *   below that organization installation; it has a status (`pending`, `active`, `paused`), a
 *   configuration, a token and a public endpoint (`installations/`).
 * - **selection**: which spaces and sites an organization installation is installed into (`all`
 *   or `selected`).
 * - **event**: what the operator sends (`POST /v1/events`), stored once per `eventId`
 *   (`events/`).
 * - **outbox row**: what routing owes one installation for one event, or a setup or deleted event
 *   of its own; claimed with a lease (`claimed_until`) and settled once (`dispatch/`).
 * - **dispatch**: one call of an integration with an envelope (event + environment) on its host;
 *   logged with its outcome (`dispatch/`, `hosts/`).
 * - **delivery**: a signed webhook POST an installation asked for, to one URL; durable, retried on
 *   the spec's schedule (`delivery/`).
 * - **attempt**: one try of a delivery: its request, answer status, latency and error.
 * - **endpoint**: one installation's URL, the unit deliveries are isolated and disabled by.
 * - **lease**: the time until which a node holds a claimed row; every write of the row checks it.
 * - **principal**: who calls: the operator, a user, or an installation (its token).
 * - **service context**: what every service is given: the database, the shared write, the secret
 *   box, the clock, and the ports of this node's engines.
 */
import type { DeliveryPolicyName } from '@portico/webhooks';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { SecretBox } from './access/secret-box.js';
import type { AlertHooks } from './alerts/alert-hooks.js';
import type { PlatformMetrics } from './observability/metrics.js';
import type { PipelineTracing } from './observability/tracing.js';
import type { Durability } from './storage/durability.js';
import type { Write, WriteOptions } from './storage/group-commit.js';
import type { Database } from './storage/schema.js';

/** What every service needs: the database, the secret box, and a clock (Unix ms). */
export interface ServiceContext {
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  /**
   * Runs a write in the next shared transaction (group commit) and resolves once it has
   * committed. The write must use only the transaction it is given.
   */
  write<T>(work: Write<T>, options?: WriteOptions): Promise<T>;
  /** When commits are on disk: the API acknowledges a request that wrote only after. */
  durability: Durability;
  box: SecretBox;
  now: () => number;
  /** Base URL under which installations' public endpoints live, e.g. `http://127.0.0.1:8787`. */
  publicUrl: string;
  /** Deliveries may go to loopback and private addresses, and over http (PORTICO_ALLOW_PRIVATE_NETWORK=1). */
  allowPrivateNetwork: boolean;
  /** Base URL of this API, as integrations reach it (`environment.apiEndpoint`). */
  apiUrl: string;
  /** Tells the dispatcher that new work is in the outbox, or (`'events'`) that events wait to be routed. */
  wake: (what?: 'events') => void;
  /**
   * Decides the routing of events as they are stored (events/routing.ts), to write in the same
   * transaction; undefined while no dispatcher runs on this node: the events are then stored
   * unrouted, and a dispatcher routes them later.
   */
  routeOnIngest: (events: RoutableEvent[], now: number) => Promise<EventRouting | undefined>;
  /** The delivery engine's intake (answers nothing and does nothing until the engine runs). */
  deliveries: DeliveryIntake;
  /** Counts what happens, in memory (observability/metrics.ts); unset in a context without a server. */
  metrics?:
    | Pick<PlatformMetrics, 'eventsStored' | 'dispatchSettled' | 'settledAtRouting' | 'deliveryFailedUnattempted'>
    | undefined;
  /** Traces events (observability/tracing.ts); unset when tracing is off. */
  tracing?: Pick<PipelineTracing, 'ingest'> | undefined;
  /** Operator and organization alerts (alerts/operator-alerts.ts); unset in a context without a server. */
  alerts?: AlertHooks | undefined;
  /**
   * The delivery policy of a delivery asked for without one (PORTICO_DELIVERY_POLICY); undefined:
   * `DEFAULT_DELIVERY_POLICY` (standard). An installation's own choice wins over it.
   */
  defaultDeliveryPolicy?: DeliveryPolicyName | undefined;
}

/** How deliveries reach the delivery engine of this node (server.ts wires the engine's `intake` in). */
export interface DeliveryIntake {
  /** Deliveries may wait in the database, unclaimed (a redelivery, a recovery): look for them. */
  wake(): void;
  /**
   * Asked before a new delivery is inserted. With a lease, the engine takes it: insert it claimed
   * by this node with that lease. With a null lease, insert it unclaimed (a claim finds it). Either
   * way call `start` with the row once the insert has committed (or `cancel`). Undefined when no
   * engine runs here: insert it unclaimed and `wake`.
   */
  offer(target: DeliveryTarget): Handoff | undefined;
  /** An endpoint's rate limit (deliveries per second; null: none) changed here: apply it now (other nodes read it within their poll). */
  paced(endpointId: string, rate: number | null): void;
}

/** A new delivery, before its insert: its id (the row's), installation and endpoint. */
export interface DeliveryTarget {
  deliveryId: string;
  installationId: string;
  endpointId: string;
}

export interface Handoff {
  lease: number | null;
  /**
   * The insert committed: the engine takes the row. `sealedSecrets`, the installation's valid
   * signing secrets read in the same request (newest first; may be empty), sign its first attempt.
   */
  start(row: Selectable<Database['deliveries']>, sealedSecrets?: string[]): void;
  cancel(): void;
}

/** An event as stored, ready to route. */
export type RoutableEvent = Pick<Database['events'], 'event_id' | 'type' | 'payload'>;

/** The outbox rows and deliveries routing decided for some events, to write with them. */
export interface EventRouting {
  /**
   * The rows, those of each event id's first occurrence; the rows this node takes are claimed
   * (`claimed_until` set). Write only those of the events the write stores.
   */
  rows: Insertable<Database['outbox']>[];
  /**
   * The deliveries of the webhook subscriptions that selected the events (fan-out at ingest), those
   * this node's engine takes written claimed. Write only those of the events the write stores.
   */
  deliveries: Database['deliveries'][];
  /**
   * The write committed; `ids` are the rows written, by installation and event (`owedKey`), and
   * `stored` the events it stored (their deliveries were written).
   */
  committed(ids: ReadonlyMap<string, number>, stored: ReadonlySet<string>): void;
  /** The write failed: what was reserved is given back. */
  failed(): void;
}

/** An intake with no engine behind it: deliveries wait in the database. */
export const NO_DELIVERY_ENGINE: DeliveryIntake = { wake: () => {}, offer: () => undefined, paced: () => {} };

/** Who is calling: the operator, a user, or an installation (its integration). */
export type Principal =
  | { kind: 'admin' }
  | { kind: 'user'; userId: string }
  | {
      kind: 'installation';
      installationId: string;
      scopes: string[];
      /** The installation as read with the token, in this request (routes need not read it again). */
      installation?: Database['installations'];
    };

/**
 * What a dispatch to an integration running in this process acts as when it calls the API through
 * its service binding with the dispatch's token: the installation, its token and the token's scopes
 * as the dispatch read them when it began. Such a call needs no token lookup; a token revoked or an
 * installation removed meanwhile counts from the next dispatch on (decision 028).
 */
export interface DispatchGrant {
  token: string;
  principal: Extract<Principal, { kind: 'installation' }> & { installation: Database['installations'] };
  /** The installation's delivery endpoints and signing secrets, as the dispatch read them when it began. */
  deliveryTargets?: DeliveryTargets | undefined;
}

/**
 * An installation's delivery endpoints (by URL) and its valid signing secrets (sealed, newest
 * first), read with its dispatch context: a delivery the dispatch asks for to one of these URLs
 * reads nothing more (one statement fewer per delivered event). Read when the dispatch began,
 * like its grant: an endpoint disabled or a secret rotated meanwhile counts from the next dispatch.
 */
export interface DeliveryTargets {
  endpoints: ReadonlyMap<string, TargetEndpoint>;
  sealedSecrets: string[];
}

/** What asking for a delivery needs of its endpoint. */
export type TargetEndpoint = Pick<Database['endpoints'], 'id' | 'destination' | 'disabled_at' | 'disabled_reason'>;

/** Ids given by the operator: letters, digits, `_`, `-`, `.`; 1 to 64 characters. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
