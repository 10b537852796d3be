/**
 * An organization's alert URL (decision 036): its admins set and clear it, its members read it,
 * and its admins read and rotate the secret its alerts are signed with. Alerts about its
 * installations then also go there (operator-alerts.ts), as deliveries of its alerts installation.
 */
import { randomBytes } from 'node:crypto';
import { requireMember } from '../access/auth.js';
import { BUILTIN_ORGANIZATION } from '../builtins.js';
import { destinationProblem } from '../delivery/post-webhook.js';
import { rotateSecret, secretsView, validSecrets } from '../delivery/signing-secrets.js';
import { conflict, invalid, notFound } from '../errors/domain-error.js';
import { getOrganization } from '../organizations/organizations.js';
import * as repository from '../storage/repositories/alerts.js';
import * as settings from '../storage/repositories/organization-alerts.js';
import type { Principal, ServiceContext } from '../types.js';
import { organizationAlertsInstallationId } from './operator-alerts.js';

export interface AlertUrlView {
  /** Where alerts about the organization's installations go; null: nowhere (only the operator's). */
  url: string | null;
  /** The alerts installation they are deliveries of (its log shows them to the operator); null before the first set. */
  installationId: string | null;
  updatedAt: string | null;
  updatedBy: string | null;
}

const who = (principal: Principal) => (principal.kind === 'user' ? principal.userId : principal.kind);

function view(row: Awaited<ReturnType<typeof settings.alertSettingOf>>): AlertUrlView {
  if (row === undefined) return { url: null, installationId: null, updatedAt: null, updatedBy: null };
  return {
    url: row.url,
    installationId: row.installation_id,
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
    updatedBy: row.updated_by,
  };
}

/** The organization's alert URL, for its members and the operator. */
export async function getAlertUrl(ctx: ServiceContext, principal: Principal, organizationId: string) {
  await requireMember(ctx, principal, organizationId);
  await getOrganization(ctx, organizationId);
  return view(await settings.alertSettingOf(ctx.db, organizationId));
}

/**
 * Why `url` cannot be an alert URL on this server (as the delivery engine would refuse it), or
 * undefined when it can.
 */
export function alertUrlProblem(url: string, allowPrivateNetwork: boolean): string | undefined {
  const problem = destinationProblem(url, allowPrivateNetwork);
  if (problem === undefined) return undefined;
  const expected = allowPrivateNetwork ? 'an absolute https or http URL' : 'an absolute https URL';
  return `\`url\` must be ${expected}, such as https://ops.example.com/portico-alerts: ${problem}`;
}

/** Sets the organization's alert URL (admins and the operator); its alerts installation is made the first time. */
export async function setAlertUrl(
  ctx: ServiceContext,
  principal: Principal,
  organizationId: string,
  input: { url: string },
) {
  await requireMember(ctx, principal, organizationId, 'admin', 'setting the alert URL');
  await getOrganization(ctx, organizationId);
  const url = input.url.trim();
  const problem = alertUrlProblem(url, ctx.allowPrivateNetwork);
  if (problem !== undefined) {
    throw invalid('invalid_alert_url', problem, { errors: [{ path: 'url', message: problem }] });
  }
  const installationId = organizationAlertsInstallationId(organizationId);
  const there = await repository.ensureAlertsInstallation(ctx.db, {
    id: installationId,
    organizationId: BUILTIN_ORGANIZATION,
    targetId: installationId,
    integration: 'webhook',
    installationKey: ctx.box.seal(randomBytes(32).toString('base64url')),
    now: ctx.now(),
  });
  if (!there) {
    throw conflict(
      `the installation ${installationId} that the alerts of ${organizationId} are delivered for was uninstalled; ask the operator`,
      'alerts_installation_removed',
    );
  }
  // Its signing secret exists before the first alert, so an admin can read it at once.
  await validSecrets(ctx, installationId);
  await settings.saveAlertSetting(ctx.db, {
    organization_id: organizationId,
    installation_id: installationId,
    url,
    updated_by: who(principal),
    updated_at: ctx.now(),
  });
  return view(await settings.alertSettingOf(ctx.db, organizationId));
}

/** Clears the organization's alert URL (its alerts installation and secret stay, for the next URL). */
export async function clearAlertUrl(ctx: ServiceContext, principal: Principal, organizationId: string) {
  await requireMember(ctx, principal, organizationId, 'admin', 'clearing the alert URL');
  await getOrganization(ctx, organizationId);
  const row = await settings.alertSettingOf(ctx.db, organizationId);
  if (row !== undefined && row.url !== null) {
    await settings.saveAlertSetting(ctx.db, { ...row, url: null, updated_by: who(principal), updated_at: ctx.now() });
  }
  return view(await settings.alertSettingOf(ctx.db, organizationId));
}

/** The alerts installation of the organization, for its admins; 404 before an alert URL was first set. */
async function alertsInstallation(ctx: ServiceContext, principal: Principal, organizationId: string) {
  await requireMember(ctx, principal, organizationId, 'admin', 'reading or rotating the alert signing secret');
  await getOrganization(ctx, organizationId);
  const row = await settings.alertSettingOf(ctx.db, organizationId);
  if (row === undefined) {
    throw notFound(
      `the alert signing secret of ${organizationId} (no alert URL was set yet: PUT /v1/orgs/${organizationId}/alert-url first)`,
    );
  }
  return row.installation_id;
}

/** The secret the organization's alerts are signed with (and those still signing after a rotation). */
export async function alertSigningSecret(ctx: ServiceContext, principal: Principal, organizationId: string) {
  return secretsView(ctx, await alertsInstallation(ctx, principal, organizationId));
}

/** Makes a new alert signing secret current; the previous one keeps signing for 24 h. */
export async function rotateAlertSigningSecret(ctx: ServiceContext, principal: Principal, organizationId: string) {
  const installationId = await alertsInstallation(ctx, principal, organizationId);
  await rotateSecret(ctx, installationId);
  return secretsView(ctx, installationId);
}
