/** Publishing integrations and reading them back (without their secrets). */
import { randomBytes } from 'node:crypto';
import { configurationSchema, type JsonSchema, type Manifest, parseManifest, resolveSecrets } from '@portico/manifest';
import type { Kysely } from 'kysely';
import { requireMember, roleIn } from '../access/auth.js';
import { forbidden, invalid, notFound } from '../errors/domain-error.js';
import { checkGitBookFacts, type GitBookFacts, readGitBookFacts } from '../gitbook/dialect.js';
import { findOrganization } from '../organizations/directory.js';
import { prepared } from '../storage/prepared.js';
import type { Database } from '../storage/schema.js';
import type { Principal, ServiceContext } from '../types.js';
import { acceptAssets, assetUrl, namedAssets, storedAssets, storedIcons } from './assets.js';
import { scopeGrants } from './scopes.js';

export interface PublishInput {
  /** The text of platform-manifest.yaml. */
  manifest: string;
  /** The entry script bundled into one ESM file. */
  script: string;
  /** Values of the environment variables the manifest's secrets reference (`${{ env.NAME }}`). */
  secrets?: Record<string, string> | undefined;
  /** The files the manifest's `icon` and `previewImages` name: path → bytes in base64. */
  assets?: Record<string, string> | undefined;
  /** For an integration written for GitBook's runtime: what its gitbook-manifest.yaml states beyond the manifest. */
  gitbook?: GitBookFacts | undefined;
}

/** At most this much script per version (a bundled integration is usually well under 1 MiB). */
export const MAX_SCRIPT_BYTES = 5 * 1024 * 1024;

export async function publish(ctx: ServiceContext, principal: Principal, input: PublishInput) {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot publish integrations');
  const parsed = parseManifest(input.manifest, { internalPublisher: principal.kind === 'admin' });
  if (!parsed.ok) {
    throw invalid('invalid_manifest', `the manifest has ${parsed.errors.length} error(s); fix them and publish again`, {
      errors: parsed.errors,
    });
  }
  const manifest = parsed.manifest;
  if (input.script.trim() === '') throw invalid('invalid_script', '`script` is empty: send the bundled entry script');
  if (Buffer.byteLength(input.script) > MAX_SCRIPT_BYTES) {
    throw invalid('invalid_script', `the script is larger than ${MAX_SCRIPT_BYTES} bytes`);
  }
  const organization = await findOrganization(ctx, manifest.organization);
  if (!organization) {
    throw invalid(
      'unknown_organization',
      `the manifest's organization "${manifest.organization}" does not exist (give its id or subdomain)`,
    );
  }
  await requireMember(ctx, principal, organization.id);
  const secrets = resolveSecrets(manifest, input.secrets ?? {});
  if (!secrets.ok) throw invalid('missing_secrets', secrets.message, { missing: secrets.missing });
  const assets = acceptAssets(manifest, input.assets);
  if (input.gitbook !== undefined) checkGitBookFacts(manifest, input.gitbook);

  const now = ctx.now();
  const publisher = principal.kind === 'user' ? principal.userId : 'operator';
  return ctx.db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('integrations')
      .selectAll()
      .where('name', '=', manifest.name)
      .$if(ctx.dialect === 'postgres', (qb) => qb.forUpdate())
      .executeTakeFirst();
    if (existing && existing.organization_id !== organization.id) {
      throw forbidden(`the name "${manifest.name}" belongs to another organization's integration; choose another name`);
    }
    const version = (existing?.latest_version ?? 0) + 1;
    const shareToken = existing?.share_token ?? randomBytes(16).toString('base64url');
    if (existing) {
      await trx
        .updateTable('integrations')
        .set({ latest_version: version, visibility: manifest.visibility, updated_at: now })
        .where('name', '=', manifest.name)
        .execute();
    } else {
      await trx
        .insertInto('integrations')
        .values({
          name: manifest.name,
          organization_id: organization.id,
          visibility: manifest.visibility,
          share_token: shareToken,
          latest_version: version,
          created_by: publisher,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    await trx
      .insertInto('integration_versions')
      .values({
        integration_name: manifest.name,
        version,
        manifest: JSON.stringify(manifest),
        manifest_source: input.manifest,
        script: input.script,
        secrets: Object.keys(secrets.secrets).length > 0 ? ctx.box.seal(JSON.stringify(secrets.secrets)) : null,
        published_by: publisher,
        created_at: now,
        gitbook: input.gitbook !== undefined ? JSON.stringify(input.gitbook) : null,
      })
      .execute();
    if (assets.length > 0) {
      await trx
        .insertInto('integration_assets')
        .values(assets.map((asset) => ({ ...asset, integration_name: manifest.name, version })))
        .execute();
    }
    return { name: manifest.name, version, visibility: manifest.visibility, organization: organization.id, shareToken };
  });
}

/**
 * The public face of an integration: what its manifest says, never its secrets or script, with
 * the URLs of the files it published (`share` is added to them for those who reach an unlisted
 * integration through its share link), what each scope grants, and the JSON Schema of each level
 * of its configuration.
 */
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

const integrationByName = prepared((db, name: string) =>
  db.selectFrom('integrations').selectAll().where('name', '=', name),
);

/** Published versions never change, so their parsed manifests are kept, per database (name@version → manifest). */
const manifestCaches = new WeakMap<
  ServiceContext['db'],
  Map<string, { manifest: Manifest; gitbook: GitBookFacts | undefined }>
>();
const MAX_CACHED_MANIFESTS = 1000;

/** The integration's latest published version, read fresh (a publish on any node changes it). */
export async function latestVersion(ctx: ServiceContext, name: string): Promise<number> {
  const row = await integrationByName.first(ctx.db, name);
  if (!row) throw notFound(`the integration ${name}`);
  return row.latest_version;
}

/**
 * The integration and its latest version, as stored (read through `db`: pass the transaction when
 * inside one): its manifest, and for a GitBook-dialect version the dialect's facts.
 */
export async function loadIntegration(ctx: ServiceContext, name: string, db: Kysely<Database> = ctx.db) {
  const row = await integrationByName.first(db, name);
  if (!row) throw notFound(`the integration ${name}`);
  const key = `${name}@${row.latest_version}`;
  let manifests = manifestCaches.get(ctx.db);
  if (manifests === undefined) {
    manifests = new Map();
    manifestCaches.set(ctx.db, manifests);
  }
  let stored = manifests.get(key);
  if (stored === undefined) {
    const version = await db
      .selectFrom('integration_versions')
      .select(['manifest', 'gitbook'])
      .where('integration_name', '=', name)
      .where('version', '=', row.latest_version)
      .executeTakeFirstOrThrow();
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
    ctx.db.selectFrom('organizations').select('title').where('id', '=', row.organization_id).executeTakeFirst(),
  ]);
  return {
    ...describe(row, manifest, stored, shared && !owner ? shareToken : undefined),
    organizationTitle: publisher?.title ?? row.organization_id,
    ...(gitbook !== undefined ? { gitbook } : {}),
    ...(owner ? { shareToken: row.share_token } : {}),
  };
}

