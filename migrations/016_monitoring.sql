-- Monitoring first (issue 21): a website can start at the provider in `paused` (the spec's
-- monitoring mode: traffic is watched, nothing is blocked) and switch to protecting after a
-- number of days. A plan sets its days (0: protect at once); a run of bulk protect or import
-- may choose its own. website_monitoring holds, per domain, when its monitoring ends: written
-- when the run or the plan chooses, read when the website is set up, and removed when the
-- scheduled switch (or the customer's Protect now) ends it.
ALTER TABLE plans ADD COLUMN monitor_days INTEGER NOT NULL DEFAULT 0 CHECK (monitor_days BETWEEN 0 AND 90);

CREATE TABLE website_monitoring (
  domain TEXT PRIMARY KEY,
  -- When the website switches to protecting (ms since the epoch); at or before the set-up: protected at once.
  until INTEGER NOT NULL,
  -- Who chose: plan:<name>, bulk:<admin>, import.
  chosen_by TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX website_monitoring_until ON website_monitoring (until);
