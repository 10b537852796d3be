-- Portico schema 12: a version written for GitBook's runtime (the GitBook dialect, decision 030)
-- keeps what its manifest says beyond Portico's model, as JSON: `target`, `contentSecurityPolicy`,
-- `configurationComponents` and the blocks' `urlUnfurl` and `markdown`. Dispatches to it carry
-- that runtime's environment shapes. NULL for a version written for Portico.
ALTER TABLE integration_versions ADD COLUMN gitbook TEXT;
