import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from './open.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export class DatabaseTooNewError extends Error {
  override readonly name = 'DatabaseTooNewError';
  readonly code = 'DB_TOO_NEW';
  constructor(
    readonly databaseVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `The database is at migration ${databaseVersion} but this code only knows up to ${codeVersion}. ` +
        'It was written by a newer version: upgrade the plugin instead of running an older one against it.',
    );
  }
}

export class MigrationFileError extends Error {
  override readonly name = 'MigrationFileError';
  readonly code = 'DB_MIGRATION_FILES';
}

const FILE_NAME = /^(\d+)_([a-z0-9_-]+)\.sql$/i;

/** Reads `NNN_name.sql` files from a folder, in version order; refuses duplicate numbers. */
export function loadMigrations(dir: string): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const match = FILE_NAME.exec(file);
    if (!match) continue;
    migrations.push({ version: Number(match[1]), name: match[2] ?? file, sql: readFileSync(join(dir, file), 'utf8') });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version) {
      throw new MigrationFileError(`Two migrations in ${dir} share the number ${migrations[i]?.version}`);
    }
  }
  return migrations;
}

/** Newest version of the folder's migrations: what this code brings a database up to (0 when there are none). */
export const newestMigration = (dir: string): number => loadMigrations(dir).at(-1)?.version ?? 0;

/**
 * The queries that say how migrations are recorded (the schema_migrations table), here only.
 * Exported for database-probe.ts, whose worker thread runs them as plain text.
 */
export const MIGRATION_QUERIES = {
  hasTable: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
  newest: 'SELECT MAX(version) AS v FROM schema_migrations',
} as const;

/** The newest migration `db` records: null when it has no schema_migrations table (migrations never ran on it), 0 when it records none. */
export function recordedMigration(db: Db): number | null {
  if (!db.prepare(MIGRATION_QUERIES.hasTable).get()) return null;
  return (db.prepare(MIGRATION_QUERIES.newest).get() as { v: number | null }).v ?? 0;
}

/**
 * The newest migration the database `file` records, read through a read-only connection that
 * changes nothing: undefined when there is no file, 0 when migrations never ran on it.
 */
export function schemaLevel(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return recordedMigration(db) ?? 0;
  } finally {
    db.close();
  }
}

export interface MigrateResult {
  applied: Migration[];
  version: number;
}

/**
 * Brings a database up to the newest migration in `dir`. Forward only: each pending
 * migration runs in its own transaction together with the row that records it, so a
 * failing migration leaves the database at the previous version. A database that has
 * migrations this code does not know is refused rather than guessed at.
 */
export function migrate(db: Db, dir: string): MigrateResult {
  const migrations = loadMigrations(dir);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const current = recordedMigration(db) ?? 0;
  const newestKnown = migrations.at(-1)?.version ?? 0;
  if (current > newestKnown) throw new DatabaseTooNewError(current, newestKnown);

  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const recorded = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  const applied: Migration[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    // IMMEDIATE takes the write lock before looking: another process migrating the same file
    // at the same moment (a panel hook during an upgrade while `wpp serve` starts) either
    // applied this migration already, which counts as done, or waits for this one.
    const ran = db
      .transaction(() => {
        if (recorded.get(migration.version)) return false;
        // Recorded first so a migration that tries to run twice fails on the primary key.
        record.run(migration.version, migration.name, new Date().toISOString());
        db.exec(migration.sql);
        return true;
      })
      .immediate();
    if (ran) applied.push(migration);
  }
  return { applied, version: Math.max(current, newestKnown) };
}
