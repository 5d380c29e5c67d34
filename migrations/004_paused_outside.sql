-- A website can be paused outside the plugin: by its customer or the host's staff in the
-- provider's own dashboard, with the status callback lost or the plugin down at the time.
-- paused_by 'external' records that, so enforcement never claims such a pause as its own
-- nor undoes it. SQLite cannot change a CHECK constraint in place: the table is rebuilt.
CREATE TABLE websites_new (
  domain TEXT PRIMARY KEY,
  account TEXT NOT NULL REFERENCES accounts (account),
  subdomains TEXT NOT NULL DEFAULT '[]',
  origin_ips TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'removed')),
  desired_status TEXT NOT NULL CHECK (desired_status IN ('online', 'paused', 'setup')),
  paused_by TEXT CHECK (paused_by IN ('customer', 'admin', 'enforcement', 'suspension', 'domain_removed', 'account_deleted', 'external')),
  provider_status TEXT,
  provider_checked_at INTEGER,
  callback_token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  enforcement_paused_period INTEGER,
  admin_override_until INTEGER
);
INSERT INTO websites_new (domain, account, subdomains, origin_ips, state, desired_status, paused_by, provider_status,
    provider_checked_at, callback_token_hash, created_at, updated_at, enforcement_paused_period, admin_override_until)
  SELECT domain, account, subdomains, origin_ips, state, desired_status, paused_by, provider_status,
    provider_checked_at, callback_token_hash, created_at, updated_at, enforcement_paused_period, admin_override_until
  FROM websites;
DROP TABLE websites;
ALTER TABLE websites_new RENAME TO websites;
CREATE INDEX websites_account ON websites (account);
CREATE INDEX websites_provider_status ON websites (provider_status, provider_checked_at);
