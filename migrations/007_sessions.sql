-- Signing in to the plugin's pages (issue 9). A panel hands its user a launch token
-- (src/core/launch-tokens.ts); /launch exchanges it, once, for a session.

-- Every launch token's nonce, kept until the token would have expired anyway: a nonce seen
-- before is a replayed token. Pruned by expiry, so the table stays small.
CREATE TABLE launch_nonces (
  nonce TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX launch_nonces_expiry ON launch_nonces (expires_at);

-- Server-side sessions. The cookie holds a random id; only its sha256 is stored, so a copy
-- of the database does not sign anybody in.
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('customer', 'admin')),
  -- The panel account (customer) or the admin's name (admin).
  subject TEXT NOT NULL,
  panel TEXT NOT NULL,
  -- The synchroniser token every state-changing form must carry (CSRF).
  csrf_token TEXT,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  -- The absolute end, whatever the activity; the idle end is last_seen_at + the idle timeout.
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_expiry ON sessions (expires_at);
