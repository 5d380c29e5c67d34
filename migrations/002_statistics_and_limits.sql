-- Statistics, limits and enforcement. Times are epoch milliseconds.

-- Hit limits and thresholds, resolved website -> account -> plan -> global; NULL inherits.
-- The period (kind and anchor day) is an account-wide notion: set at global, plan or account scope.
CREATE TABLE limits (
  scope TEXT NOT NULL CHECK (scope IN ('global', 'plan', 'account', 'website')),
  subject TEXT NOT NULL,
  period TEXT CHECK (period IN ('monthly', 'daily')),
  anchor_day INTEGER CHECK (anchor_day BETWEEN 1 AND 28),
  website_hits INTEGER CHECK (website_hits >= 0),
  account_hits INTEGER CHECK (account_hits >= 0),
  domain_limit INTEGER CHECK (domain_limit >= 0),
  warning_percent INTEGER CHECK (warning_percent BETWEEN 1 AND 100),
  exempt INTEGER CHECK (exempt IN (0, 1)),
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (scope, subject)
) WITHOUT ROWID;

-- Cumulative counters as read from the provider, one row per website and read. Keyed by
-- time first: a sync appends at the end of the tree, and pruning old samples is a range delete.
CREATE TABLE stats_samples (
  taken_at INTEGER NOT NULL,
  domain TEXT NOT NULL,
  total INTEGER NOT NULL,
  permitted INTEGER NOT NULL,
  blocked INTEGER NOT NULL,
  mitigated INTEGER NOT NULL,
  PRIMARY KEY (taken_at, domain)
) WITHOUT ROWID;

-- The newest sample per website, kept apart so a sync reads one row per website.
CREATE TABLE stats_latest (
  domain TEXT PRIMARY KEY,
  taken_at INTEGER NOT NULL,
  total INTEGER NOT NULL,
  permitted INTEGER NOT NULL,
  blocked INTEGER NOT NULL,
  mitigated INTEGER NOT NULL,
  -- The last failed read, so it is retried (and shown) until one succeeds.
  failed_at INTEGER,
  last_error TEXT
) WITHOUT ROWID;

-- Hits per website and hour, derived from consecutive samples: the time series for charts.
CREATE TABLE hits_hourly (
  domain TEXT NOT NULL,
  account TEXT NOT NULL,
  hour INTEGER NOT NULL,
  total INTEGER NOT NULL DEFAULT 0,
  permitted INTEGER NOT NULL DEFAULT 0,
  blocked INTEGER NOT NULL DEFAULT 0,
  mitigated INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (domain, hour)
) WITHOUT ROWID;
CREATE INDEX hits_hourly_account ON hits_hourly (account, hour);

-- Hits per website in a limit period (period_start names it); an account's usage is the sum.
CREATE TABLE usage (
  domain TEXT NOT NULL,
  period_start INTEGER NOT NULL,
  account TEXT NOT NULL,
  hits INTEGER NOT NULL DEFAULT 0,
  permitted INTEGER NOT NULL DEFAULT 0,
  blocked INTEGER NOT NULL DEFAULT 0,
  mitigated INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (domain, period_start)
) WITHOUT ROWID;
CREATE INDEX usage_account ON usage (account, period_start);

-- Every pause, resume and warning, with who, why, and the state before and after.
CREATE TABLE enforcement_actions (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  account TEXT NOT NULL,
  domain TEXT,
  action TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'warning', 'admin_resume')),
  actor TEXT NOT NULL,
  reason TEXT NOT NULL,
  usage INTEGER,
  limit_value INTEGER,
  period_start INTEGER NOT NULL,
  period_end INTEGER NOT NULL,
  status_before TEXT,
  status_after TEXT,
  -- Makes an action idempotent: the same pause, resume or warning is recorded once.
  action_key TEXT NOT NULL UNIQUE
);
CREATE INDEX enforcement_actions_account ON enforcement_actions (account, at);
CREATE INDEX enforcement_actions_domain ON enforcement_actions (domain, at);

-- One row per run of a scheduled or on-demand job (sync-stats, enforce, reconcile).
CREATE TABLE job_runs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'skipped', 'stopped')),
  websites_read INTEGER,
  websites_failed INTEGER,
  details TEXT
);
CREATE INDEX job_runs_name ON job_runs (name, started_at);

-- Locks held across processes (e.g. only one sync at a time), released or expired.
CREATE TABLE locks (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;

-- An admin resumed this website until the given time: enforcement leaves it alone until then.
ALTER TABLE websites ADD COLUMN enforcement_paused_period INTEGER;
ALTER TABLE websites ADD COLUMN admin_override_until INTEGER;
