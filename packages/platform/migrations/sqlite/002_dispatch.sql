-- Portico schema 2 (SQLite): platform events, dispatch jobs with leases, the dispatch log, egress.

-- A platform event, persisted before it is acknowledged; routed to installations afterwards.
CREATE TABLE events (
  event_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  routed_at INTEGER
);
CREATE INDEX events_unrouted ON events (received_at) WHERE routed_at IS NULL;

-- The outbox becomes the dispatch queue: each row is one event owed to one installation.
ALTER TABLE outbox ADD COLUMN event_id TEXT;
ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN available_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN claimed_until INTEGER;
ALTER TABLE outbox ADD COLUMN outcome TEXT;
CREATE UNIQUE INDEX outbox_event_installation ON outbox (event_id, installation_id) WHERE event_id IS NOT NULL;
-- The dispatcher walks what is owed in order without reading what was delivered.
CREATE INDEX outbox_owed ON outbox (id) WHERE dispatched_at IS NULL;

-- Every dispatch to an integration: what was sent, where, and how it went.
CREATE TABLE dispatches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  installation_id TEXT NOT NULL REFERENCES installations (id),
  event_id TEXT,
  event_type TEXT NOT NULL,
  host TEXT NOT NULL,
  status INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  error TEXT,
  logs TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX dispatches_by_installation ON dispatches (installation_id, id);

-- Every outbound request integration code made through the platform's egress.
CREATE TABLE egress (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  installation_id TEXT,
  integration_name TEXT NOT NULL,
  method TEXT NOT NULL,
  url TEXT NOT NULL,
  status INTEGER,
  refused TEXT,
  at INTEGER NOT NULL
);
CREATE INDEX egress_by_installation ON egress (installation_id, id);

-- A remote integration is served elsewhere: the platform POSTs envelopes to its endpoint.
ALTER TABLE integration_versions ADD COLUMN endpoint TEXT;
