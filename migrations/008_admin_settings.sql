-- Settings an admin changes at runtime from the admin Settings page (issue 9), over the
-- environment's: a row here wins over its WPP_* variable (config.ts) until it is removed; no
-- row, the environment's value. Every process of the data folder reads it on each use (a
-- panel event, a notification), so a change applies without a restart. `value` is JSON so
-- one table holds booleans, URLs and an explicit null (notifications off though WPP_NOTIFY_URL is set).
CREATE TABLE setting_overrides (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL CHECK (json_valid(value)),
  updated_at INTEGER NOT NULL,
  updated_by TEXT NOT NULL
) WITHOUT ROWID;

-- Every change of a setting, a limits row or a plan, with who made it (`admin:<name>` from the
-- admin pages, `cli:<os user>` from wpp limits and wpp plans set), written in the transaction
-- of the change itself: a change is never stored without its row, nor a row without its change.
-- `what` names the thing changed: auto_protect, notify_url, limits:<scope>:<subject>, plan:<name>.
-- `before` and `after` are JSON of the whole thing (null: it did not exist), so a row reads on its
-- own even after the thing was changed again or removed. Append only.
CREATE TABLE settings_changes (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  what TEXT NOT NULL,
  before TEXT NOT NULL CHECK (json_valid(before)),
  after TEXT NOT NULL CHECK (json_valid(after))
);
-- The Settings page lists the newest changes first.
CREATE INDEX settings_changes_at ON settings_changes (at);
