-- Portico schema 15: the delivery policy a delivery is retried under (issue 25): `standard` (the
-- spec's 1, 2 and 4 s) or `extended` (over up to 3 days), fixed when the delivery is asked for,
-- from its installation's configuration; a redelivery keeps it. Existing deliveries: standard.
ALTER TABLE deliveries ADD COLUMN policy TEXT NOT NULL DEFAULT 'standard';
