-- Portico schema 1 (PostgreSQL). Times are Unix milliseconds; JSON is stored as text.
CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  subdomain TEXT UNIQUE,
  created_at BIGINT NOT NULL
);

CREATE TABLE spaces (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  title TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE TABLE sites (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  title TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE TABLE user_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id),
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);

CREATE TABLE memberships (
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  user_id TEXT NOT NULL REFERENCES users (id),
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  created_at BIGINT NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);

CREATE TABLE integrations (
  name TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  visibility TEXT NOT NULL CHECK (visibility IN ('private', 'unlisted', 'public')),
  share_token TEXT NOT NULL,
  latest_version BIGINT NOT NULL,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE integration_versions (
  integration_name TEXT NOT NULL REFERENCES integrations (name),
  version BIGINT NOT NULL,
  manifest TEXT NOT NULL,
  manifest_source TEXT NOT NULL,
  script TEXT NOT NULL,
  secrets TEXT,
  published_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (integration_name, version)
);

CREATE TABLE installations (
  id TEXT PRIMARY KEY,
  integration_name TEXT NOT NULL REFERENCES integrations (name),
  organization_id TEXT NOT NULL REFERENCES organizations (id),
  target_type TEXT NOT NULL CHECK (target_type IN ('organization', 'space', 'site')),
  target_id TEXT NOT NULL,
  parent_id TEXT REFERENCES installations (id),
  status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'paused')),
  configuration TEXT NOT NULL,
  installation_key TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  uninstalled_at BIGINT
);
CREATE UNIQUE INDEX installations_one_per_target ON installations (integration_name, target_type, target_id)
  WHERE uninstalled_at IS NULL;
CREATE INDEX installations_by_organization ON installations (organization_id);

CREATE TABLE installation_status_changes (
  id BIGSERIAL PRIMARY KEY,
  installation_id TEXT NOT NULL REFERENCES installations (id),
  from_status TEXT,
  to_status TEXT NOT NULL,
  cause TEXT NOT NULL,
  at BIGINT NOT NULL
);
CREATE INDEX installation_status_changes_by_installation ON installation_status_changes (installation_id, id);

CREATE TABLE installation_tokens (
  token_hash TEXT PRIMARY KEY,
  installation_id TEXT NOT NULL REFERENCES installations (id),
  token TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);
CREATE INDEX installation_tokens_by_installation ON installation_tokens (installation_id);

-- Events the platform owes an installation (setup events now; every event once dispatch lands).
CREATE TABLE outbox (
  id BIGSERIAL PRIMARY KEY,
  installation_id TEXT NOT NULL REFERENCES installations (id),
  event TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  dispatched_at BIGINT
);
CREATE INDEX outbox_pending ON outbox (installation_id, id) WHERE dispatched_at IS NULL;
