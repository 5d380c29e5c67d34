-- The fleet view's outbox (issue 23, docs/fleet.md "The fleet view"): what this server still has
-- to tell the fleet database, written by triggers in the transaction of the change itself, so
-- every process that changes a website (a hook, the worker, enforcement, a sync, a one-shot
-- command) records it without knowing the fleet exists, and nothing is lost when the change
-- commits while the fleet database is down. `wpp serve` sends it (core/fleet-view.ts).
--
-- A website's state and usage need only reach the fleet as their latest: one row per domain,
-- coalesced (a later change bumps `version`; the publisher deletes a row only if its version is
-- still the one it sent). However long the fleet database is down, the outbox holds at most one
-- row per website. Enforcement actions are events: they are already kept, every one, in
-- enforcement_actions; the outbox of events is the id up to which that log was sent (kv
-- 'fleet.actions_sent_id'), so nothing is copied and nothing can be dropped.
--
-- The triggers write only while kv 'fleet.publishing' exists: `wpp serve` sets it when
-- WPP_FLEET_DATABASE_URL is set (queueing every website once) and removes it, with the
-- outbox, when it is not: a server without a fleet pays one index lookup per change.
CREATE TABLE fleet_outbox (
  domain TEXT PRIMARY KEY,
  version INTEGER NOT NULL DEFAULT 1,
  -- When the oldest change not yet sent was made: the publisher sends the oldest first.
  changed_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX fleet_outbox_changed ON fleet_outbox (changed_at);

-- The last `wpp doctor` run: one row, its worst status and every check (name, status, detail;
-- details never hold a secret). Published with the server's health.
CREATE TABLE doctor_results (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'warn', 'fail')),
  checks TEXT NOT NULL
);

CREATE TRIGGER fleet_outbox_website_inserted AFTER INSERT ON websites
WHEN EXISTS (SELECT 1 FROM kv WHERE key = 'fleet.publishing')
BEGIN
  INSERT INTO fleet_outbox (domain, changed_at) VALUES (NEW.domain, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
  ON CONFLICT (domain) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER fleet_outbox_website_updated AFTER UPDATE OF account, state, desired_status, paused_by, provider_status, provisioned_at,
  provisioning_error_code ON websites
WHEN (OLD.account IS NOT NEW.account OR OLD.state IS NOT NEW.state OR OLD.desired_status IS NOT NEW.desired_status
    OR OLD.paused_by IS NOT NEW.paused_by OR OLD.provider_status IS NOT NEW.provider_status
    OR OLD.provisioned_at IS NOT NEW.provisioned_at OR OLD.provisioning_error_code IS NOT NEW.provisioning_error_code)
  AND EXISTS (SELECT 1 FROM kv WHERE key = 'fleet.publishing')
BEGIN
  INSERT INTO fleet_outbox (domain, changed_at) VALUES (NEW.domain, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
  ON CONFLICT (domain) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER fleet_outbox_website_deleted AFTER DELETE ON websites
WHEN EXISTS (SELECT 1 FROM kv WHERE key = 'fleet.publishing')
BEGIN
  INSERT INTO fleet_outbox (domain, changed_at) VALUES (OLD.domain, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
  ON CONFLICT (domain) DO UPDATE SET version = version + 1;
END;

-- Usage, the limit and the level, as each enforcement pass computes them.
CREATE TRIGGER fleet_outbox_quota_updated AFTER UPDATE ON website_quota
WHEN (OLD.usage IS NOT NEW.usage OR OLD.website_limit IS NOT NEW.website_limit OR OLD.level IS NOT NEW.level
    OR OLD.period_end IS NOT NEW.period_end)
  AND EXISTS (SELECT 1 FROM kv WHERE key = 'fleet.publishing')
BEGIN
  INSERT INTO fleet_outbox (domain, changed_at) VALUES (NEW.domain, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
  ON CONFLICT (domain) DO UPDATE SET version = version + 1;
END;

-- The forecast the adaptive sync writes with each read.
CREATE TRIGGER fleet_outbox_forecast_updated AFTER UPDATE OF limit_reached_at ON read_schedule
WHEN OLD.limit_reached_at IS NOT NEW.limit_reached_at AND EXISTS (SELECT 1 FROM kv WHERE key = 'fleet.publishing')
BEGIN
  INSERT INTO fleet_outbox (domain, changed_at) VALUES (NEW.domain, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
  ON CONFLICT (domain) DO UPDATE SET version = version + 1;
END;
