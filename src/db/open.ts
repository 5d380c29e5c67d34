import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** How long a writer waits for another connection's lock before failing, in ms. Default 5000. */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) a SQLite database file set up the way every part of this
 * project expects: WAL so readers never block the writer, foreign keys enforced, a busy
 * timeout so two processes (serve and a CLI command) can share the file, and
 * synchronous=NORMAL, which is durable across application crashes under WAL.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  db.pragma('synchronous = NORMAL');
  return db;
}
