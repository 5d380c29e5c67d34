-- The fleet budget (issue 23, docs/fleet.md "The fleet budget"): the partner key's rate handed
-- out across the panel servers by need. One row per budget with the key's rate as the fleet
-- learned it (lowered by any server's 429, raised while the fleet asks for more), and one claim
-- per server: what it needs now, and the share it was last handed and until when. Every round
-- locks the budget's row, so two servers never hand out the same share. Times are epoch
-- milliseconds by the database's clock (servers' clocks may differ).
CREATE TABLE fleet_budget (
  name text PRIMARY KEY,
  key_rate double precision NOT NULL CHECK (key_rate > 0),
  changed_at double precision NOT NULL DEFAULT 0,
  decreased_at double precision NOT NULL DEFAULT 0
);

CREATE TABLE fleet_budget_claims (
  budget text NOT NULL REFERENCES fleet_budget (name),
  server_id text NOT NULL CHECK (length(server_id) BETWEEN 1 AND 255),
  urgent double precision NOT NULL CHECK (urgent >= 0),
  backlog double precision NOT NULL CHECK (backlog >= 0),
  risk double precision NOT NULL CHECK (risk >= 0 AND risk <= 1),
  ceiling double precision NOT NULL CHECK (ceiling >= 0),
  claimed_at double precision NOT NULL,
  share double precision NOT NULL DEFAULT 0 CHECK (share >= 0),
  lease_until double precision NOT NULL DEFAULT 0,
  PRIMARY KEY (budget, server_id)
);
