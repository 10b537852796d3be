import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Durability } from '../storage/durability.js';
import type { Write, WriteOptions } from '../storage/group-commit.js';
import type { Database } from '../storage/schema.js';
import type { SecretBox } from './secret-box.js';

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
  /** Tells the dispatcher that new work is in the outbox (a no-op until it runs). */
  wake: (what?: 'events') => void;
  /**
   * Set while a dispatcher runs on this node (on SQLite: decision 027): routes events in the
   * transaction that stores them (then they are stored routed). Without it, events are stored
   * unrouted and routed by a dispatcher later.
   */
  routeOnIngest?: ((events: RoutableEvent[], now: number) => Promise<EventRouting>) | undefined;
  /** The delivery engine's intake (answers nothing and does nothing until the engine runs). */
  deliveries: DeliveryIntake;
}

/** How deliveries reach the delivery engine of this node. */
export interface DeliveryIntake {
  /** A delivery is due in the database, unclaimed: look for it. */
  wake(): void;
  /**
   * Asked before a new delivery is inserted. When the engine takes it (it starts at once, or waits
   * in the engine's memory for a slot: `ahead`), the handoff's lease is the one to insert it with,
   * claimed by this node; with a null lease, insert it unclaimed (the engine claims it when it has room).
   * Either way the caller calls `start` with the row once it has committed (or `cancel`). Undefined
   * when no engine runs here: insert it unclaimed and `wake`.
   */
  offer(target: DeliveryTarget): Handoff | undefined;
}

/** A new delivery, before its insert: its id (the row's), installation and destination. */
export interface DeliveryTarget {
  deliveryId: string;
  installationId: string;
  destination: string;
}

export interface Handoff {
  lease: number | null;
  /** Insert it claimed ahead (`claimed_ahead`): it waits in the engine's memory for a slot. */
  ahead: boolean;
  /**
   * The insert committed: start (or hold) the row. `sealedSecrets`, the installation's valid
   * signing secrets read in the same request (newest first; may be empty), sign its first attempt
   * when it starts at once.
   */
  start(row: Selectable<Database['deliveries']>, sealedSecrets?: string[]): void;
  cancel(): void;
}

/** An event as stored, ready to route. */
export type RoutableEvent = Pick<Database['events'], 'event_id' | 'type' | 'payload'>;

/** The outbox rows routing decided for some events, to write with them. */
export interface EventRouting {
  /** In the transaction that stores (or marks) the events: writes the rows of those in `events`. May run again. */
  write(trx: Transaction<Database>, events: ReadonlySet<string>): Promise<void>;
  /** That transaction committed: start what this node took. */
  committed(): void;
  /** That transaction failed: give back what was reserved. */
  failed(): void;
}

/** An intake with no engine behind it: deliveries wait in the database. */
export const NO_DELIVERY_ENGINE: DeliveryIntake = { wake: () => {}, offer: () => undefined };

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
}

/** Ids given by the operator: letters, digits, `_`, `-`, `.`; 1 to 64 characters. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
