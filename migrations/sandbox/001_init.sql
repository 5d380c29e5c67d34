-- The provider sandbox's own database. Times are epoch milliseconds unless the column ends in _iso.

CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- The partner is a user too (is_partner = 1): its key manages every other user.
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  api_key TEXT NOT NULL UNIQUE,
  is_partner INTEGER NOT NULL DEFAULT 0,
  domain_limit INTEGER,
  tag TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE devices (
  id TEXT PRIMARY KEY,
  ip TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT,
  zone TEXT,
  tag TEXT,
  created_at INTEGER NOT NULL
);

CREATE TABLE servers (
  id TEXT PRIMARY KEY,
  ip TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT,
  zone TEXT,
  tag TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX servers_user ON servers (user_id);
CREATE INDEX devices_user ON devices (user_id);

CREATE TABLE websites (
  domain TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  subdomain TEXT NOT NULL DEFAULT '[]',
  ip TEXT NOT NULL DEFAULT '[]',
  ipv6 TEXT NOT NULL DEFAULT '[]',
  tag TEXT NOT NULL DEFAULT '[]',
  requested_status TEXT NOT NULL,
  status TEXT NOT NULL,
  callback_url TEXT,
  settings TEXT NOT NULL,
  certificate_public TEXT,
  certificate_private TEXT,
  -- When the owner's DNS change will be seen (NULL: only through the control API).
  dns_verify_at INTEGER,
  dns_verified_at INTEGER,
  -- While an ACME certificate is being issued: when it will be ready.
  cert_ready_at INTEGER,
  total INTEGER NOT NULL DEFAULT 0,
  blocked INTEGER NOT NULL DEFAULT 0,
  captcha INTEGER NOT NULL DEFAULT 0,
  counters_reset_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX websites_user ON websites (user_id);
CREATE INDEX websites_dns_due ON websites (dns_verify_at) WHERE dns_verified_at IS NULL AND dns_verify_at IS NOT NULL;
CREATE INDEX websites_cert_due ON websites (cert_ready_at) WHERE cert_ready_at IS NOT NULL;

-- Hourly traffic per website and category ('' when none was given), for from/to statistics.
CREATE TABLE traffic_hourly (
  domain TEXT NOT NULL REFERENCES websites(domain) ON DELETE CASCADE,
  hour INTEGER NOT NULL,
  category TEXT NOT NULL DEFAULT '',
  total INTEGER NOT NULL DEFAULT 0,
  blocked INTEGER NOT NULL DEFAULT 0,
  captcha INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (domain, hour, category)
) WITHOUT ROWID;

-- Status callbacks waiting to be delivered, delivered, or given up on.
CREATE TABLE callbacks (
  id TEXT PRIMARY KEY,
  domain TEXT NOT NULL,
  user_id TEXT NOT NULL,
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  next_attempt_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status INTEGER,
  last_error TEXT,
  delivered_at INTEGER,
  gave_up_at INTEGER
);
CREATE INDEX callbacks_due ON callbacks (next_attempt_at) WHERE delivered_at IS NULL AND gave_up_at IS NULL;

CREATE TABLE nxdomains (
  domain TEXT PRIMARY KEY
);
