/**
 * Installations and their lifecycle (spec 2.1, 3; DESIGN.md "Status"): installing at organization
 * level and into spaces and sites, configuration edits, pause and resume, uninstalling, and the
 * installation tokens. Every change runs in one transaction with the status change it causes
 * and the setup event it owes (the outbox).
 */
import { randomBytes } from 'node:crypto';
import type { Manifest } from '@portico/manifest';
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import { type Credentials, invalidToken, principalOf, requireMember, requireRole } from '../access/auth.js';
import { hashToken, newId, newToken } from '../access/tokens.js';
import { conflict, forbidden, invalid, notFound } from '../errors/domain-error.js';
import { checkTarget, undeclaredOf } from '../gitbook/dialect.js';
import { loadIntegration } from '../integrations/integrations.js';
import { getOrganization } from '../organizations/directory.js';
import { prepared } from '../storage/prepared.js';
import type { Database, InstallationStatus, TargetType } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import {
  type Configuration,
  type ConfigurationError,
  defaultConfiguration,
  invalidValues,
  levelOf,
  mergeConfiguration,
  type Undeclared,
  undeclaredProperties,
  validateConfiguration,
  withoutBlankStrings,
} from './configuration.js';
import { isBuiltinWebhook, webhookUrlProblems, webhookWarnings } from './webhook-configuration.js';

type Row = Database['installations'];
/** What an installation's view is made of. */
type ViewRow = Pick<
  Row,
  | 'id'
  | 'integration_name'
  | 'organization_id'
  | 'target_type'
  | 'target_id'
  | 'parent_id'
  | 'status'
  | 'configuration'
  | 'space_selection'
  | 'site_selection'
  | 'created_at'
  | 'updated_at'
>;

const SETUP_EVENT: Record<TargetType, string> = {
  organization: 'installation_setup',
  space: 'space_installation_setup',
  site: 'site_installation_setup',
};

/** What an installation is sent when it is removed (the dispatcher sends it although the installation is gone). */
const DELETED_EVENT: Record<TargetType, string> = {
  organization: 'installation_deleted',
  space: 'space_installation_deleted',
  site: 'site_installation_deleted',
};
export const DELETED_EVENTS: ReadonlySet<string> = new Set(Object.values(DELETED_EVENT));

/** Spec 2.6's `space_selection` (and our `site_selection`): every place, or the ones listed. */
export type SpaceSelection = { mode: 'all' } | { mode: 'selected'; spaces: string[] };
export type SiteSelection = { mode: 'all' } | { mode: 'selected'; sites: string[] };
export interface Selections {
  space_selection: SpaceSelection;
  site_selection: SiteSelection;
}

export interface InstallationView {
  id: string;
  integration: string;
  organization: string;
  target: { type: TargetType; id: string };
  parentId: string | null;
  status: InstallationStatus;
  configuration: Configuration;
  urls: { publicEndpoint: string };
  /** Organization installations only. */
  space_selection?: SpaceSelection;
  site_selection?: SiteSelection;
  createdAt: string;
}

