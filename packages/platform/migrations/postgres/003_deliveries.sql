-- Portico schema 3 (PostgreSQL): webhook deliveries, their attempts, and signing secrets.

CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  installation_id TEXT NOT NULL REFERENCES installations (id),
  event_id TEXT NOT NULL,
  type TEXT NOT NULL,
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts BIGINT NOT NULL,
  next_attempt_at BIGINT,
  claimed_until BIGINT,
  last_error TEXT,
  redelivery_of TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_installation ON deliveries (installation_id, created_at);
-- An integration asking twice for the same event to the same URL gets the one delivery.
CREATE UNIQUE INDEX deliveries_once ON deliveries (installation_id, event_id, url) WHERE redelivery_of IS NULL;

CREATE TABLE delivery_attempts (
  id BIGSERIAL PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES deliveries (id),
  number BIGINT NOT NULL,
  at BIGINT NOT NULL,
  status INTEGER,
  duration_ms BIGINT NOT NULL,
  error TEXT,
  response_excerpt TEXT
);
CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts (delivery_id, number);

-- Newest first; a rotated-out secret keeps signing until it expires (24 h).
CREATE TABLE signing_secrets (
  id BIGSERIAL PRIMARY KEY,
  installation_id TEXT NOT NULL REFERENCES installations (id),
  secret TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT
);
CREATE INDEX signing_secrets_by_installation ON signing_secrets (installation_id, id);
