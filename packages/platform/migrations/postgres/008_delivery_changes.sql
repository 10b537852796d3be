-- Portico schema 8: the live stream (GET /v1/installations/{id}/stream) reads an installation's
-- deliveries that changed since a time: every attempt, and every end, sets `updated_at`.
CREATE INDEX deliveries_changed ON deliveries (installation_id, updated_at);
