import type { Kysely } from 'kysely';
import type { Write } from '../storage/group-commit.js';
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
  write<T>(work: Write<T>): Promise<T>;
  box: SecretBox;
  now: () => number;
  /** Base URL under which installations' public endpoints live, e.g. `http://127.0.0.1:8787`. */
  publicUrl: string;
  /** Base URL of this API, as integrations reach it (`environment.apiEndpoint`). */
  apiUrl: string;
  /** Tells the dispatcher that new work is in the outbox (a no-op until it runs). */
  wake: () => void;
  /** Tells the delivery engine that a delivery is due (a no-op until it runs). */
  wakeDeliveries: () => void;
}

/** Who is calling: the operator, a user, or an installation (its integration). */
export type Principal =
  | { kind: 'admin' }
  | { kind: 'user'; userId: string }
  | { kind: 'installation'; installationId: string; scopes: string[] };

/** Ids given by the operator: letters, digits, `_`, `-`, `.`; 1 to 64 characters. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
