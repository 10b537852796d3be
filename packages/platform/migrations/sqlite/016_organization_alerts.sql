-- Portico schema 16: an organization's own alert URL (issue 25, decision 036). Alerts about its
-- installations are also delivered there, as deliveries of its alerts installation (installation_id,
-- made on the first set and kept when the URL is cleared, so its signing secret stays the same).
CREATE TABLE organization_alerts (
  organization_id TEXT PRIMARY KEY REFERENCES organizations (id),
  installation_id TEXT NOT NULL REFERENCES installations (id),
  url TEXT,
  updated_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
