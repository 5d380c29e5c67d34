import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateFile, makePrivateDir, printNotice, securePrivateDir, tightenPrivate, type Notice } from './files.js';
import { migrate } from './migrate.js';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** How long a writer waits for another connection's lock before failing, in ms. Default 5000. */
  busyTimeoutMs?: number;
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
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  db.pragma('synchronous = NORMAL');
  return db;
}

export interface OpenMigratedOptions extends OpenDatabaseOptions {
  /** Where tightened permissions are reported. Default: a line on standard error. */
  notice?: Notice;
  /** Other names in the database's folder that belong to us: checked owner-only too, and no reason to leave the folder open. */
  ownNames?: string[];
}

/**
 * Opens a database at the start of a process: the start check of its folder and files
 * (owner-only, see files.ts), then the database, migrated to the newest schema.
 */
export function openMigratedDatabase(file: string, migrationsDir: string, options: OpenMigratedOptions = {}): Db {
  const { notice = printNotice, ownNames = [], ...openOptions } = options;
  const dir = dirname(file);
  securePrivateDir(dir, (name) => name.startsWith(basename(file)) || ownNames.includes(name), notice);
  for (const path of [file, `${file}-wal`, `${file}-shm`, ...ownNames.map((name) => join(dir, name))]) tightenPrivate(path, notice);
  const db = openDatabase(file, openOptions);
  try {
    migrate(db, migrationsDir);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
