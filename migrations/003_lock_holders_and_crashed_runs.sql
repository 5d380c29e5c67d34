-- Who holds a lock, so a holder whose process is gone (same host, pid not alive) is taken
-- over at once instead of after the lock expires, and a refused caller can say who holds it.
-- `holder` stays the holder's random token; these columns describe it. NULL for rows written
-- before this migration: those wait for expiry as before.
ALTER TABLE locks ADD COLUMN host TEXT;
ALTER TABLE locks ADD COLUMN pid INTEGER;
ALTER TABLE locks ADD COLUMN since INTEGER;

-- A run left `running` by a process that died (found when the next run takes the job's lock)
-- is marked `crashed`. SQLite cannot alter a CHECK constraint: the table is rebuilt with the
-- same columns, rows and index (no other table references job_runs).
CREATE TABLE job_runs_new (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'skipped', 'stopped', 'crashed')),
  websites_read INTEGER,
  websites_failed INTEGER,
  details TEXT
);
INSERT INTO job_runs_new (id, name, started_at, finished_at, status, websites_read, websites_failed, details)
  SELECT id, name, started_at, finished_at, status, websites_read, websites_failed, details FROM job_runs;
DROP TABLE job_runs;
ALTER TABLE job_runs_new RENAME TO job_runs;
CREATE INDEX job_runs_name ON job_runs (name, started_at);
