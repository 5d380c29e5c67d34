-- Read models of the admin and customer pages: a website's status history, its quota as the
-- last enforcement pass saw it, and the indexes that keep their lists fast at 100,000 websites.

-- Every change of what the plugin asks for (desired_status), who paused (paused_by) and what
-- the provider shows (provider_status). Written by triggers on websites, so no code path that
-- saves a website can forget it. A rebuild of websites (as 004 did) drops its triggers: such a
-- migration must create them again.
CREATE TABLE website_status_changes (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  domain TEXT NOT NULL,
  account TEXT NOT NULL,
  desired_status_before TEXT,
  desired_status_after TEXT,
  paused_by_before TEXT,
  paused_by_after TEXT,
  provider_status_before TEXT,
  provider_status_after TEXT
);
CREATE INDEX website_status_changes_domain ON website_status_changes (domain, id);

CREATE TRIGGER websites_status_inserted AFTER INSERT ON websites
BEGIN
  INSERT INTO website_status_changes (at, domain, account, desired_status_after, paused_by_after, provider_status_after)
  VALUES (NEW.updated_at, NEW.domain, NEW.account, NEW.desired_status, NEW.paused_by, NEW.provider_status);
END;

-- A re-check that finds the same status writes nothing: only real changes make history.
CREATE TRIGGER websites_status_updated AFTER UPDATE OF desired_status, paused_by, provider_status ON websites
WHEN OLD.desired_status IS NOT NEW.desired_status OR OLD.paused_by IS NOT NEW.paused_by OR OLD.provider_status IS NOT NEW.provider_status
BEGIN
  INSERT INTO website_status_changes (at, domain, account, desired_status_before, desired_status_after, paused_by_before,
    paused_by_after, provider_status_before, provider_status_after)
  VALUES (NEW.updated_at, NEW.domain, NEW.account, OLD.desired_status, NEW.desired_status, OLD.paused_by, NEW.paused_by,
    OLD.provider_status, NEW.provider_status);
END;

