-- paused_by 'reseller' (issue 22): a reseller's pause of one of their customers' websites, told
-- apart from the host admin's ('admin'). A reseller may resume their own pauses and their
-- customers', never the host's: the admin's pause, the hit limit's or the reseller pool's, a
-- package without protection. Before this a reseller's pause was stored as 'admin', and a
-- reseller could resume the host's pauses too. Pauses made before this stay 'admin' (whose they
-- were is not recorded): the host's, as the safe reading.
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt as in 020, its indexes
-- and triggers made again exactly as they were.
CREATE TABLE websites_new (
  domain TEXT PRIMARY KEY,
  account TEXT NOT NULL REFERENCES accounts (account),
  subdomains TEXT NOT NULL DEFAULT '[]',
  origin_ips TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'removed')),
  desired_status TEXT NOT NULL CHECK (desired_status IN ('online', 'paused', 'setup')),
  paused_by TEXT CHECK (paused_by IN ('customer', 'admin', 'enforcement', 'suspension', 'domain_removed', 'account_deleted', 'external', 'package', 'reseller')),
  provider_status TEXT,
  provider_checked_at INTEGER,
  callback_token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  enforcement_paused_period INTEGER,
  admin_override_until INTEGER,
  provisioned_at INTEGER DEFAULT 0,
  provisioning_error_code TEXT,
  provisioning_error TEXT,
  provisioning_failed_at INTEGER
);
INSERT INTO websites_new (domain, account, subdomains, origin_ips, state, desired_status, paused_by, provider_status,
    provider_checked_at, callback_token_hash, created_at, updated_at, enforcement_paused_period, admin_override_until,
    provisioned_at, provisioning_error_code, provisioning_error, provisioning_failed_at)
  SELECT domain, account, subdomains, origin_ips, state, desired_status, paused_by, provider_status,
    provider_checked_at, callback_token_hash, created_at, updated_at, enforcement_paused_period, admin_override_until,
    provisioned_at, provisioning_error_code, provisioning_error, provisioning_failed_at
  FROM websites;
DROP TABLE websites;
ALTER TABLE websites_new RENAME TO websites;
CREATE INDEX websites_account ON websites (account, domain);
CREATE INDEX websites_paused_by ON websites (paused_by, domain) WHERE paused_by IS NOT NULL;
CREATE INDEX websites_provider_status ON websites (provider_status, provider_checked_at);
CREATE INDEX websites_removed ON websites (domain) WHERE state = 'removed';
CREATE INDEX websites_status_domain ON websites (provider_status, state, domain);
CREATE INDEX websites_updated ON websites (updated_at);
CREATE TRIGGER websites_counted_deleted AFTER DELETE ON websites
BEGIN
  UPDATE website_counts SET n = n - 1 WHERE state = OLD.state AND provider_status = COALESCE(OLD.provider_status, '')
    AND desired_status = OLD.desired_status AND paused_by = COALESCE(OLD.paused_by, '');
END;
CREATE TRIGGER websites_counted_inserted AFTER INSERT ON websites
BEGIN
  INSERT INTO website_counts (state, provider_status, desired_status, paused_by, n)
  VALUES (NEW.state, COALESCE(NEW.provider_status, ''), NEW.desired_status, COALESCE(NEW.paused_by, ''), 1)
  ON CONFLICT DO UPDATE SET n = n + 1;
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
CREATE TRIGGER websites_quota_account_changed AFTER UPDATE OF account ON websites
WHEN OLD.account IS NOT NEW.account
BEGIN
  UPDATE website_quota SET account = NEW.account WHERE domain = NEW.domain;
END;
CREATE TRIGGER websites_quota_inserted AFTER INSERT ON websites
BEGIN
  INSERT OR IGNORE INTO website_quota (domain, account, updated_at) VALUES (NEW.domain, NEW.account, NEW.updated_at);
END;
CREATE TRIGGER websites_quota_removed AFTER UPDATE OF state ON websites
WHEN NEW.state = 'removed' AND OLD.state IS NOT 'removed'
BEGIN
  UPDATE website_quota SET level = 'none', period_start = NULL, period_end = NULL, website_limit = NULL, account_usage = 0,
    account_limit = NULL, warning_percent = NULL, updated_at = NEW.updated_at
  WHERE domain = NEW.domain;
END;
CREATE TRIGGER websites_schedule_account_changed AFTER UPDATE OF account ON websites
WHEN OLD.account IS NOT NEW.account
BEGIN
  UPDATE read_schedule SET account = NEW.account WHERE domain = NEW.domain;
END;
CREATE TRIGGER websites_schedule_inserted AFTER INSERT ON websites
BEGIN
  INSERT OR IGNORE INTO read_schedule (domain, account, next_read_at)
  VALUES (NEW.domain, NEW.account, CASE WHEN NEW.state = 'active' THEN 0 ELSE 9007199254740991 END);
END;
CREATE TRIGGER websites_schedule_state_changed AFTER UPDATE OF state ON websites
WHEN OLD.state IS NOT NEW.state
BEGIN
  UPDATE read_schedule SET next_read_at = CASE WHEN NEW.state = 'active' THEN 0 ELSE 9007199254740991 END,
    hit_rate = CASE WHEN NEW.state = 'active' THEN hit_rate END
  WHERE domain = NEW.domain;
END;
CREATE TRIGGER websites_status_inserted AFTER INSERT ON websites
BEGIN
  INSERT INTO website_status_changes (at, domain, account, desired_status_after, paused_by_after, provider_status_after)
  VALUES (NEW.updated_at, NEW.domain, NEW.account, NEW.desired_status, NEW.paused_by, NEW.provider_status);
END;
CREATE TRIGGER websites_status_updated AFTER UPDATE OF desired_status, paused_by, provider_status ON websites
WHEN OLD.desired_status IS NOT NEW.desired_status OR OLD.paused_by IS NOT NEW.paused_by OR OLD.provider_status IS NOT NEW.provider_status
BEGIN
  INSERT INTO website_status_changes (at, domain, account, desired_status_before, desired_status_after, paused_by_before,
    paused_by_after, provider_status_before, provider_status_after)
  VALUES (NEW.updated_at, NEW.domain, NEW.account, OLD.desired_status, NEW.desired_status, OLD.paused_by, NEW.paused_by,
    OLD.provider_status, NEW.provider_status);
END;
