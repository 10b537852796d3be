/**
 * The tables of the Portico database, as Kysely sees them (migrations/{sqlite,postgres}).
 *
 * Glossary
 * - organization, space, site: the documentation product's own objects, synced into Portico
 *   by the operator; spaces and sites belong to one organization.
 * - user, membership: a person with an API token, and their role (`admin` or `member`) in an
 *   organization. The operator's admin token stands above all of them.
 * - integration: a published name (unique across Portico) owned by an organization; each
 *   publication adds an integration version (manifest, bundled script, encrypted secrets).
 * - installation: an integration installed into an organization (target `organization`) or,
 *   below that org-level installation (its parent), into a space or a site. It has a
 *   configuration, a status (`pending`, `active`, `paused`) and every status change recorded.
 * - installation token: the API token of one installation (`environment.apiTokens.installation`),
 *   scoped to it and to its integration's manifest scopes; stored hashed for lookup and
 *   encrypted for the envelopes that carry it.
 * - outbox: events owed to an installation (the setup events so far), written in the same
 *   transaction as the change that causes them, so none is lost before it is dispatched.
 *
 * Times are Unix milliseconds; JSON columns are text in both back ends.
 */
import type { Generated } from 'kysely';

export type InstallationStatus = 'pending' | 'active' | 'paused';
export type TargetType = 'organization' | 'space' | 'site';
export type Role = 'admin' | 'member';

export interface Database {
  organizations: { id: string; title: string; subdomain: string | null; created_at: number };
  spaces: { id: string; organization_id: string; title: string; created_at: number };
  sites: { id: string; organization_id: string; title: string; created_at: number };
  users: { id: string; name: string; created_at: number };
  user_tokens: { token_hash: string; user_id: string; created_at: number; revoked_at: number | null };
  memberships: { organization_id: string; user_id: string; role: Role; created_at: number };
  integrations: {
    name: string;
    organization_id: string;
    visibility: 'private' | 'unlisted' | 'public';
    share_token: string;
    latest_version: number;
    created_by: string;
    created_at: number;
    updated_at: number;
  };
  integration_versions: {
    integration_name: string;
    version: number;
    manifest: string;
    manifest_source: string;
    script: string;
    secrets: string | null;
    published_by: string;
    created_at: number;
  };
  installations: {
    id: string;
    integration_name: string;
    organization_id: string;
    target_type: TargetType;
    target_id: string;
    parent_id: string | null;
    status: InstallationStatus;
    configuration: string;
    installation_key: string;
    created_by: string;
    created_at: number;
    updated_at: number;
    uninstalled_at: number | null;
  };
  installation_status_changes: {
    id: Generated<number>;
    installation_id: string;
    from_status: InstallationStatus | null;
    to_status: InstallationStatus;
    cause: string;
    at: number;
  };
  installation_tokens: {
    token_hash: string;
    installation_id: string;
    token: string;
    scopes: string;
    created_at: number;
    revoked_at: number | null;
  };
  outbox: {
    id: Generated<number>;
    installation_id: string;
    event: string;
    created_at: number;
    dispatched_at: number | null;
  };
}