-- Each website's quota as the last enforcement pass computed it: the admin list filters and
-- sorts by it without resolving limits for 100,000 websites per request. level: 'none' no
-- limit applies (or exempt, or not computed yet), 'ok' below the warning threshold, 'near' at
-- or above it, 'over' at or above a limit. A website whose pass has not run yet has a 'none'
-- row (the insert trigger below): every website has exactly one row, so the list can be read
-- in usage order from this table's index and joined to websites, never sorted whole.
CREATE TABLE website_quota (
  domain TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  period_start INTEGER,
  period_end INTEGER,
  usage INTEGER NOT NULL DEFAULT 0,
  website_limit INTEGER,
  account_usage INTEGER NOT NULL DEFAULT 0,
  account_limit INTEGER,
  warning_percent INTEGER,
  level TEXT NOT NULL DEFAULT 'none' CHECK (level IN ('none', 'ok', 'near', 'over')),
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX website_quota_level ON website_quota (level, usage);
CREATE INDEX website_quota_usage ON website_quota (usage);
CREATE INDEX website_quota_account ON website_quota (account, usage);

INSERT INTO website_quota (domain, account, updated_at) SELECT domain, account, updated_at FROM websites;

CREATE TRIGGER websites_quota_inserted AFTER INSERT ON websites
BEGIN
  INSERT OR IGNORE INTO website_quota (domain, account, updated_at) VALUES (NEW.domain, NEW.account, NEW.updated_at);
END;

CREATE TRIGGER websites_quota_account_changed AFTER UPDATE OF account ON websites
WHEN OLD.account IS NOT NEW.account
BEGIN
  UPDATE website_quota SET account = NEW.account WHERE domain = NEW.domain;
END;

-- A removed website keeps its last usage but no longer counts as near or over any limit.
CREATE TRIGGER websites_quota_removed AFTER UPDATE OF state ON websites
WHEN NEW.state = 'removed' AND OLD.state IS NOT 'removed'
BEGIN
  UPDATE website_quota SET level = 'none', period_start = NULL, period_end = NULL, website_limit = NULL, account_usage = 0,
    account_limit = NULL, warning_percent = NULL, updated_at = NEW.updated_at
  WHERE domain = NEW.domain;
END;

-- How many websites are in each state, and jobs of each kind in each state, kept by triggers:
-- the overview and the totals of the lists read a few rows instead of counting 100,000.
-- NULL is stored as '' (a primary key column cannot hold it). Rows that fall to 0 stay.
CREATE TABLE website_counts (
  state TEXT NOT NULL,
  provider_status TEXT NOT NULL,
  desired_status TEXT NOT NULL,
  paused_by TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (state, provider_status, desired_status, paused_by)
) WITHOUT ROWID;
INSERT INTO website_counts (state, provider_status, desired_status, paused_by, n)
  SELECT state, COALESCE(provider_status, ''), desired_status, COALESCE(paused_by, ''), COUNT(*) FROM websites GROUP BY 1, 2, 3, 4;

CREATE TRIGGER websites_counted_inserted AFTER INSERT ON websites
BEGIN
  INSERT INTO website_counts (state, provider_status, desired_status, paused_by, n)
  VALUES (NEW.state, COALESCE(NEW.provider_status, ''), NEW.desired_status, COALESCE(NEW.paused_by, ''), 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER websites_counted_deleted AFTER DELETE ON websites
BEGIN
  UPDATE website_counts SET n = n - 1 WHERE state = OLD.state AND provider_status = COALESCE(OLD.provider_status, '')
    AND desired_status = OLD.desired_status AND paused_by = COALESCE(OLD.paused_by, '');
END;

CREATE TRIGGER websites_counted_updated AFTER UPDATE OF state, provider_status, desired_status, paused_by ON websites
WHEN OLD.state IS NOT NEW.state OR OLD.provider_status IS NOT NEW.provider_status OR OLD.desired_status IS NOT NEW.desired_status
  OR OLD.paused_by IS NOT NEW.paused_by
BEGIN
  UPDATE website_counts SET n = n - 1 WHERE state = OLD.state AND provider_status = COALESCE(OLD.provider_status, '')
    AND desired_status = OLD.desired_status AND paused_by = COALESCE(OLD.paused_by, '');
  INSERT INTO website_counts (state, provider_status, desired_status, paused_by, n)
  VALUES (NEW.state, COALESCE(NEW.provider_status, ''), NEW.desired_status, COALESCE(NEW.paused_by, ''), 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TABLE job_counts (
  state TEXT NOT NULL,
  kind TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (state, kind)
) WITHOUT ROWID;
INSERT INTO job_counts (state, kind, n) SELECT state, kind, COUNT(*) FROM jobs GROUP BY 1, 2;

CREATE TRIGGER jobs_counted_inserted AFTER INSERT ON jobs
BEGIN
  INSERT INTO job_counts (state, kind, n) VALUES (NEW.state, NEW.kind, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER jobs_counted_deleted AFTER DELETE ON jobs
BEGIN
  UPDATE job_counts SET n = n - 1 WHERE state = OLD.state AND kind = OLD.kind;
END;

CREATE TRIGGER jobs_counted_updated AFTER UPDATE OF state, kind ON jobs
WHEN OLD.state IS NOT NEW.state OR OLD.kind IS NOT NEW.kind
BEGIN
  UPDATE job_counts SET n = n - 1 WHERE state = OLD.state AND kind = OLD.kind;
  INSERT INTO job_counts (state, kind, n) VALUES (NEW.state, NEW.kind, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- A website's jobs, newest first (its admin page), as an index lookup; the jobs list by state or kind, newest first.
CREATE INDEX jobs_domain ON jobs (domain, id);
CREATE INDEX jobs_state_id ON jobs (state, id);
CREATE INDEX jobs_kind_id ON jobs (kind, id);

-- The admin list of websites: ordered by account, by status or by last change, filtered by
-- status, by who paused, or to the removed ones.
DROP INDEX websites_account;
CREATE INDEX websites_account ON websites (account, domain);
CREATE INDEX websites_status_domain ON websites (provider_status, state, domain);
CREATE INDEX websites_updated ON websites (updated_at);
CREATE INDEX websites_paused_by ON websites (paused_by, domain) WHERE paused_by IS NOT NULL;
CREATE INDEX websites_removed ON websites (domain) WHERE state = 'removed';

-- Accounts by state on the overview, counted from the index alone.
CREATE INDEX accounts_state ON accounts (state);

-- Actions since a time (today's actions on the overview) and the log newest first.
CREATE INDEX enforcement_actions_at ON enforcement_actions (at, action);
