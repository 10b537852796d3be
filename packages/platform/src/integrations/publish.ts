/** Publishing an integration: a new version of its name (manifest, bundled script, secrets, assets). */
import { randomBytes } from 'node:crypto';
import { type Manifest, parseManifest, resolveSecrets } from '@portico/manifest';
import { requireMember } from '../access/auth.js';
import { forbidden, invalid } from '../errors/domain-error.js';
import { checkGitBookFacts, type GitBookFacts } from '../gitbook/dialect.js';
import { applyVersionScopes } from '../installations/granted-scopes.js';
import { findOrganization } from '../organizations/organizations.js';
import * as integrations from '../storage/repositories/integrations.js';
import type { Principal, ServiceContext } from '../types.js';
import { acceptAssets } from './assets.js';

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
  const published = await ctx.db.transaction().execute(async (trx) => {
    const existing = await integrations.lockIntegration(trx, ctx.dialect, manifest.name);
    if (existing && existing.organization_id !== organization.id) {
      throw forbidden(`the name "${manifest.name}" belongs to another organization's integration; choose another name`);
    }
    const version = (existing?.latest_version ?? 0) + 1;
    const shareToken = existing?.share_token ?? randomBytes(16).toString('base64url');
    if (existing) {
      await integrations.setLatestVersion(trx, manifest.name, {
        latest_version: version,
        visibility: manifest.visibility,
        updated_at: now,
      });
    } else {
      await integrations.insertIntegration(trx, {
        name: manifest.name,
        organization_id: organization.id,
        visibility: manifest.visibility,
        share_token: shareToken,
        latest_version: version,
        created_by: publisher,
        created_at: now,
        updated_at: now,
      });
    }
    await integrations.insertVersion(trx, {
      integration_name: manifest.name,
      version,
      manifest: JSON.stringify(manifest),
      manifest_source: input.manifest,
      script: input.script,
      secrets: Object.keys(secrets.secrets).length > 0 ? ctx.box.seal(JSON.stringify(secrets.secrets)) : null,
      published_by: publisher,
      created_at: now,
      gitbook: input.gitbook !== undefined ? JSON.stringify(input.gitbook) : null,
    });
    if (assets.length > 0) {
      await integrations.insertAssets(
        trx,
        assets.map((asset) => ({ ...asset, integration_name: manifest.name, version })),
      );
    }
    // What the version does to the installations' grants (DESIGN.md "Granted scopes").
    const previous = existing
      ? (
          JSON.parse(
            (await integrations.versionManifest(trx, manifest.name, existing.latest_version)).manifest,
          ) as Manifest
        ).scopes
      : undefined;
    const requests = await applyVersionScopes(trx, manifest.name, version, manifest.scopes, previous, now);
    return {
      answer: {
        name: manifest.name,
        version,
        visibility: manifest.visibility,
        organization: organization.id,
        shareToken,
      },
      requests,
    };
  });
  // A narrowed grant owes setup events; a new request is told to the organization's alert URL.
  ctx.wake();
  for (const request of published.requests) if (request.fresh) ctx.alerts?.scopesRequested?.(request);
  return published.answer;
}
