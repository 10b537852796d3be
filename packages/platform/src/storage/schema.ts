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
 * - selection: which spaces (sites) an organization installation is installed into: `all` (every
 *   one of the organization, also those created later) or `selected` (the ones named). Each
 *   selected place has its own space (site) installation, which receives that place's events.
 * - grant: the scopes an organization granted an integration's organization installation (and the
 *   places below it): what an admin accepted, never more than the latest version asks for.
 * - installation token: the API token of one installation (`environment.apiTokens.installation`),
 *   scoped to it and to the scopes its organization granted; stored hashed for lookup and
 *   encrypted for the envelopes that carry it.
 * - session: a signed-in dashboard visitor (an HttpOnly cookie holding a secret whose hash is the
 *   key), standing for the user or admin token it was opened with; a sign-in code is a one-time
 *   operator sign-in printed by `portico serve`.
 * - event: a platform event (`POST /v1/events`), persisted before it is acknowledged, then routed.
 * - outbox: the dispatch queue: each row is one event owed to one installation (setup events
 *   are written in the same transaction as the change that causes them; routed platform events
 *   in the same transaction that marks the event routed), so none is lost before it is dispatched.
 *   Dispatchers claim rows with a lease and take each installation's rows in order.
 * - dispatch: one envelope sent to an integration's host and how it went, with the logs.
 * - egress: an outbound request made by integration code through the platform.
 * - delivery: a webhook POST owed to a URL (the exact body, the event it carries), worked by the
 *   delivery engine until it is `delivered` or `failed`; each try is an attempt, logged.
 * - endpoint: one installation's URL that deliveries go to, with its health (consecutive failures,
 *   last success); one that failed every attempt for long enough is disabled until re-enabled.
 * - subscription: an endpoint a webhook installation subscribes (`subscribed = 1`): the event types
 *   it selected, its headers and delivery policy. Routing writes a delivery per matching
 *   subscription in the event's own write (fan-out at ingest); the configuration form edits one.
 * - destination: the scheme, host and port of an endpoint: the unit that caps attempts under way,
 *   so one slow receiver cannot take the delivery engine.
 * - recovery: a recover-since job that redelivers an installation's failed deliveries of a time
 *   window in the background, with its progress; durable, resumed by any node after a stop.
 * - signing secret: the installation's HMAC key for `X-Platform-Signature`; after a rotation the
 *   old one keeps signing for 24 h.
 *
 * Times are Unix milliseconds; JSON columns are text in both back ends.
 */
import type { Generated } from 'kysely';

