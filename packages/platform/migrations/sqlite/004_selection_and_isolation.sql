-- Portico schema 4 (SQLite): space and site selection of organization installations; what the
-- dispatcher and the delivery engine need to share their capacity fairly; delivery endpoints
-- and their health.

-- An organization installation's selection: 'all' (every space or site, also later ones) or
-- 'selected' (the places it was installed into). Null for space and site installations.
ALTER TABLE installations ADD COLUMN space_selection TEXT CHECK (space_selection IN ('all', 'selected'));
ALTER TABLE installations ADD COLUMN site_selection TEXT CHECK (site_selection IN ('all', 'selected'));
UPDATE installations SET space_selection = 'selected', site_selection = 'selected' WHERE target_type = 'organization';
-- Routing finds the installations of one place; selection finds those below one installation.
CREATE INDEX installations_by_target ON installations (target_type, target_id) WHERE uninstalled_at IS NULL;
CREATE INDEX installations_by_parent ON installations (parent_id) WHERE uninstalled_at IS NULL;

-- Each owed row names its integration and event type, so claims can be capped per integration
-- and the dispatch log can say what waits, without reading the installation or the event.
ALTER TABLE outbox ADD COLUMN integration_name TEXT;
ALTER TABLE outbox ADD COLUMN event_type TEXT;
-- Owed setup events only: a claim checks that no earlier one of the same installation waits,
-- without walking that installation's other owed rows.
CREATE INDEX outbox_setup_owed ON outbox (installation_id, id) WHERE dispatched_at IS NULL AND event_id IS NULL;
UPDATE outbox SET integration_name = (SELECT i.integration_name FROM installations i WHERE i.id = outbox.installation_id),
  event_type = json_extract(event, '$.type');

-- Where a delivery goes: its endpoint (installation and URL) and destination (scheme, host, port).
CREATE TABLE endpoints (
  id TEXT PRIMARY KEY,
  installation_id TEXT NOT NULL REFERENCES installations (id),
  url TEXT NOT NULL,
  destination TEXT NOT NULL,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  -- The first failure after the last success: every attempt since then failed.
  failing_since INTEGER,
  last_success_at INTEGER,
  last_failure_at INTEGER,
  last_error TEXT,
  disabled_at INTEGER,
  disabled_reason TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX endpoints_by_url ON endpoints (installation_id, url);

-- Rows from before this migration get both on the next start (the URL must be parsed).
ALTER TABLE deliveries ADD COLUMN endpoint_id TEXT REFERENCES endpoints (id);
ALTER TABLE deliveries ADD COLUMN destination TEXT;
-- Deliveries under way (in flight, or waiting for a retry) per destination and installation.
CREATE INDEX deliveries_under_way ON deliveries (destination, installation_id)
  WHERE status = 'pending' AND (attempts > 0 OR claimed_until IS NOT NULL);
-- Retries, in the order they come due (the engine sleeps until the next one).
CREATE INDEX deliveries_retries ON deliveries (next_attempt_at) WHERE status = 'pending' AND attempts > 0;
-- First attempts not yet claimed, in the order they became due.
CREATE INDEX deliveries_waiting ON deliveries (next_attempt_at)
  WHERE status = 'pending' AND attempts = 0 AND claimed_until IS NULL;

-- What each version handles (its `GET /v1` answer), learned once, so routing never waits on a worker.
ALTER TABLE integration_versions ADD COLUMN descriptor TEXT;
