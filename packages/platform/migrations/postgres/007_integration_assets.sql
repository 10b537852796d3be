-- Portico schema 7: the files a manifest names for its page (`icon`, `previewImages`), sent with
-- each publication and kept per version, so the dashboard shows them
-- (GET /v1/integrations/{name}/assets/{asset}). `asset` is `icon` or `preview-N` (N from 0, in
-- the manifest's order); `path` is the file as the manifest names it.
CREATE TABLE integration_assets (
  integration_name TEXT NOT NULL,
  version BIGINT NOT NULL,
  asset TEXT NOT NULL,
  path TEXT NOT NULL,
  content_type TEXT NOT NULL,
  bytes BYTEA NOT NULL,
  PRIMARY KEY (integration_name, version, asset),
  FOREIGN KEY (integration_name, version) REFERENCES integration_versions (integration_name, version)
);
