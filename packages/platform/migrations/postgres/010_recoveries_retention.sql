-- Portico schema 10: retention removes recover-since jobs that finished before the retention
-- period, oldest first, through this index (a running job is never removed).
CREATE INDEX recoveries_finished ON recoveries (finished_at) WHERE status IN ('done', 'failed');
