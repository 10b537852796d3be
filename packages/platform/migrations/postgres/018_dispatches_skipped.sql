-- Portico schema 18: the dispatch log also lists the events an installation was owed and did not
-- get (issue 24): `skipped` says why (`paused`); such a line was written by the platform (host
-- `platform`, status 0) and no integration was called. NULL: the event was sent.
ALTER TABLE dispatches ADD COLUMN skipped TEXT;
