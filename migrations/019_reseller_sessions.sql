-- The reseller's pages (issue 22): a session may be a reseller's, who sees and runs the admin
-- pages for their own customers only. SQLite cannot change a CHECK constraint in place: the
-- table is rebuilt as 007 and 017 left it, with the wider role, sessions kept.
CREATE TABLE sessions_new (
  id_hash TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('customer', 'admin', 'reseller')),
  -- The panel account (customer), the admin's name (admin) or the reseller's name (reseller).
  subject TEXT NOT NULL,
  panel TEXT NOT NULL,
  csrf_token TEXT,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  locale TEXT CHECK (locale IS NULL OR length(locale) <= 35)
) WITHOUT ROWID;
INSERT INTO sessions_new (id_hash, role, subject, panel, csrf_token, created_at, last_seen_at, expires_at, locale)
  SELECT id_hash, role, subject, panel, csrf_token, created_at, last_seen_at, expires_at, locale FROM sessions;
DROP TABLE sessions;
ALTER TABLE sessions_new RENAME TO sessions;
CREATE INDEX sessions_expiry ON sessions (expires_at);
