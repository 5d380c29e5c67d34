-- The plugin's database. Times are epoch milliseconds.

-- Small facts the plugin keeps about itself (e.g. that this panel server is registered).
CREATE TABLE kv (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Hosting plans: the provider defaults each plan's websites get.
CREATE TABLE plans (
  name TEXT PRIMARY KEY,
  -- A settings patch (rules, rulesets, loadbalancer) over the provider's own defaults.
  settings TEXT NOT NULL DEFAULT '{}',
  subdomains TEXT NOT NULL DEFAULT '["www"]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- One row per panel account (panel user name, lower-cased).
CREATE TABLE accounts (
  account TEXT PRIMARY KEY,
  email TEXT,
  plan TEXT,
  provider_user_id TEXT NOT NULL UNIQUE,
  -- The provider user's API key: only for that customer's own dashboard frames. Never logged.
  provider_api_key TEXT,
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'suspended', 'deleted')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE websites (
  domain TEXT PRIMARY KEY,
  account TEXT NOT NULL REFERENCES accounts (account),
  subdomains TEXT NOT NULL DEFAULT '[]',
  origin_ips TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'removed')),
  -- What the plugin asks the provider for: online, paused or setup.
  desired_status TEXT NOT NULL CHECK (desired_status IN ('online', 'paused', 'setup')),
  -- Why the website is paused, so each pauser undoes only its own pauses.
  paused_by TEXT CHECK (paused_by IN ('customer', 'admin', 'enforcement', 'suspension', 'domain_removed', 'account_deleted')),
  -- The last status read from the provider (never taken from a callback's word alone).
  provider_status TEXT,
  provider_checked_at INTEGER,
  -- sha256 of the secret token in this website's callbackUrl.
  callback_token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX websites_account ON websites (account);
CREATE INDEX websites_provider_status ON websites (provider_status, provider_checked_at);

-- The durable job queue: every panel event and every provider call the plugin must make.
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  -- Ingesting the same key twice yields the same job (replays are answered, not repeated).
  dedupe_key TEXT UNIQUE,
  -- Jobs of one account run in order; jobs for different domains of it may run side by side.
  account TEXT,
  domain TEXT,
  payload TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  run_at INTEGER NOT NULL,
  lease_until INTEGER,
  locked_by TEXT,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX jobs_due ON jobs (state, run_at);
CREATE INDEX jobs_open_by_account ON jobs (account, id) WHERE state IN ('pending', 'running');
