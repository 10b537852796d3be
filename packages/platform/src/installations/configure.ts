/** Configuration edits (spec 3): merged, validated, stored with the status they lead to and the setup event they owe. */
import type { Transaction } from 'kysely';
import { writeConfigurationSubscription } from '../delivery/subscriptions.js';
import { invalid } from '../errors/domain-error.js';
import { undeclaredOf } from '../gitbook/dialect.js';
import { loadIntegration } from '../integrations/read.js';
import * as installations from '../storage/repositories/installations.js';
import type { Database, InstallationStatus } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import {
  type Configuration,
  type ConfigurationError,
  invalidValues,
  levelOf,
  mergeConfiguration,
  type Undeclared,
  undeclaredProperties,
  validateConfiguration,
  withoutBlankStrings,
} from './configuration.js';
import { lockedInstallation, managedInstallation } from './load.js';
import { owe } from './owed-events.js';
import {
  isBuiltinWebhook,
  webhookHeaderProblems,
  webhookUrlProblems,
  webhookWarnings,
} from './webhook-configuration.js';

export interface ConfigurationResult {
  status: InstallationStatus;
  configuration: Configuration;
  errors: ConfigurationError[];
  /** What a person should know although it validates (a webhook with no event selected). */
  warnings: ConfigurationError[];
}

/**
 * Merges `patch` into the configuration and stores the result even when something required is
 * still missing (the user is mid-edit); the status follows: `pending` while incomplete, `active`
 * once valid (a paused installation stays paused). The setup event is owed on every edit. A string
 * of only whitespace counts as missing. A patch that sets a property the manifest does not declare
 * (400 `unknown_property`) or a value that is wrong (400 `invalid_configuration`: the wrong type,
 * not an option, a number too large, a webhook URL deliveries cannot go to) is refused whole:
 * nothing is stored.
 */
export async function patchConfiguration(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  input: Configuration,
): Promise<ConfigurationResult> {
  // Configuring is managing (the contract's Roles): a member is refused before anything is read or written.
  const before = await managedInstallation(ctx, principal, id, 'changing the configuration');
  return writeConfiguration(ctx, before, input, { undeclared: 'refused', byIntegration: false });
}

export interface ConfigurationWrite {
  /**
   * Whether the patch may set properties the manifest does not declare: `allowed` for a
   * GitBook-dialect integration storing its own data (a version of that dialect never counts them
   * as errors, see configuration.ts).
   */
  undeclared: Undeclared;
  /**
   * The integration writes its own configuration (through `/compat/gitbook`): no setup event is
   * owed for it, so a setup handler that stores something does not call itself again and again.
   */
  byIntegration: boolean;
}

/** patchConfiguration's edit, for an installation the caller has authorized. */
export async function writeConfiguration(
  ctx: ServiceContext,
  before: Database['installations'],
  input: Configuration,
  { undeclared, byIntegration }: ConfigurationWrite,
): Promise<ConfigurationResult> {
  const id = before.id;
  const { row: published, manifest, gitbook } = await loadIntegration(ctx, before.integration_name);
  const level = levelOf(before.target_type);
  // A property the manifest does not declare is refused before anything is stored: kept, it
  // would hold the installation pending whatever else is set.
  const unknown = undeclared === 'refused' ? undeclaredProperties(manifest, level, input) : [];
  if (unknown.length > 0) {
    throw invalid('unknown_property', unknown.map((e) => e.message).join('; '), { errors: unknown });
  }
  let patch = withoutBlankStrings(manifest, level, input);
  const webhook = isBuiltinWebhook({ name: published.name, organization: published.organization_id });
  const wrong = [
    ...invalidValues(manifest, level, patch),
    ...(webhook ? webhookUrlProblems(patch, ctx.allowPrivateNetwork) : []),
    ...(webhook ? webhookHeaderProblems(patch) : []),
  ];
  if (wrong.length > 0) {
    throw invalid('invalid_configuration', `not saved: ${wrong.map((e) => e.message).join('; ')}`, {
      errors: wrong,
    });
  }
  if (webhook && typeof patch.url === 'string') patch = { ...patch, url: patch.url.trim() };
  const edit = async (trx: Transaction<Database>): Promise<ConfigurationResult> => {
    // Re-read inside the transaction (locked on PostgreSQL) so concurrent edits merge, not overwrite.
    const row = await lockedInstallation(ctx, trx, id);
    const configuration = mergeConfiguration(JSON.parse(row.configuration), patch);
    const errors = validateConfiguration(manifest, level, configuration, undeclaredOf(gitbook));
    const status: InstallationStatus = row.status === 'paused' ? 'paused' : errors.length === 0 ? 'active' : 'pending';
    const now = ctx.now();
    await installations.setConfiguration(trx, id, JSON.stringify(configuration), status, now);
    if (status !== row.status) {
      await installations.recordStatus(
        trx,
        id,
        row.status,
        status,
        byIntegration ? 'configuration by the integration' : 'configuration',
        now,
      );
    }
    if (!byIntegration) await owe(trx, { ...row, status }, 'configuration', now);
    // A webhook installation's configuration is its first subscription, written with it.
    if (webhook && row.target_type !== 'organization')
      await writeConfigurationSubscription(trx, row, configuration, now);
    const warnings = webhook && errors.length === 0 ? webhookWarnings(row.target_type, configuration) : [];
    return { status, configuration, errors, warnings };
  };
  // On SQLite edits that arrive together share one commit (group commit: one fsync for them all;
  // its writes take turns on the one connection anyway). On PostgreSQL each edit keeps its own
  // transaction: it locks the installation's row, and shared transactions running side by side
  // could then wait on each other's rows (a deadlock) or hold unrelated writes behind the lock.
  const result = ctx.dialect === 'sqlite' ? await ctx.write(edit) : await ctx.db.transaction().execute(edit);
  ctx.wake();
  return result;
}
