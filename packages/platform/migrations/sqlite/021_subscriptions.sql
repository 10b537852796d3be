-- Portico schema 21: webhook subscriptions (issue 39; DESIGN.md "The pipeline's shape"). An
-- endpoint is now also what a webhook installation subscribes: its URL, the event types it
-- selected, its own headers and its delivery policy. Routing writes one delivery per matching
-- subscription in the event's own write (no outbox row, no dispatch). The subscription the
-- configuration form edits is marked; the API may add more. Endpoints that only record where
-- deliveries went (a URL asked for through POST /deliveries, a URL changed since) stay as they
-- were: subscribed = 0. A removed subscription keeps its row (its deliveries point at it).
ALTER TABLE endpoints ADD COLUMN subscribed INTEGER NOT NULL DEFAULT 0;
-- JSON array of event types.
ALTER TABLE endpoints ADD COLUMN event_types TEXT NOT NULL DEFAULT '[]';
-- JSON object of header name to value; null: none.
ALTER TABLE endpoints ADD COLUMN headers TEXT;
-- The delivery policy (@portico/webhooks); null: the default.
ALTER TABLE endpoints ADD COLUMN policy TEXT;
-- Switched off by a person (no delivery is made); unlike disabled_at, which failures set.
ALTER TABLE endpoints ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;
-- The subscription the installation's configuration (url, event booleans, headers, policy) edits.
ALTER TABLE endpoints ADD COLUMN from_configuration INTEGER NOT NULL DEFAULT 0;
ALTER TABLE endpoints ADD COLUMN removed_at INTEGER;
-- One live subscription per URL and installation, and one plain endpoint per URL and installation.
DROP INDEX endpoints_by_url;
CREATE UNIQUE INDEX endpoints_subscribed_by_url ON endpoints (installation_id, url)
  WHERE subscribed = 1 AND removed_at IS NULL;
CREATE UNIQUE INDEX endpoints_by_url ON endpoints (installation_id, url) WHERE subscribed = 0;
-- Routing reads the live subscriptions of the installations in a place.
CREATE INDEX endpoints_subscriptions ON endpoints (installation_id) WHERE subscribed = 1 AND removed_at IS NULL;
