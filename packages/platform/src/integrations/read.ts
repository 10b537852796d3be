/** Reading integrations back (without their secrets): the latest version, its manifest, and what a caller may see. */
import { configurationSchema, type JsonSchema, type Manifest } from '@portico/manifest';
import type { Kysely } from 'kysely';
import { roleIn } from '../access/auth.js';
import { notFound } from '../errors/domain-error.js';
import { type GitBookFacts, readGitBookFacts } from '../gitbook/dialect.js';
import * as integrations from '../storage/repositories/integrations.js';
import { organizationTitle } from '../storage/repositories/organizations.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { assetUrl, namedAssets, storedAssets } from './assets.js';
import { scopeGrants } from './scopes.js';

const manifestCaches = new WeakMap<
  ServiceContext['db'],
  Map<string, { manifest: Manifest; gitbook: GitBookFacts | undefined }>
>();
const MAX_CACHED_MANIFESTS = 1000;

/** The integration's latest published version, read fresh (a publish on any node changes it). */
export async function latestVersion(ctx: ServiceContext, name: string): Promise<number> {
  const row = await integrations.integrationByName.first(ctx.db, name);
  if (!row) throw notFound(`the integration ${name}`);
  return row.latest_version;
}

/**
 * The integration and its latest version, as stored (read through `db`: pass the transaction when
 * inside one): its manifest, and for a GitBook-dialect version the dialect's facts.
 */
export async function loadIntegration(ctx: ServiceContext, name: string, db: Kysely<Database> = ctx.db) {
  const row = await integrations.integrationByName.first(db, name);
  if (!row) throw notFound(`the integration ${name}`);
  const key = `${name}@${row.latest_version}`;
  let manifests = manifestCaches.get(ctx.db);
  if (manifests === undefined) {
    manifests = new Map();
    manifestCaches.set(ctx.db, manifests);
  }
  let stored = manifests.get(key);
  if (stored === undefined) {
    const version = await integrations.versionManifest(db, name, row.latest_version);
    stored = { manifest: JSON.parse(version.manifest) as Manifest, gitbook: readGitBookFacts(version.gitbook) };
    if (manifests.size >= MAX_CACHED_MANIFESTS) manifests.clear();
    manifests.set(key, stored);
  }
  return { row, ...stored };
}

/** Who may see an integration: public ones everyone; unlisted ones with the share token; private ones the owners. */
export async function visibleIntegration(ctx: ServiceContext, principal: Principal, name: string, shareToken?: string) {
  const { row, manifest, gitbook } = await loadIntegration(ctx, name);
  const owner = principal.kind === 'admin' || (await roleIn(ctx, principal, row.organization_id)) !== undefined;
  const shared = row.visibility === 'unlisted' && shareToken !== undefined && shareToken === row.share_token;
  // Hide what exists from those who may not see it.
  if (!owner && !shared && row.visibility !== 'public') throw notFound(`the integration ${name}`);
  return { row, manifest, gitbook, owner, shared };
}

export async function getIntegration(ctx: ServiceContext, principal: Principal, name: string, shareToken?: string) {
  const { row, manifest, gitbook, owner, shared } = await visibleIntegration(ctx, principal, name, shareToken);
  const [stored, publisher] = await Promise.all([
    storedAssets(ctx.db, row.name, row.latest_version),
    organizationTitle(ctx.db, row.organization_id),
  ]);
  return {
    ...describe(row, manifest, stored, shared && !owner ? shareToken : undefined),
    organizationTitle: publisher?.title ?? row.organization_id,
    ...(gitbook !== undefined ? { gitbook } : {}),
    ...(owner ? { shareToken: row.share_token } : {}),
  };
}

function describe(
  row: { name: string; organization_id: string; visibility: string; latest_version: number },
  manifest: Manifest,
  stored: Set<string>,
  share?: string,
) {
  const { secrets: _secrets, ...rest } = manifest;
  const url = (asset: string) => assetUrl(row.name, row.latest_version, asset, share);
  const previews = namedAssets(manifest).filter((a) => a.asset !== 'icon' && stored.has(a.asset));
  const configurationSchemas: { account?: JsonSchema; site?: JsonSchema } = {};
  if (rest.configurations?.account) configurationSchemas.account = configurationSchema(manifest, 'account');
  if (rest.configurations?.site) configurationSchemas.site = configurationSchema(manifest, 'site');
  return {
    name: row.name,
    organization: row.organization_id,
    visibility: row.visibility,
    version: row.latest_version,
    title: rest.title,
    description: rest.description,
    ...(rest.summary !== undefined ? { summary: rest.summary } : {}),
    scopes: rest.scopes,
    scopeGrants: scopeGrants(rest.scopes),
    ...(rest.categories ? { categories: rest.categories } : {}),
    ...(rest.blocks ? { blocks: rest.blocks } : {}),
    ...(rest.externalLinks ? { externalLinks: rest.externalLinks } : {}),
    ...(rest.configurations ? { configurations: rest.configurations } : {}),
    configurationSchemas,
    ...(stored.has('icon') ? { icon: url('icon') } : {}),
    previewImages: previews.map((a) => url(a.asset)),
    secretNames: Object.keys(manifest.secrets ?? {}),
  };
}
