-- Portico schema 13: the pipeline's one scheduler (decision 031) holds claimed work in a node's
-- memory and caps it per node, so no statement counts deliveries under way across nodes any more:
-- the index for that count and the flag that kept claimed-ahead rows out of it go.
DROP INDEX deliveries_under_way;
ALTER TABLE deliveries DROP COLUMN claimed_ahead;
