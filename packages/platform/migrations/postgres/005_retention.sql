-- Portico schema 5 (PostgreSQL): indexes for the retention pruner (services/retention.ts), which
-- deletes finished work older than the retention period in small batches. Each batch walks one
-- of these from the oldest row, so no batch reads a whole table.

-- Outbox rows already dispatched, by when.
CREATE INDEX outbox_dispatched ON outbox (dispatched_at) WHERE dispatched_at IS NOT NULL;
-- Events already routed, by when they came in.
CREATE INDEX events_routed ON events (received_at) WHERE routed_at IS NOT NULL;
CREATE INDEX dispatches_by_at ON dispatches (at);
-- Deliveries that ended, by when they last changed.
CREATE INDEX deliveries_finished ON deliveries (updated_at) WHERE status IN ('delivered', 'failed');
CREATE INDEX egress_by_at ON egress (at);
