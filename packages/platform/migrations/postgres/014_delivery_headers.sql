-- Portico schema 14: a delivery keeps the installation's own headers it was asked with (issue 25),
-- as a JSON object of name to value, sent with every attempt and with its redeliveries. NULL: none.
ALTER TABLE deliveries ADD COLUMN headers TEXT;