export function view(ctx: ServiceContext, row: ViewRow, selections?: Selections): InstallationView {
  return {
    id: row.id,
    integration: row.integration_name,
    organization: row.organization_id,
    target: { type: row.target_type, id: row.target_id },
    parentId: row.parent_id,
    status: row.status,
    configuration: JSON.parse(row.configuration),
    urls: { publicEndpoint: publicEndpointOf(ctx, row.id) },
    ...selections,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** The installation's public endpoint (spec 4.2). */
export function publicEndpointOf(ctx: ServiceContext, id: string): string {
  return `${ctx.publicUrl}/v1/installations/${id}/public`;
}

/**
 * Selections by organization installation and the time it last changed: every change below it
 * (a place installed or removed) also changes its `updated_at`, so an entry is right on every node.
 */
const selectionCache = new Map<string, Selections>();
const MAX_CACHED_SELECTIONS = 10_000;

/** The selections of an organization installation (undefined for space and site installations). */
export async function selectionsOf(db: Kysely<Database>, row: ViewRow): Promise<Selections | undefined> {
  if (row.target_type !== 'organization') return undefined;
  const key = `${row.id}@${row.updated_at}@${row.space_selection}@${row.site_selection}`;
  const cached = selectionCache.get(key);
  if (cached !== undefined) return copySelections(cached);
  const selections = await readSelections(db, row);
  if (selectionCache.size >= MAX_CACHED_SELECTIONS) selectionCache.clear();
  selectionCache.set(key, selections);
  return copySelections(selections);
}

/** A copy the caller may change without changing the cache (structuredClone costs far more). */
function copySelections({ space_selection: spaces, site_selection: sites }: Selections): Selections {
  return {
    space_selection: spaces.mode === 'all' ? { mode: 'all' } : { mode: 'selected', spaces: [...spaces.spaces] },
    site_selection: sites.mode === 'all' ? { mode: 'all' } : { mode: 'selected', sites: [...sites.sites] },
  };
}

async function readSelections(db: Kysely<Database>, row: ViewRow): Promise<Selections> {
  const listed = (kind: 'space' | 'site') =>
    row[`${kind}_selection`] === 'all'
      ? Promise.resolve(undefined)
      : db
          .selectFrom('installations')
          .select('target_id')
          .where('parent_id', '=', row.id)
          .where('target_type', '=', kind)
          .where('uninstalled_at', 'is', null)
          .orderBy('target_id')
          .execute()
          .then((rows) => rows.map((r) => r.target_id));
  const [spaces, sites] = await Promise.all([listed('space'), listed('site')]);
  return {
    space_selection: spaces === undefined ? { mode: 'all' } : { mode: 'selected', spaces },
    site_selection: sites === undefined ? { mode: 'all' } : { mode: 'selected', sites },
  };
}

/** The view of an installation, with its selections when it is an organization installation. */
export async function fullView(ctx: ServiceContext, row: ViewRow): Promise<InstallationView> {
  return view(ctx, row, await selectionsOf(ctx.db, row));
}

export async function installForOrganization(
  ctx: ServiceContext,
  principal: Principal,
  organizationId: string,
  input: { integration: string; shareToken?: string | undefined },
): Promise<InstallationView> {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot install integrations');
  await getOrganization(ctx, organizationId);
  await requireMember(ctx, principal, organizationId);
  const { row: integration, manifest } = await loadIntegration(ctx, input.integration).catch(() => {
    throw notFound(`the integration ${input.integration}`);
  });
  const own = integration.organization_id === organizationId;
  if (!own && integration.visibility === 'private') {
    // A private integration is invisible to other organizations.
    throw notFound(`the integration ${input.integration}`);
  }
  if (!own && integration.visibility === 'unlisted' && input.shareToken !== integration.share_token) {
    throw forbidden(
      `the integration ${input.integration} is unlisted: install it through its share link (send its shareToken)`,
    );
  }
  return create(ctx, principal, {
    integration: integration.name,
    organizationId,
    target: { type: 'organization', id: organizationId },
    parentId: null,
    manifest,
  });
}

export async function installInto(
  ctx: ServiceContext,
  principal: Principal,
  parentId: string,
  target: { type: 'space' | 'site'; id: string },
): Promise<InstallationView> {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot install integrations');
  const parent = await loadInstallation(ctx, parentId);
  await requireMember(ctx, principal, parent.organization_id);
  if (parent.target_type !== 'organization') {
    throw invalid(
      'not_an_organization_installation',
      `install into a ${target.type} through the organization-level installation, not ${parentId}`,
    );
  }
  const place = await ctx.db
    .selectFrom(target.type === 'space' ? 'spaces' : 'sites')
    .select(['id', 'organization_id'])
    .where('id', '=', target.id)
    .executeTakeFirst();
  if (!place) throw notFound(`the ${target.type} ${target.id}`);
  if (place.organization_id !== parent.organization_id) {
    throw forbidden(
      `the ${target.type} ${target.id} belongs to another organization than the installation ${parentId}`,
    );
  }
  const { manifest, gitbook } = await loadIntegration(ctx, parent.integration_name);
  checkTarget(parent.integration_name, gitbook, target.type);
  return create(ctx, principal, {
    integration: parent.integration_name,
    organizationId: parent.organization_id,
    target,
    parentId,
    manifest,
  });
}

export interface NewInstallation {
  integration: string;
  organizationId: string;
  target: { type: TargetType; id: string };
  parentId: string | null;
  manifest: Manifest;
}

async function create(ctx: ServiceContext, principal: Principal, input: NewInstallation): Promise<InstallationView> {
  const row = await ctx.db.transaction().execute((trx) => insertInstallation(ctx, trx, creatorOf(principal), input));
  ctx.wake();
  return fullView(ctx, row);
}

/**
 * Installs inside `trx`: the row, its first status, its token and the setup event it owes.
 * A second installation of the integration in the same place is a conflict.
 */
export async function insertInstallation(
  ctx: ServiceContext,
  trx: Transaction<Database>,
  createdBy: string,
  input: NewInstallation,
): Promise<Row> {
  const level = levelOf(input.target.type);
  const configuration = defaultConfiguration(input.manifest, level);
  const errors = validateConfiguration(input.manifest, level, configuration);
  const status: InstallationStatus = errors.length === 0 ? 'active' : 'pending';
  const now = ctx.now();
  const organization = input.target.type === 'organization';
  const row: Row = {
    id: newId('inst'),
    integration_name: input.integration,
    organization_id: input.organizationId,
    target_type: input.target.type,
    target_id: input.target.id,
    parent_id: input.parentId,
    status,
    configuration: JSON.stringify(configuration),
    installation_key: ctx.box.seal(randomBytes(32).toString('base64url')),
    space_selection: organization ? 'selected' : null,
    site_selection: organization ? 'selected' : null,
    created_by: createdBy,
    created_at: now,
    updated_at: now,
    uninstalled_at: null,
  };
  const existing = await trx
    .selectFrom('installations')
    .select('id')
    .where('integration_name', '=', input.integration)
    .where('target_type', '=', input.target.type)
    .where('target_id', '=', input.target.id)
    .where('uninstalled_at', 'is', null)
    .executeTakeFirst();
  if (existing)
    throw conflict(
      `${input.integration} is already installed in this ${input.target.type} (installation ${existing.id})`,
    );
  await trx.insertInto('installations').values(row).execute();
  await recordStatus(trx, row.id, null, status, 'installed', now);
  await mintToken(ctx, trx, row.id, input.manifest.scopes);
  await owe(trx, row, 'installed', now);
  if (input.parentId !== null) await touch(trx, input.parentId, now);
  return row;
}

/** The installation as it is inside `trx`, locked on PostgreSQL until it ends; 404 when removed. */
export async function lockedInstallation(ctx: ServiceContext, trx: Transaction<Database>, id: string): Promise<Row> {
  const row = await trx
    .selectFrom('installations')
    .selectAll()
    .where('id', '=', id)
    .where('uninstalled_at', 'is', null)
    .$if(ctx.dialect === 'postgres', (qb) => qb.forUpdate())
    .executeTakeFirst();
  if (!row) throw notFound(`the installation ${id}`);
  return row;
}

/** Marks an installation changed (its selection is derived from the installations below it). */
async function touch(trx: Transaction<Database>, id: string, at: number) {
  await trx.updateTable('installations').set(laterThan(at)).where('id', '=', id).execute();
}

/**
 * `updated_at` set to `at`, or one more than it was when that is not later: every change of an
 * installation gives it a new, larger value, which the selection cache keys on (so every update of
 * an installation sets its `updated_at` through this).
 */
export function laterThan(at: number) {
  return {
    updated_at: (eb: ExpressionBuilder<Database, 'installations'>) =>
      eb
        .case()
        .when('updated_at', '>=', at)
        .then(eb('updated_at', '+', 1))
        .else(at)
        .end(),
  };
}

/** Records a status change with its time and cause. */
async function recordStatus(
  trx: Transaction<Database>,
  installationId: string,
  from: InstallationStatus | null,
  to: InstallationStatus,
  cause: string,
  at: number,
) {
  await trx
    .insertInto('installation_status_changes')
    .values({ installation_id: installationId, from_status: from, to_status: to, cause, at })
    .execute();
}

/**
 * Writes the setup event this change owes the installation into the outbox (or, for its removal,
 * its deleted event). Like every event of the installation's own, it goes out in order, one at a time.
 */
async function owe(trx: Transaction<Database>, row: Row, cause: string, at: number, events = SETUP_EVENT) {
  const event = {
    type: events[row.target_type],
    installationId: row.id,
    ...(row.target_type === 'space' ? { spaceId: row.target_id } : {}),
    ...(row.target_type === 'site' ? { siteId: row.target_id } : {}),
    cause,
  };
  await trx
    .insertInto('outbox')
    .values({
      installation_id: row.id,
      integration_name: row.integration_name,
      event_type: event.type,
      event: JSON.stringify(event),
      created_at: at,
      dispatched_at: null,
    })
    .execute();
}

async function mintToken(
  ctx: ServiceContext,
  trx: Transaction<Database>,
  installationId: string,
  scopes: readonly string[],
) {
  const token = newToken('installation');
  await trx
    .insertInto('installation_tokens')
    .values({
      token_hash: hashToken(token),
      installation_id: installationId,
      token: ctx.box.seal(token),
      scopes: JSON.stringify(scopes),
      created_at: ctx.now(),
      revoked_at: null,
    })
    .execute();
  return token;
}

/** The installation (not uninstalled), or 404. */
export async function loadInstallation(ctx: ServiceContext, id: string): Promise<Row> {
  const row = await byId.first(ctx.db, id);
  if (!row) throw notFound(`the installation ${id}`);
  return row;
}

const byId = prepared((db, id: string) =>
  db.selectFrom('installations').selectAll().where('id', '=', id).where('uninstalled_at', 'is', null),
);

/**
 * The installation with the caller's role in its organization, in one query (a user's; null for
 * everyone else, and for users who are not members).
 */
const byIdWithRole = prepared((db, id: string, userId: string) =>
  db
    .selectFrom('installations as i')
    .leftJoin('memberships as m', (join) =>
      join.onRef('m.organization_id', '=', 'i.organization_id').on('m.user_id', '=', userId),
    )
    .selectAll('i')
    .select('m.role as member_role')
    .where('i.id', '=', id)
    .where('i.uninstalled_at', 'is', null),
);

/** The installation, for the operator, a member of its organization, or its own token. */
export async function authorizedInstallation(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  role: 'member' | 'admin' = 'member',
): Promise<Row> {
  if (principal.kind === 'installation') {
    if (principal.installationId !== id) throw forbidden('an installation token can only reach its own installation');
    if (role === 'admin') throw forbidden('an installation cannot pause, resume or remove itself');
    // Read with its token in this request: it exists and is not uninstalled.
    if (principal.installation !== undefined) return principal.installation;
  }
  // No user has the id null: everyone but a user gets no role.
  const found = await byIdWithRole.first(ctx.db, id, principal.kind === 'user' ? principal.userId : nobody);
  if (!found) throw notFound(`the installation ${id}`);
  const { member_role, ...row } = found;
  if (principal.kind === 'user') requireRole(member_role ?? undefined, row.organization_id, role);
  return row;
}

const nobody = null as unknown as string;

/** The columns an installation's view is made of. */
const VIEW_COLUMNS = [
  'i.id',
  'i.integration_name',
  'i.organization_id',
  'i.target_type',
  'i.target_id',
  'i.parent_id',
  'i.status',
  'i.configuration',
  'i.space_selection',
  'i.site_selection',
  'i.created_at',
  'i.updated_at',
] as const;

/**
 * What GET /v1/installations/{id} reads, in one query: for a user's token, the token itself (no
 * row: not valid), the installation (null: not there), the user's role in its organization, and
 * whether any endpoint of the installation is disabled (the route then lists them as alerts).
 * Nothing of it is cached: a revoked token or a removed membership counts at once, on every node.
 */
const forUserToken = prepared((db, tokenHash: string, id: string) =>
  db
    .selectFrom('user_tokens as t')
    .leftJoin('installations as i', (join) => join.on('i.id', '=', id).on('i.uninstalled_at', 'is', null))
    .leftJoin('memberships as m', (join) =>
      join.onRef('m.organization_id', '=', 'i.organization_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .select(VIEW_COLUMNS)
    .select(['m.role as member_role', disabledEndpoints])
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null),
);
/** The same for the operator and installation tokens (their token is looked up on its own first). */
const forOthers = prepared((db, id: string) =>
  db
    .selectFrom('installations as i')
    .select(VIEW_COLUMNS)
    .select(disabledEndpoints)
    .where('i.id', '=', id)
    .where('i.uninstalled_at', 'is', null),
);

function disabledEndpoints(eb: ExpressionBuilder<Database & { i: Row }, 'i'>) {
  return eb
    .exists(
      eb
        .selectFrom('endpoints as e')
        .select('e.id')
        .whereRef('e.installation_id', '=', 'i.id')
        .where('e.disabled_at', 'is not', null),
    )
    .as('disabled_endpoints');
}

/** What GET /v1/installations/{id} shows: the installation, and whether it has disabled endpoints to list. */
export async function readInstallation(
  ctx: ServiceContext,
  credentials: Credentials,
  id: string,
): Promise<{ installation: InstallationView; disabledEndpoints: boolean }> {
  let row: ViewRow & { disabled_endpoints: unknown };
  if (credentials.kind === 'user') {
    const found = await forUserToken.first(ctx.db, credentials.tokenHash, id);
    if (!found) throw invalidToken();
    if (found.id === null) throw notFound(`the installation ${id}`);
    requireRole(found.member_role ?? undefined, found.organization_id as string);
    row = found as typeof row;
  } else {
    const principal = await principalOf(ctx, credentials);
    if (principal.kind === 'installation' && principal.installationId !== id)
      throw forbidden('an installation token can only reach its own installation');
    const found = await forOthers.first(ctx.db, id);
    if (!found) throw notFound(`the installation ${id}`);
    row = found;
  }
  // SQLite answers 0 or 1, PostgreSQL a boolean.
  return { installation: await fullView(ctx, row), disabledEndpoints: Boolean(row.disabled_endpoints) };
}

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
  const before = await authorizedInstallation(ctx, principal, id);
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
  before: Row,
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
    await trx
      .updateTable('installations')
      .set({ configuration: JSON.stringify(configuration), status })
      .set(laterThan(now))
      .where('id', '=', id)
      .execute();
    if (status !== row.status) {
      await recordStatus(
        trx,
        id,
        row.status,
        status,
        byIntegration ? 'configuration by the integration' : 'configuration',
        now,
      );
    }
    if (!byIntegration) await owe(trx, { ...row, status }, 'configuration', now);
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

export async function setPaused(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  paused: boolean,
): Promise<InstallationView> {
  const current = await authorizedInstallation(ctx, principal, id, 'admin');
  const { manifest, gitbook } = await loadIntegration(ctx, current.integration_name);
  return ctx.db
    .transaction()
    .execute(async (trx) => {
      const row = await lockedInstallation(ctx, trx, id);
      let status: InstallationStatus;
      if (paused) status = 'paused';
      else if (row.status !== 'paused') status = row.status;
      else {
        const errors = validateConfiguration(
          manifest,
          levelOf(row.target_type),
          JSON.parse(row.configuration),
          undeclaredOf(gitbook),
        );
        status = errors.length === 0 ? 'active' : 'pending';
      }
      if (status !== row.status) {
        const now = ctx.now();
        await trx.updateTable('installations').set({ status }).set(laterThan(now)).where('id', '=', id).execute();
        await recordStatus(
          trx,
          id,
          row.status,
          status,
          paused ? `paused by ${who(principal)}` : `resumed by ${who(principal)}`,
          now,
        );
      }
      return { ...row, status };
    })
    .then((row) => fullView(ctx, row));
}

/**
 * Removes an installation (and those below it); their tokens stop working at once, and each is
 * sent its deleted event. Removing a
 * space or site installation takes its place out of the selection: an organization installation
 * that had `all` of them now has the ones that remain `selected`.
 */
export async function uninstall(ctx: ServiceContext, principal: Principal, id: string): Promise<void> {
  const row = await authorizedInstallation(ctx, principal, id, 'admin');
  await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.now();
    const below = await trx
      .selectFrom('installations')
      .select('id')
      .where('parent_id', '=', id)
      .where('uninstalled_at', 'is', null)
      .execute();
    await removeInstallations(trx, [id, ...below.map((r) => r.id)], now);
    if (row.parent_id !== null && row.target_type !== 'organization') {
      await trx
        .updateTable('installations')
        .set(row.target_type === 'space' ? { space_selection: 'selected' } : { site_selection: 'selected' })
        .set(laterThan(now))
        .where('id', '=', row.parent_id)
        .execute();
    }
  });
  ctx.wake();
}

/**
 * Marks installations removed and revokes their tokens, inside `trx`, and owes each its deleted
 * event (`installation_deleted`, `space_installation_deleted`, `site_installation_deleted`).
 */
export async function removeInstallations(trx: Transaction<Database>, ids: string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  const removed = await trx
    .updateTable('installations')
    .set({ uninstalled_at: now, updated_at: now })
    .where('id', 'in', ids)
    .where('uninstalled_at', 'is', null)
    .returningAll()
    .execute();
  for (const row of removed) await owe(trx, row, 'uninstalled', now, DELETED_EVENT);
  await trx
    .updateTable('installation_tokens')
    .set({ revoked_at: now })
    .where('installation_id', 'in', ids)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes the installation's token and mints a new one (the integration gets it in its next envelope). */
export async function rotateToken(ctx: ServiceContext, principal: Principal, id: string): Promise<void> {
  const row = await authorizedInstallation(ctx, principal, id, 'admin');
  const { manifest } = await loadIntegration(ctx, row.integration_name);
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('installation_tokens')
      .set({ revoked_at: ctx.now() })
      .where('installation_id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    await mintToken(ctx, trx, id, manifest.scopes);
  });
}

/** The installation's current API token, in clear, for the envelopes the platform sends it. */
export async function currentToken(ctx: ServiceContext, id: string): Promise<string> {
  const row = await ctx.db
    .selectFrom('installation_tokens')
    .select('token')
    .where('installation_id', '=', id)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('token_hash', 'desc')
    .executeTakeFirst();
  if (!row) throw notFound(`a token of the installation ${id}`);
  return ctx.box.open(row.token);
}

export async function statusHistory(ctx: ServiceContext, principal: Principal, id: string) {
  await authorizedInstallation(ctx, principal, id);
  const rows = await ctx.db
    .selectFrom('installation_status_changes')
    .selectAll()
    .where('installation_id', '=', id)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ from: r.from_status, to: r.to_status, cause: r.cause, at: new Date(r.at).toISOString() }));
}

/** How `created_by` names who installed: the user, or `operator`. */
export function creatorOf(principal: Principal): string {
  return principal.kind === 'user' ? principal.userId : 'operator';
}

function who(principal: Principal): string {
  return principal.kind === 'user'
    ? principal.userId
    : principal.kind === 'admin'
      ? 'the operator'
      : principal.installationId;
}
