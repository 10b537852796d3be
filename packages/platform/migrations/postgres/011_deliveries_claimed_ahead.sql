-- Portico schema 11: a first attempt a node has claimed ahead (decision 025) waits in that node's
-- memory for a slot; it is not under way until it starts, so every node's count of deliveries
-- under way per destination and installation leaves it out. 1 while it waits, 0 otherwise.
ALTER TABLE deliveries ADD COLUMN claimed_ahead INTEGER NOT NULL DEFAULT 0;
