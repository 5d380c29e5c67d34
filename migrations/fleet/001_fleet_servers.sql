-- The fleet database (PostgreSQL, issue 23): each panel server that shares it, by the id it
-- keeps for itself (names repeat and change: web1 on two providers' racks, a host renamed).
-- Written by the server itself when it opens the fleet database; what the "All servers" page
-- and the fleet budget count as the fleet.
CREATE TABLE fleet_servers (
  server_id text PRIMARY KEY CHECK (length(server_id) BETWEEN 1 AND 255),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  registered_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  CHECK (last_seen_at >= registered_at)
);