export interface DirectoryEntry {
  name: string;
  title: string;
  description: string;
  icon?: string;
  organization: string;
  visibility: Database['integrations']['visibility'];
  categories: string[];
}

/**
 * What the principal may install, by name: public integrations, those of the organizations they
 * belong to (every one for the operator), and an unlisted one of another organization only when
 * `share` is its share token.
 */
export async function listIntegrations(
  ctx: ServiceContext,
  principal: Principal,
  share?: string,
): Promise<DirectoryEntry[]> {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot list integrations to install');
  const rows = await ctx.db
    .selectFrom('integrations as i')
    .innerJoin('integration_versions as v', (join) =>
      join.onRef('v.integration_name', '=', 'i.name').onRef('v.version', '=', 'i.latest_version'),
    )
    .select(['i.name', 'i.organization_id', 'i.visibility', 'i.latest_version', 'v.manifest'])
    .$if(principal.kind === 'user', (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('i.visibility', '=', 'public'),
          eb(
            'i.organization_id',
            'in',
            eb
              .selectFrom('memberships')
              .select('organization_id')
              .where('user_id', '=', principal.kind === 'user' ? principal.userId : ''),
          ),
          ...(share !== undefined
            ? [eb.and([eb('i.visibility', '=', 'unlisted'), eb('i.share_token', '=', share)])]
            : []),
        ]),
      ),
    )
    .orderBy('i.name')
    .execute();
  const icons = await storedIcons(ctx.db, rows);
  return rows.map((row) => {
    const manifest = JSON.parse(row.manifest) as Manifest;
    return {
      name: row.name,
      title: manifest.title,
      description: manifest.description,
      ...(icons.has(row.name)
        ? { icon: assetUrl(row.name, row.latest_version, 'icon', row.visibility === 'unlisted' ? share : undefined) }
        : {}),
      organization: row.organization_id,
      visibility: row.visibility,
      categories: manifest.categories ?? [],
    };
  });
}
