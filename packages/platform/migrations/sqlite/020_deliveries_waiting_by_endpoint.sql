-- Portico schema 20: first attempts no node has claimed, by endpoint, in the order they became due.
-- The delivery engine knows which endpoints it left work of in the database; it claims each one's
-- up to the room its endpoint has in the pool, reading no other rows (before, a claim read up to
-- 256 rows of every endpoint and kept those of endpoints with room). Rows written claimed, as most
-- are, never enter this index. It replaces the index of the same rows by time alone, which no
-- statement used.
DROP INDEX deliveries_waiting;
CREATE INDEX deliveries_waiting_by_endpoint ON deliveries (endpoint_id, next_attempt_at)
  WHERE status = 'pending' AND attempts = 0 AND claimed_until IS NULL;
