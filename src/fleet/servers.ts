/**
 * This panel server's row in the fleet database (fleet_servers, fleet migration 001): written
 * when it registers, its name and last_seen_at brought up to date at each later start.
 */
import type pg from 'pg';

export interface FleetServer {
  /** The id the server keeps for itself: names repeat across a fleet and change. */
  serverId: string;
  name: string;
}

/** Registers the server, or marks it seen at `now` (and renamed, if its name changed); registered_at stays the first. */
export async function recordFleetServer(pool: pg.Pool, server: FleetServer, now: Date): Promise<void> {
  await pool.query(
    `INSERT INTO fleet_servers (server_id, name, registered_at, last_seen_at) VALUES ($1, $2, $3, $3)
     ON CONFLICT (server_id) DO UPDATE SET name = EXCLUDED.name, last_seen_at = GREATEST(fleet_servers.last_seen_at, EXCLUDED.last_seen_at)`,
    [server.serverId, server.name, now],
  );
}
