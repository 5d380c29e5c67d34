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
-- The triggers are not made here: `wpp serve` creates them (db/fleet-outbox.repo.ts) when
-- WPP_FLEET_DATABASE_URL is set, queueing every website the first time (kv 'fleet.publishing'),
-- and drops them with the outbox when it is not. Any trigger on website_quota, even one that
-- never fires, made each of its updates about 35 µs dearer (measured, docs/fleet.md): a server
-- without a fleet pays nothing. Made at each start, they also outlive a later migration that
-- rebuilds websites (which drops a table's triggers).
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
