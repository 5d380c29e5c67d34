import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateFile, makePrivateDir, printNotice, securePrivateDir, tightenPrivate, type Notice } from './files.js';
import { migrate, recordedMigration } from './migrate.js';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** How long a writer waits for another connection's lock before failing, in ms. Default 5000. */
  busyTimeoutMs?: number;
}

/** A database file that cannot be used as it is: `DB_EMPTY` (it existed and is now missing or empty) or `DB_CORRUPT`. */
export class DatabaseFileError extends Error {
  override readonly name = 'DatabaseFileError';
  constructor(
    readonly code: 'DB_EMPTY' | 'DB_CORRUPT',
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** SQLite's "this is not a database" and "this database is damaged", as an error naming the file. */
function namingFile(file: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !(code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))) return error;
  return new DatabaseFileError(
    'DB_CORRUPT',
    file,
    `The database ${file} is damaged or not a SQLite database (${(error as Error).message}): restore it from a backup; ` +
      `to start over with an empty database instead, move it and ${basename(file)}.created out of ${dirname(file)}`,
    { cause: error },
  );
}

/**
 * Opens (creating if needed) a SQLite database file set up the way every part of this
 * project expects: WAL so readers never block the writer, foreign keys enforced, a busy
 * timeout so two processes (serve and a CLI command) can share the file, and
 * synchronous=NORMAL, which is durable across application crashes under WAL. A new file
 * (and its folder) is created owner-only; its `-wal` and `-shm` take its mode.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  if (file !== ':memory:') {
    makePrivateDir(dirname(file));
    createPrivateFile(file);
  }
  let db: Db | undefined;
  try {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
    db.pragma('synchronous = NORMAL');
    return db;
  } catch (error) {
    db?.close();
    throw namingFile(file, error);
  }
}

export interface OpenMigratedOptions extends OpenDatabaseOptions {
  /** Where tightened permissions are reported. Default: a line on standard error. */
  notice?: Notice;
  /**
   * Other files or folders beside the database that are ours: checked owner-only too; names
   * starting with one count as ours when deciding whether the folder may be tightened.
   */
  ownNames?: string[];
}

/**
 * Opens a database at the start of a process: the start check of its folder and files
 * (owner-only, see files.ts), then the database, migrated to the newest schema.
 *
 * Once a database has been migrated, `<file>.created` records it. A database that existed and
 * is now missing, empty or without tables (truncated by a full disk, a bad restore, a copy made
 * without its `-wal`) is refused rather than silently taken as a new one, and left as it is.
 * The marker is written only after the schema is in place (which also writes the file's
 * header), so a process racing another one's first creation never mistakes it for a loss.
 */
export function openMigratedDatabase(file: string, migrationsDir: string, options: OpenMigratedOptions = {}): Db {
  const { notice = printNotice, ownNames = [], ...openOptions } = options;
  const dir = dirname(file);
  const marker = `${file}.created`;
  securePrivateDir(dir, (name) => [basename(file), ...ownNames].some((own) => name.startsWith(own)), notice);
  for (const path of [file, `${file}-wal`, `${file}-shm`, marker, ...ownNames.map((name) => join(dir, name))]) tightenPrivate(path, notice);

  // statSync, not existsSync: a folder this process may not read must fail here (EACCES), not pass as "no marker".
  const createdAt = statSync(marker, { throwIfNoEntry: false }) ? readFileSync(marker, 'utf8').trim() || 'an unknown date' : undefined;
  const size = statSync(file, { throwIfNoEntry: false })?.size;
  if (createdAt !== undefined && !size)
    throw lostDatabase(file, marker, createdAt, size === undefined ? 'is missing' : 'is empty (0 bytes)');

  // Migrations wait the default busy timeout whatever the caller's: another process may be
  // migrating the same file (a long table rebuild), and failing the start for it would be wrong.
  const { busyTimeoutMs, ...rest } = openOptions;
  const db = openDatabase(file, rest);
  try {
    if (createdAt !== undefined && recordedMigration(db) === null) {
      throw lostDatabase(file, marker, createdAt, 'has no tables');
    }
    migrate(db, migrationsDir);
    if (createdAt === undefined) createPrivateFile(marker, `${new Date().toISOString()}\n`);
    if (busyTimeoutMs !== undefined) db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    return db;
  } catch (error) {
    db.close();
    throw namingFile(file, error);
  }
}

function lostDatabase(file: string, marker: string, createdAt: string, state: string): DatabaseFileError {
  return new DatabaseFileError(
    'DB_EMPTY',
    file,
    `The database ${file} ${state}, but it was created on ${createdAt} (${basename(marker)}): it was probably truncated or lost ` +
      `(a full disk, an interrupted restore or copy), and its queued jobs with it. It was left as it is. ` +
      `Restore it from a backup; to really start over with an empty database, delete ${marker}`,
  );
}
