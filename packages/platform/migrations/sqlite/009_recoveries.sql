-- Portico schema 9: recover-since jobs (POST /v1/installations/{id}/deliveries/recover). A job
-- redelivers every failed delivery of one installation created in [since, until) that was not
-- redelivered yet, in batches; each batch commits its new deliveries together with the job's
-- progress and the last delivery it handled (the cursor), so a job that a stopped node held goes
-- on where it stood, on whichever node claims it once its lease ends.
CREATE TABLE recoveries (
  id TEXT PRIMARY KEY,
  installation_id TEXT NOT NULL REFERENCES installations (id),
  since INTEGER NOT NULL,
  until INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  total INTEGER NOT NULL,
  done INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  last_error TEXT,
  cursor_created_at INTEGER,
  cursor_id TEXT,
  claimed_until INTEGER,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX recoveries_running ON recoveries (created_at) WHERE status = 'running';
CREATE INDEX recoveries_by_installation ON recoveries (installation_id, created_at);

-- "Was this delivery redelivered?": only redeliveries have an entry (first deliveries pay nothing).
CREATE INDEX deliveries_redelivered ON deliveries (redelivery_of) WHERE redelivery_of IS NOT NULL;
