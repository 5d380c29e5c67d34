-- Protection per hosting package (issue 22): whether an account's package includes web
-- protection is set in the panel (cPanel's Feature Manager feature wpp_web_protection, a Plesk
-- service-plan permission, a DirectAdmin package item, a Virtualmin plan option) and reaches the
-- plugin with the panel's events and listings. NULL: the panel said nothing (installs before
-- this, panels whose package does not name it), read as included so nothing changes for them.
ALTER TABLE accounts ADD COLUMN protection_included INTEGER CHECK (protection_included IN (0, 1));
-- When the account's package lost protection: its websites are paused then, and removed at the
-- provider once the admin's grace period has passed since; NULL while the package includes it.
ALTER TABLE accounts ADD COLUMN protection_removed_at INTEGER;

-- The packages the panel named, with whether each includes protection and when that was last
-- seen, for the Settings page (beside the plan limits and settings the plugin keeps per plan).
CREATE TABLE packages (
  name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 100),
  protection INTEGER NOT NULL CHECK (protection IN (0, 1)),
  seen_at INTEGER NOT NULL
) WITHOUT ROWID;

-- paused_by 'package': paused because the account's package no longer includes protection (the
-- grace period before the website is removed at the provider). SQLite cannot change a CHECK
-- constraint in place: the table is rebuilt as in 004, and its indexes and triggers (009, 012)
-- are made again exactly as they were.
CREATE TABLE websites_new (
  domain TEXT PRIMARY KEY,
  account TEXT NOT NULL REFERENCES accounts (account),
  subdomains TEXT NOT NULL DEFAULT '[]',
  origin_ips TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'removed')),
  desired_status TEXT NOT NULL CHECK (desired_status IN ('online', 'paused', 'setup')),
  paused_by TEXT CHECK (paused_by IN ('customer', 'admin', 'enforcement', 'suspension', 'domain_removed', 'account_deleted', 'external', 'package')),
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
