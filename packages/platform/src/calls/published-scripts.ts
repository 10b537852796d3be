/**
 * Site scripts (DESIGN.md "the GitBook dialect"; the analytics and chat widgets): an integration
 * whose latest version has the internal scope `site:script:inject` (only publishers the operator
 * marks internal may ask for it: a manifest published with the operator's token) publishes, for
 * each site it is installed in, a script that the documentation product injects into the site's
 * pages.
 *
 * Both need the scope granted by the site's organization too (DESIGN.md "Granted scopes").
 *
 * - `siteScripts` lists, for an admin of the site's organization or the operator, the site's
 *   active installations that publish one: `{ installationId, integration, url }`, and the
 *   version's `contentSecurityPolicy` when its gitbook-manifest.yaml states one (the site adds it
 *   to its pages' policy so the script may load what it needs).
 * - `publishedScript` is what `url` answers, to anyone (a site's visitors load it): the
 *   integration's answer to `fetch_published_script`, sent as a synchronous call with the site
 *   installation's environment (so it reads `siteInstallation.configuration`). Its ETag is made
 *   from what the script may depend on: the integration's version and the configurations of the
 *   installation and of its organization installation; the script is kept on this node until
 *   one of them changes (an `If-None-Match` with the current ETag is a 304 without a call).
 */
import { createHash } from 'node:crypto';
import { requireMember } from '../access/auth.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { DomainError, forbidden, invalid, notFound } from '../errors/domain-error.js';
import { policyText } from '../gitbook/environment.js';
import { grantOf } from '../installations/granted-scopes.js';
import { loadInstallation } from '../installations/load.js';
import { loadIntegration } from '../integrations/read.js';
import * as installations from '../storage/repositories/installations.js';
import { placeOf } from '../storage/repositories/organizations.js';
import type { Principal, ServiceContext } from '../types.js';
import { hostFailure } from './integration-calls.js';

/** The scope a version needs to publish a site script. */
export const SCRIPT_SCOPE = 'site:script:inject';

export interface SiteScript {
  installationId: string;
  integration: string;
  url: string;
  contentSecurityPolicy?: string | Record<string, string>;
}

/** Where a site installation's published script is served. */
export const publishedScriptUrl = (ctx: ServiceContext, id: string) =>
  `${ctx.publicUrl}/v1/installations/${encodeURIComponent(id)}/published-script`;

/** The scripts of a site's active installations, for an admin of its organization or the operator. */
export async function siteScripts(ctx: ServiceContext, principal: Principal, site: string): Promise<SiteScript[]> {
  const place = await placeOf(ctx.db, 'site', site);
  if (place === undefined) throw notFound(`the site ${site}`);
  await requireMember(ctx, principal, place.organization_id, 'admin');
  const scripts: SiteScript[] = [];
  for (const row of await installations.installationsIn(ctx.db, 'site', site)) {
    if (row.status !== 'active') continue;
    const parent = row.parent_id === null ? undefined : await loadInstallation(ctx, row.parent_id);
    if (parent?.status === 'paused') continue;
    const { manifest, gitbook } = await loadIntegration(ctx, row.integration_name);
    if (!(manifest.scopes as string[]).includes(SCRIPT_SCOPE)) continue;
    // Not granted by its organization (a newer version asks for it): not injected until accepted.
    if (!grantOf(parent?.granted_scopes ?? row.granted_scopes).includes(SCRIPT_SCOPE)) continue;
    scripts.push({
      installationId: row.id,
      integration: row.integration_name,
      url: publishedScriptUrl(ctx, row.id),
      ...(gitbook?.contentSecurityPolicy !== undefined
        ? { contentSecurityPolicy: policyOf(gitbook.contentSecurityPolicy) }
        : {}),
    });
  }
  return scripts;
}