export type InstallationStatus = 'pending' | 'active' | 'paused';
export type TargetType = 'organization' | 'space' | 'site';
export type Role = 'admin' | 'member';
export type Selection = 'all' | 'selected';

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
    /** Set for a remote integration: the URL the platform POSTs envelopes to (script is then empty). */
    endpoint: string | null;
    /** JSON of what the version handles (its `GET /v1` answer), once learned; routing reads it. */
    descriptor: string | null;
    /** JSON of a GitBook-dialect version's facts (`GitBookFacts`); null for a version written for Portico. */
    gitbook: string | null;
  };
  /** The files a version's manifest names for its page (`icon`, `preview-N`), as published. */
  integration_assets: {
    integration_name: string;
    version: number;
    asset: string;
    path: string;
    content_type: string;
    bytes: Uint8Array;
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
    /** Organization installations only: `all` or `selected` (null for space and site installations). */
    space_selection: Selection | null;
    site_selection: Selection | null;
    created_by: string;
    created_at: number;
    updated_at: number;
    uninstalled_at: number | null;
    /**
     * Organization installations only (null for space and site installations, which share it): the
     * scopes the organization granted, a JSON array (DESIGN.md "Granted scopes", decision 054).
     */
    granted_scopes: string | null;
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
    /** The installation's integration (dispatches in flight are capped per integration). */
    integration_name: string;
    /** The platform event this row dispatches (null for setup events). */
    event_id: string | null;
    event_type: string;
    event: string;
    created_at: number;
    attempts: Generated<number>;
    /** Not before this time (a retry waits here). */
    available_at: Generated<number>;
    /** A dispatcher holds this row until then (a lease: a crashed node's rows come back). */
    claimed_until: number | null;
    dispatched_at: number | null;
    /** How it ended: `delivered`, `not_handled`, `skipped` or `failed: …`. */
    outcome: string | null;
  };
  events: { event_id: string; type: string; payload: string; received_at: number; routed_at: number | null };
  dispatches: {
    id: Generated<number>;
    installation_id: string;
    event_id: string | null;
    event_type: string;
    host: string;
    status: number;
    duration_ms: number;
    error: string | null;
    logs: string;
    at: number;
    /** Why the event was not sent (`paused`): the platform wrote this line, no integration was called. */
    skipped: Generated<string | null>;
  };
  deliveries: {
    id: string;
    installation_id: string;
    event_id: string;
    type: string;
    url: string;
    /** The exact bytes every attempt sends (UTF-8 JSON). */
    body: string;
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    next_attempt_at: number | null;
    claimed_until: number | null;
    last_error: string | null;
    redelivery_of: string | null;
    endpoint_id: string | null;
    /** `scheme://host:port` of the URL: attempts under way are capped per destination. */
    destination: string | null;
    /** The installation's own headers (JSON object of name to value) sent with every attempt; null: none. */
    headers: string | null;
    /** The delivery policy it is retried under (`standard`, `extended`: `@portico/webhooks`), fixed when it is asked for. */
    policy: string;
    created_at: number;
    updated_at: number;
  };
  endpoints: {
    id: string;
    installation_id: string;
    url: string;
    destination: string;
    consecutive_failures: number;
    /** The first failure after the last success (every attempt since failed); null while healthy. */
    failing_since: number | null;
    last_success_at: number | null;
    last_failure_at: number | null;
    last_error: string | null;
    disabled_at: number | null;
    disabled_reason: string | null;
    created_at: number;
    updated_at: number;
    /** 1: a webhook subscription (routing delivers the events it selected to it); 0: only where deliveries went. */
    subscribed: Generated<number>;
    /** A subscription's selected event types (JSON array). */
    event_types: Generated<string>;
    /** A subscription's own headers (JSON object of name to value); null: none. */
    headers: string | null;
    /** A subscription's delivery policy; null: the default. */
    policy: string | null;
    /** 0 once a person switched the subscription off (nothing is delivered); disabled_at is the failures'. */
    enabled: Generated<number>;
    /** 1 for the subscription the installation's configuration form edits. */
    from_configuration: Generated<number>;
    /** When the subscription was removed (its row stays: its deliveries point at it). */
    removed_at: number | null;
    /** Most deliveries per second this node starts to it (schema 23); null: no limit but the caps. */
    rate_limit: number | null;
  };
  delivery_attempts: {
    id: Generated<number>;
    delivery_id: string;
    number: number;
    at: number;
    status: number | null;
    duration_ms: number;
    error: string | null;
    response_excerpt: string | null;
  };
  signing_secrets: {
    id: Generated<number>;
    installation_id: string;
    secret: string;
    created_at: number;
    expires_at: number | null;
  };
  /** An organization's alert URL (migration 016): null once cleared; its alerts installation stays. */
  organization_alerts: {
    organization_id: string;
    installation_id: string;
    url: string | null;
    updated_by: string;
    updated_at: number;
  };
  egress: {
    id: Generated<number>;
    installation_id: string | null;
    integration_name: string;
    method: string;
    url: string;
    status: number | null;
    refused: string | null;
    at: number;
  };
  recoveries: {
    id: string;
    installation_id: string;
    /** The window of delivery creation times: [since, until). */
    since: number;
    until: number;
    status: 'running' | 'done' | 'failed';
    /** Failed deliveries in the window when the job was made (done + errors once it ends). */
    total: number;
    /** Redelivered so far. */
    done: number;
    /** Could not be redelivered (a disabled endpoint). */
    errors: number;
    last_error: string | null;
    /** The last delivery handled, in (created_at, id) order: a resumed job goes on after it. */
    cursor_created_at: number | null;
    cursor_id: string | null;
    /** A node works the job until then (a lease: a stopped node's job is taken over). */
    claimed_until: number | null;
    created_by: string;
    created_at: number;
    updated_at: number;
    finished_at: number | null;
  };
  sessions: {
    id_hash: string;
    kind: 'admin' | 'user';
    token_hash: string;
    csrf_token: string;
    created_at: number;
    expires_at: number;
  };
  sign_in_codes: {
    code_hash: string;
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
}
