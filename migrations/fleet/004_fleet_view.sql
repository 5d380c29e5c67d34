-- The fleet view (issue 23, docs/fleet.md "The fleet view"): what each server publishes from its
-- outbox, read by the "All servers" admin pages of any server. Each server writes only its own
-- rows, by upserts keyed by its id, so a batch sent twice (a crash between the commit here and
-- the server forgetting it) changes nothing.

-- Each server's websites, the latest state it published of each.
CREATE TABLE fleet_websites (
  server_id text NOT NULL,
  domain text NOT NULL,
  account text NOT NULL,
  state text NOT NULL,
  desired_status text NOT NULL,
  paused_by text,
  provider_status text,
  provisioned_at bigint,
  provisioning_error_code text,
  provisioning_error text,
  usage bigint NOT NULL DEFAULT 0,
  website_limit bigint,
  level text NOT NULL DEFAULT 'none',
  period_end timestamptz,
  forecast_at timestamptz,
  -- When the server published this state (its clock).
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (server_id, domain)
);
-- The cross-server search: a domain or an account by its first letters (text_pattern_ops: LIKE 'x%' uses it in any collation).
CREATE INDEX fleet_websites_domain ON fleet_websites (domain text_pattern_ops, server_id);
CREATE INDEX fleet_websites_account ON fleet_websites (account text_pattern_ops, domain);

-- The fleet's enforcement log: every pause, resume and warning of every server, each once.
CREATE TABLE fleet_enforcement_log (
  id bigserial PRIMARY KEY,
  server_id text NOT NULL,
  action_key text NOT NULL,
  at timestamptz NOT NULL,
  account text NOT NULL,
  domain text,
  action text NOT NULL,
  actor text NOT NULL,
  reason text NOT NULL,
  usage bigint,
  limit_value bigint,
  UNIQUE (server_id, action_key)
);
-- Newest first, page by page.
CREATE INDEX fleet_enforcement_log_at ON fleet_enforcement_log (at DESC, id DESC);

-- Each server's health as of its last round: its sync, enforcement, provider contact and doctor.
CREATE TABLE fleet_server_health (
  server_id text PRIMARY KEY,
  reported_at timestamptz NOT NULL,
  websites integer NOT NULL,
  outbox integer NOT NULL,
  last_sync_at timestamptz,
  last_sync_status text,
  last_sync_read integer,
  last_sync_failed integer,
  last_enforce_at timestamptz,
  last_enforce_status text,
  provider_reached_at timestamptz,
  doctor_at timestamptz,
  doctor_status text,
  doctor_checks jsonb
);
