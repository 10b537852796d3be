-- Portico schema 23: per-endpoint rate limits (issue 42). An endpoint may say how many deliveries
-- per second it takes at most (null: no limit beyond the concurrency caps). Each node paces its own
-- attempts by it, as it caps them (decision 031): with several nodes an endpoint may see up to
-- nodes × its rate. The delivery engine reads the limited endpoints through the partial index.
ALTER TABLE endpoints ADD COLUMN rate_limit INTEGER;
CREATE INDEX endpoints_rate_limited ON endpoints (id) WHERE rate_limit IS NOT NULL;
