-- The fleet budget's lease on the pacer's bucket (issue 23, docs/fleet.md "The fleet budget"):
-- the share of the partner key's rate the fleet database handed this server, and until when
-- (epoch milliseconds, this machine's clock). Written by `wpp serve` about once a second while
-- it follows the fleet; read by every process of the data folder with the bucket, in the same
-- transaction. NULL, or a time passed: the bucket paces itself by its own AIMD.
ALTER TABLE pacer_bucket ADD COLUMN lease_rate REAL CHECK (lease_rate IS NULL OR lease_rate > 0);
ALTER TABLE pacer_bucket ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