/** A policy written as text, as one header value (no line breaks, no trailing ";"); a mapping as it is, its sources trimmed. */
function policyOf(policy: string | Record<string, string>): string | Record<string, string> {
  if (typeof policy === 'string') return policyText(policy);
  return Object.fromEntries(
    Object.entries(policy).map(([directive, sources]) => [directive, sources.replace(/\s+/g, ' ').trim()]),
  );
}

interface Kept {
  etag: string;
  script: Uint8Array;
}
const MAX_KEPT = 1000;
const keptScripts = new WeakMap<ServiceContext['db'], Map<string, Kept>>();

export type PublishedScript = { status: 304; etag: string } | { status: 200; etag: string; script: Uint8Array };

/** A site installation's script (or 304 when `ifNoneMatch` names the current one). */
export async function publishedScript(
  ctx: ServiceContext,
  dispatcher: Dispatcher,
  id: string,
  ifNoneMatch: string | undefined,
): Promise<PublishedScript> {
  const installation = await loadInstallation(ctx, id);
  const { row: integration, manifest } = await loadIntegration(ctx, installation.integration_name);
  const name = installation.integration_name;
  if (!(manifest.scopes as string[]).includes(SCRIPT_SCOPE)) {
    throw invalid(
      'no_script_scope',
      `${name} publishes no site script: its manifest does not ask for the scope \`${SCRIPT_SCOPE}\` (internal: add it to the manifest and publish with the operator's token)`,
    );
  }
  if (installation.target_type !== 'site') {
    throw invalid(
      'not_a_site_installation',
      `the installation ${id} is ${name}'s ${installation.target_type} installation; a script is published per site: ask for a site installation's (GET /v1/sites/{site}/scripts lists them)`,
    );
  }
  const parent = installation.parent_id === null ? undefined : await loadInstallation(ctx, installation.parent_id);
  if (!grantOf(parent?.granted_scopes ?? installation.granted_scopes).includes(SCRIPT_SCOPE)) {
    throw forbidden(
      `${name} asks for the scope \`${SCRIPT_SCOPE}\`, which the organization ${installation.organization_id} has not granted: an admin of it accepts the new permissions on the installation ${parent?.id ?? id} (POST /v1/installations/${parent?.id ?? id}/scopes/accept)`,
    );
  }
  // A paused organization installation pauses what is below it.
  const inactive = installation.status !== 'active' ? installation : parent?.status === 'paused' ? parent : undefined;
  if (inactive !== undefined) {
    throw new DomainError(
      'unavailable',
      'installation_not_active',
      `the installation ${inactive.id}${inactive === parent ? `, above ${id},` : ''} is ${inactive.status}; the script is served while it is active${inactive.status === 'paused' ? ' (an organization admin can resume it)' : ' (finish its configuration)'}`,
    );
  }
  const etag = `"${createHash('sha256')
    .update(
      JSON.stringify([name, integration.latest_version, installation.configuration, parent?.configuration ?? null]),
    )
    .digest('base64url')
    .slice(0, 27)}"`;
  if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
    return { status: 304, etag };
  }
  let kept = keptScripts.get(ctx.db);
  if (kept === undefined) {
    kept = new Map();
    keptScripts.set(ctx.db, kept);
  }
  const known = kept.get(id);
  if (known !== undefined && known.etag === etag) return { status: 200, etag, script: known.script };
  const response = await dispatcher
    .send(installation, {
      type: 'fetch_published_script',
      eventId: `script_${Date.now().toString(36)}`,
      installationId: id,
      siteId: installation.target_id,
    })
    .catch(hostFailure);
  if (response.status === 404 || response.status === 406) {
    throw new DomainError(
      'not_found',
      'no_published_script',
      `${name} does not publish a script (it answered ${response.status} to fetch_published_script); its handler for that event answers the script`,
    );
  }
  if (response.status !== 200) {
    throw new DomainError(
      'integration_failed',
      'integration_error',
      `${name} answered ${response.status} to fetch_published_script`,
    );
  }
  if (kept.size >= MAX_KEPT) kept.clear();
  kept.set(id, { etag, script: response.body });
  return { status: 200, etag, script: response.body };
}
