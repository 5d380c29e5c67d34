/**
 * The fleet database's connection (issue 23, section 3: WPP_FLEET_DATABASE_URL, PostgreSQL):
 * a small pg pool, checked and migrated when opened. It is optional and never on a hook's path:
 * each server keeps its own SQLite as the truth of its own work, and whatever the fleet
 * database adds is sent or read in the background. An error names the variable and shows the
 * URL with its password redacted.
 */
import pg from 'pg';
import { AppError, describeError } from '../errors.js';
import { paths } from '../paths.js';
import { loadMigrations } from '../db/migrate.js';
import { migrateFleetDatabase } from './migrate.js';
import { describeFleetUrl, withoutFleetPassword } from './url.js';

export interface FleetDatabase {
  pool: pg.Pool;
  /** The migrations this open applied (empty: another server, or an earlier start, had). */
  applied: number[];
  close(): Promise<void>;
}

export interface FleetDatabaseOptions {
  /** Where the fleet's migrations are: migrations/fleet unless a test says otherwise. */
  migrationsDir?: string;
  /** Told of a pooled connection's failure while idle (the server restarted), already redacted; the pool replaces it. */
  onIdleError?: (message: string) => void;
}

/** A few connections are plenty: the fleet database sees a server's background work, never its requests. */
const POOL_SIZE = 4;
/** A fleet database that does not answer is down: the server carries on alone rather than wait. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The error a caller shows: what failed, named by the variable, the URL without its password. */
function unavailable(databaseUrl: string, error: unknown): AppError {
  const reason = withoutFleetPassword(describeError(error), databaseUrl);
  return new AppError(
    'UNAVAILABLE',
    `The fleet database (WPP_FLEET_DATABASE_URL, ${describeFleetUrl(databaseUrl)}) cannot be reached or migrated: ${reason}`,
  );
}

/** Opens the pool, checks it can log in, and applies the fleet's migrations; throws UNAVAILABLE if it cannot. */
export async function openFleetDatabase(databaseUrl: string, options: FleetDatabaseOptions = {}): Promise<FleetDatabase> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'wpp',
  });
  // An idle connection the server drops is an 'error' event: unheard, it would end the process.
  pool.on('error', (error) => options.onIdleError?.(withoutFleetPassword(describeError(error), databaseUrl)));
  try {
    const applied = await migrateFleetDatabase(pool, loadMigrations(options.migrationsDir ?? paths.fleetMigrations));
    return { pool, applied, close: () => pool.end() };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw unavailable(databaseUrl, error);
  }
}
