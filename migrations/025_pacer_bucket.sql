-- The pacer's bucket (issue 23, docs/fleet.md "One budget per server"): one row per budget,
-- shared by every process on this data folder (wpp serve, wpp worker, one-shot commands). Each
-- process takes tokens in small batches in one IMMEDIATE transaction; the learned rate, the
-- provider's Retry-After and the last decrease are kept here so all of them, and a restart,
-- see them. Times are epoch milliseconds.
CREATE TABLE pacer_bucket (
  name TEXT PRIMARY KEY,
  rate REAL NOT NULL CHECK (rate > 0),
  tokens REAL NOT NULL CHECK (tokens >= 0),
  refilled_at INTEGER NOT NULL,
  blocked_until INTEGER NOT NULL DEFAULT 0,
  decreased_at INTEGER NOT NULL DEFAULT 0
);
