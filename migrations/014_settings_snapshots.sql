-- The last settings read from the provider for each website (core/settings-snapshot.ts), so
-- the customer's domain page shows them at once and re-reads them behind, instead of waiting
-- on the provider: `view` is the settings as the form shows them (JSON), `read_at` when they
-- were read; `failed_at` and `failure` the last read that failed after it (NULL: none since).
CREATE TABLE settings_snapshots (
  domain TEXT PRIMARY KEY,
  view TEXT NOT NULL,
  read_at INTEGER NOT NULL,
  failed_at INTEGER,
  failure TEXT
) WITHOUT ROWID;
