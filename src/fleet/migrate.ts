/**
 * The fleet database's migrations: plain SQL files in migrations/fleet (`NNN_name.sql`, read as
 * the plugin's own SQLite migrations are), each applied once, in its own transaction, and
 * recorded in fleet_schema_migrations. Many panel servers open one fleet database, often at the
 * same moment (a fleet upgraded at once): a transaction-scoped advisory lock lets one of them
 * apply a migration while the others wait and then find it recorded.
 */
import type pg from 'pg';
import type { Migration } from '../db/migrate.js';
import { withFleetClient } from './client.js';

/** The advisory lock every server takes to migrate (any fixed number; this one spells "wppfleet"). */
const MIGRATION_LOCK = 0x7770_7066_6c65_6574n;

const RECORD_TABLE = `CREATE TABLE IF NOT EXISTS fleet_schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** Runs `work` in a transaction holding the migration lock; rolls back if it throws. */
async function underMigrationLock<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export class FleetMigrationError extends Error {
  override readonly name = 'FleetMigrationError';
  readonly code = 'FLEET_MIGRATION_FAILED';
}

/** Applies the migrations the database does not record yet; returns their versions (empty: it was up to date). */
export async function migrateFleetDatabase(pool: pg.Pool, migrations: readonly Migration[]): Promise<number[]> {
  return withFleetClient(pool, async (client) => {
    await underMigrationLock(client, () => client.query(RECORD_TABLE));
    const applied: number[] = [];
    for (const migration of migrations) {
      const ran = await underMigrationLock(client, async () => {
        const recorded = await client.query('SELECT 1 FROM fleet_schema_migrations WHERE version = $1', [migration.version]);
        if (recorded.rowCount !== 0) return false;
        await client.query(migration.sql).catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          throw new FleetMigrationError(`Fleet migration ${migration.version} (${migration.name}) failed: ${reason}`, { cause: error });
        });
        await client.query('INSERT INTO fleet_schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        return true;
      });
      if (ran) applied.push(migration.version);
    }
    return applied;
  });
}
