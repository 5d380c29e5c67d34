/**
 * Fleet settings' rows in the fleet database (fleet migration 003, fleet_settings_changes):
 * appended by the server an admin makes a change on, read by every server after the last
 * version it applied. Storage only: what a row means and how it is applied is core's
 * (core/fleet-settings.ts). A query made while the database is down rejects; its caller says so.
 */
import type pg from 'pg';
import { z } from 'zod';
import type { FleetSettingsChange, NewFleetSettingsChange } from '../core/fleet-settings.js';
import { withFleetClient } from './client.js';

/**
 * The lock every writer holds while it inserts (any fixed number; this one spells "wppsetts").
 * A bigserial is taken at insert but seen at commit, so two writers at once could commit 11
 * before 10, and a reader that saw 11 would never read 10: under the lock they commit in order.
 */
const APPEND_LOCK = 0x7770_7073_6574_7473n;

/** Appends one change; resolves with its version once committed. */
export async function appendFleetSettingsChange(pool: pg.Pool, change: NewFleetSettingsChange): Promise<number> {
  return withFleetClient(pool, async (client) => {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK.toString()]);
      const inserted = await client.query<{ version: string }>(
        `INSERT INTO fleet_settings_changes (what, change, actor, server_id, server_name) VALUES ($1, $2, $3, $4, $5) RETURNING version`,
        [change.what, JSON.stringify(change.change), change.actor, change.serverId, change.serverName],
      );
      await client.query('COMMIT');
      return Number(inserted.rows[0]?.version);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

// Read at the edge: a row is the database's, which any server (of any version) wrote.
const rowSchema = z.object({
  // bigint arrives as text from pg: a version stays far below 2^53.
  version: z.coerce.number().int().positive(),
  what: z.string(),
  change: z.unknown(),
  actor: z.string(),
  server_id: z.string(),
  server_name: z.string(),
  made_at: z.date(),
});

/** The changes after `version`, oldest first, at most `limit`. */
export async function fleetSettingsChangesAfter(pool: pg.Pool, version: number, limit: number): Promise<FleetSettingsChange[]> {
  const result = await pool.query(
    `SELECT version, what, change, actor, server_id, server_name, made_at FROM fleet_settings_changes
     WHERE version > $1 ORDER BY version LIMIT $2`,
    [version, limit],
  );
  return result.rows.map((raw: unknown) => {
    const row = rowSchema.parse(raw);
    return {
      version: row.version,
      what: row.what,
      change: row.change,
      actor: row.actor,
      serverId: row.server_id,
      serverName: row.server_name,
      madeAt: row.made_at.getTime(),
    };
  });
}
