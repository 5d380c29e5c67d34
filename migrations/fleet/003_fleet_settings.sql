-- Fleet settings (issue 23, section 3): every change of a limits row or a plan made for all
-- servers (`wpp limits ... --fleet`, `wpp plans set ... --fleet`, the Settings page's "All
-- servers"), appended here and never changed. Each server reads the rows after the last
-- version it applied (kept in its own SQLite) and applies them in version order through the
-- same code as a change made on it, so every server ends with the same values, the newest
-- change of a value winning (last writer by version).
--
-- `what` names the thing as the servers' settings_changes do: limits:<scope>:<subject>,
-- plan:<name>. `change` is what was given, as JSON: for a limits row the values set (null:
-- cleared, inherited again), for a plan the parts set (settings, subdomains, monitorDays).
-- Values not given keep each server's own. `actor` is who made it (admin:<name>, cli:<os
-- user>), `server_id` and `server_name` where.
--
-- Writers take an advisory lock before inserting (src/fleet/settings.ts), so versions commit
-- in their order and a reader that has seen version n never later finds a row below n.
CREATE TABLE fleet_settings_changes (
  version bigserial PRIMARY KEY,
  what text NOT NULL CHECK (what ~ '^(limits:(global|plan|account|website|reseller):|plan:.)' AND length(what) <= 300),
  change jsonb NOT NULL CHECK (jsonb_typeof(change) = 'object'),
  actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 200),
  server_id text NOT NULL CHECK (length(server_id) BETWEEN 1 AND 255),
  server_name text NOT NULL CHECK (length(server_name) BETWEEN 1 AND 255),
  made_at timestamptz NOT NULL DEFAULT now()
);
