/** Publishing integrations and reading them back (without their secrets). */
import { randomBytes } from 'node:crypto';
import { type Manifest, parseManifest, resolveSecrets } from '@portico/manifest';
import type { Kysely } from 'kysely';
import { badRequest, forbidden, notFound } from '../errors.js';
import { prepared } from '../storage/prepared.js';
import type { Database } from '../storage/schema.js';
import { requireMember, roleIn } from './auth.js';
import type { Principal, ServiceContext } from './context.js';
import { findOrganization } from './directory.js';

export interface PublishInput {
  /** The text of platform-manifest.yaml. */
  manifest: string;
  /** The entry script bundled into one ESM file. */
  script: string;
  /** Values of the environment variables the manifest's secrets reference (`${{ env.NAME }}`). */
  secrets?: Record<string, string> | undefined;
}

/** At most this much script per version (a bundled integration is usually well under 1 MiB). */
export const MAX_SCRIPT_BYTES = 5 * 1024 * 1024;

export async function publish(ctx: ServiceContext, principal: Principal, input: PublishInput) {
  if (principal.kind === 'installation') throw forbidden('an installation token cannot publish integrations');
  const parsed = parseManifest(input.manifest, { internalPublisher: principal.kind === 'admin' });
  if (!parsed.ok) {
    throw badRequest(
      'invalid_manifest',
      `the manifest has ${parsed.errors.length} error(s); fix them and publish again`,
      {
        errors: parsed.errors,
      },
    );
  }
  const manifest = parsed.manifest;
  if (input.script.trim() === '')
    throw badRequest('invalid_script', '`script` is empty: send the bundled entry script');
  if (Buffer.byteLength(input.script) > MAX_SCRIPT_BYTES) {
    throw badRequest('invalid_script', `the script is larger than ${MAX_SCRIPT_BYTES} bytes`);
  }
  const organization = await findOrganization(ctx, manifest.organization);
  if (!organization) {
    throw badRequest(
      'unknown_organization',
      `the manifest's organization "${manifest.organization}" does not exist (give its id or subdomain)`,
    );
  }
  await requireMember(ctx, principal, organization.id);
  const secrets = resolveSecrets(manifest, input.secrets ?? {});
  if (!secrets.ok) throw badRequest('missing_secrets', secrets.message, { missing: secrets.missing });

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
      })
      .execute();
    return { name: manifest.name, version, visibility: manifest.visibility, organization: organization.id, shareToken };
  });
}

/** The public face of an integration: what its manifest says, never its secrets or script. */
function describe(
  row: { name: string; organization_id: string; visibility: string; latest_version: number },
  manifest: Manifest,
) {
  const { secrets: _secrets, ...rest } = manifest;
  return {
    name: row.name,
    organization: row.organization_id,
    visibility: row.visibility,
    version: row.latest_version,
    title: rest.title,
    description: rest.description,
    ...(rest.summary !== undefined ? { summary: rest.summary } : {}),
    scopes: rest.scopes,
    ...(rest.categories ? { categories: rest.categories } : {}),
    ...(rest.blocks ? { blocks: rest.blocks } : {}),
    ...(rest.externalLinks ? { externalLinks: rest.externalLinks } : {}),
    ...(rest.configurations ? { configurations: rest.configurations } : {}),
    secretNames: Object.keys(manifest.secrets ?? {}),
  };
}

const integrationByName = prepared((db, name: string) =>
  db.selectFrom('integrations').selectAll().where('name', '=', name),
);

/** Published versions never change, so their parsed manifests are kept, per database (name@version → manifest). */
const manifestCaches = new WeakMap<ServiceContext['db'], Map<string, Manifest>>();
const MAX_CACHED_MANIFESTS = 1000;

/** The integration's latest published version, read fresh (a publish on any node changes it). */
export async function latestVersion(ctx: ServiceContext, name: string): Promise<number> {
  const row = await integrationByName.first(ctx.db, name);
  if (!row) throw notFound(`the integration ${name}`);
  return row.latest_version;
}

/** The integration and its latest version, as stored (read through `db`: pass the transaction when inside one). */
export async function loadIntegration(ctx: ServiceContext, name: string, db: Kysely<Database> = ctx.db) {
  const row = await integrationByName.first(db, name);
  if (!row) throw notFound(`the integration ${name}`);
  const key = `${name}@${row.latest_version}`;
  let manifests = manifestCaches.get(ctx.db);
  if (manifests === undefined) {
    manifests = new Map();
    manifestCaches.set(ctx.db, manifests);
  }
  let manifest = manifests.get(key);
  if (manifest === undefined) {
    const version = await db
      .selectFrom('integration_versions')
      .select('manifest')
      .where('integration_name', '=', name)
      .where('version', '=', row.latest_version)
      .executeTakeFirstOrThrow();
    manifest = JSON.parse(version.manifest) as Manifest;
    if (manifests.size >= MAX_CACHED_MANIFESTS) manifests.clear();
    manifests.set(key, manifest);
  }
  return { row, manifest };
}

/** Who may see an integration: public ones everyone; unlisted ones with the share token; private ones the owners. */
export async function getIntegration(ctx: ServiceContext, principal: Principal, name: string, shareToken?: string) {
  const { row, manifest } = await loadIntegration(ctx, name);
  const owner = principal.kind === 'admin' || (await roleIn(ctx, principal, row.organization_id)) !== undefined;
  const visible =
    owner ||
    row.visibility === 'public' ||
    (row.visibility === 'unlisted' && shareToken !== undefined && shareToken === row.share_token);
  // Hide what exists from those who may not see it.
  if (!visible) throw notFound(`the integration ${name}`);
  return { ...describe(row, manifest), ...(owner ? { shareToken: row.share_token } : {}) };
}
