-- 'repause' (issue 18): the provider showed a website online that the host holds paused
-- (suspension, an admin's pause, the hit limit), undone with the customer's own provider key
-- outside the plugin; the plugin paused it again. `actor` names who undid it, `reason` which
-- pause was undone (suspension_undone, admin_undone, enforcement_undone, ...). SQLite cannot
-- change a CHECK constraint in place: the table is rebuilt, its rows and indexes kept.
CREATE TABLE enforcement_actions_new (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  account TEXT NOT NULL,
  domain TEXT,
  action TEXT NOT NULL CHECK (action IN ('pause', 'resume', 'warning', 'admin_resume', 'repause')),
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
INSERT INTO enforcement_actions_new (id, at, account, domain, action, actor, reason, usage, limit_value, period_start, period_end,
    status_before, status_after, action_key)
  SELECT id, at, account, domain, action, actor, reason, usage, limit_value, period_start, period_end,
    status_before, status_after, action_key
  FROM enforcement_actions;
DROP TABLE enforcement_actions;
ALTER TABLE enforcement_actions_new RENAME TO enforcement_actions;
CREATE INDEX enforcement_actions_account ON enforcement_actions (account, at);
CREATE INDEX enforcement_actions_domain ON enforcement_actions (domain, at);
CREATE INDEX enforcement_actions_at ON enforcement_actions (at, action);
