-- Portico schema 19: the dispatch log is read newest first by the time each line records (`at`),
-- then by id: a dispatch that takes rows along writes their lines when it ends (decision 039), so
-- ids no longer follow the order the calls ended in.
CREATE INDEX dispatches_by_installation_at ON dispatches (installation_id, at, id);
