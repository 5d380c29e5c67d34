/**
 * `wpp backup` and `wpp restore`. A backup is SQLite's online backup from its own connection:
 * consistent while `wpp serve` keeps writing (WAL), checked before it is announced. A restore
 * changes nothing until the file has proved to be a sound wpp database this code can run, and
 * keeps the database it replaces.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchownSync,
  lchownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describeHolder, SERVE_LOCK } from '../locks.js';
import { keyFileProblem } from './api-keys.js';
import { inheritedOwner } from './files.js';
import { loadMigrations, recordedMigration } from './migrate.js';
import type { Db } from './open.js';
import { processIsAlive, readLockHolder } from './statistics.repo.js';

export class BackupError extends Error {
  override readonly name = 'BackupError';
}

export interface DatabaseSummary {
  bytes: number;
  migration: number;
  accounts: number;
  websites: number;
}

function summarise(db: Db, file: string): DatabaseSummary {
  const count = (table: string) => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
  return {
    bytes: statSync(file).size,
    migration: recordedMigration(db) ?? 0,
    accounts: count('accounts'),
    websites: count('websites'),
  };
}

/**
 * Checks `file` is a sound wpp plugin database this code can run: SQLite, integrity_check ok,
 * our migrations by version and name, none newer than ours. Returns its summary.
 */
export function inspectBackup(file: string, migrationsDir: string): DatabaseSummary {
  if (!existsSync(file)) throw new BackupError(`${file} does not exist`);
  let db: Db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('schema_version');
  } catch {
    throw new BackupError(`${file} is not an SQLite database`);
  }
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`${file} is damaged (integrity_check: ${String(integrity)})`);
    if (recordedMigration(db) === null) throw new BackupError(`${file} is not a wpp plugin database (it has no schema_migrations table)`);
    const ours = new Map(loadMigrations(migrationsDir).map((m) => [m.version, m.name]));
    const applied = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number; name: string }[];
    const newest = Math.max(0, ...ours.keys());
    for (const row of applied) {
      if (row.version > newest) {
        throw new BackupError(
          `${file} comes from a newer wpp (migration ${row.version}; this one knows up to ${newest}): upgrade wpp first`,
        );
      }
      if (ours.get(row.version) !== row.name) {
        throw new BackupError(
          `${file} is not a wpp plugin database (its migration ${row.version} is "${row.name}", not "${ours.get(row.version)}")`,
        );
      }
    }
    if (applied.length === 0) throw new BackupError(`${file} is not a wpp plugin database (no migration applied)`);
    return summarise(db, file);
  } finally {
    db.close();
  }
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/**
 * The folder a backup goes into must be this user's (or root's) alone: in a folder others may
 * write to (a 1777 /tmp, a shared 0775 folder, another user's) they could put a file or a link
 * where the copy is written, or swap the finished copy, and root's backup would be theirs.
 */
function checkTargetFolder(dir: string): void {
  const info = statSync(dir);
  const me = process.getuid?.() ?? 0;
  if (info.uid !== me && info.uid !== 0) {
    throw new BackupError(
      `the folder ${dir} belongs to another user (uid ${info.uid}), who could replace the backup: choose a folder only you can write to (for example /root or /var/backups)`,
    );
  }
  if ((info.mode & 0o022) !== 0) {
    throw new BackupError(
      `the folder ${dir} is writable by other users (mode ${octal(info.mode)}): another user could put a file or a link where the backup goes; choose a folder only you can write to (for example /root or /var/backups)`,
    );
  }
}

/**
 * A private folder (mkdtemp: 0700, a name nobody can guess) beside `target`, for a copy made
 * before it is renamed over `target` (same file system, so the rename is atomic); removed after.
 */
function privateWorkFolder(target: string): string {
  return mkdtempSync(join(dirname(target), `.${basename(target)}.`));
}

/**
 * Creates `file` empty, 0600, failing if anything (a file, a link) is there already; owned
 * like the folder `ownerOf` when root makes it in the service's data folder (files.ts).
 */
function createExclusively(file: string, ownerOf?: string): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const owner = ownerOf === undefined ? undefined : inheritedOwner(ownerOf);
    if (owner) fchownSync(fd, owner.uid, owner.gid);
  } finally {
    closeSync(fd);
  }
}

/** `wpp backup FILE`: an online copy, written in a private folder, checked, then renamed into place (0600). */
export async function backupDatabase(
  databaseFile: string,
  target: string,
  options: { force: boolean; migrationsDir: string },
): Promise<DatabaseSummary> {
  if (!existsSync(databaseFile)) throw new BackupError(`there is no database to back up at ${databaseFile}`);
  // lstat: a link at the target counts as being there (it is replaced, never written through).
  if (lstatSync(target, { throwIfNoEntry: false }) && !options.force)
    throw new BackupError(`${target} exists already; give --force to replace it`);
  if (!existsSync(dirname(target))) throw new BackupError(`the folder ${dirname(target)} does not exist`);
  checkTargetFolder(dirname(target));
  const work = privateWorkFolder(target);
  const temp = join(work, basename(target));
  const source = new Database(databaseFile, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    createExclusively(temp);
    await source.backup(temp);
    chmodSync(temp, 0o600);
    const summary = inspectBackup(temp, options.migrationsDir);
    renameSync(temp, target);
    return summary;
  } finally {
    source.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The `wpp serve` holding this database, described, or null when none does (a crashed one on this host does not count). */
export function servingHolder(databaseFile: string, now: number, host: string): string | null {
  if (!existsSync(databaseFile)) return null;
  const db = new Database(databaseFile, { readonly: true, fileMustExist: true });
  try {
    const hasLocks = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'locks'").get();
    const holder = hasLocks ? readLockHolder(db, SERVE_LOCK) : null;
    if (!holder || holder.expiresAt < now) return null;
    if (holder.host === host && holder.pid !== null && !processIsAlive(holder.pid)) return null;
    return describeHolder(holder);
  } finally {
    db.close();
  }
}

export interface RestoreOutcome {
  restored: DatabaseSummary;
  /** Where the database it replaced was kept, when there was one. */
  keptAs: string | null;
}

/**
 * `wpp restore FILE`: refuses while `wpp serve` runs on the data folder and for a file that is
 * not a sound wpp database, or whose API keys the key file cannot open; keeps the current
 * database as plugin.sqlite.before-restore-<time>; puts the copy in place atomically (0600).
 * The caller then opens it through the normal path, which migrates an older backup forward.
 */
export async function restoreDatabase(
  databaseFile: string,
  source: string,
  options: { migrationsDir: string; keyFile: string; now: Date; host: string },
): Promise<RestoreOutcome> {
  const serving = servingHolder(databaseFile, options.now.getTime(), options.host);
  if (serving) throw new BackupError(`a wpp serve runs on this data folder (${serving}): stop it first (systemctl stop wpp), then restore`);
  const restored = inspectBackup(source, options.migrationsDir);
  const check = new Database(source, { readonly: true, fileMustExist: true });
  try {
    const problem = keyFileProblem(check, options.keyFile);
    if (problem) throw new BackupError(`${source}: ${problem}`);
  } finally {
    check.close();
  }

  let keptAs: string | null = null;
  if (existsSync(databaseFile)) {
    // Through the backup API, so what is still in the -wal file comes along.
    keptAs = `${databaseFile}.before-restore-${options.now.toISOString().replace(/[:.]/g, '-')}`;
    const current = new Database(databaseFile, { fileMustExist: true });
    try {
      createExclusively(keptAs, dirname(databaseFile));
      await current.backup(keptAs);
    } finally {
      current.close();
    }
    chmodSync(keptAs, 0o600);
  }
  // The copy is made in a private folder of the data folder, exclusively, then renamed over the database.
  const work = privateWorkFolder(databaseFile);
  try {
    const temp = join(work, basename(databaseFile));
    copyFileSync(source, temp, constants.COPYFILE_EXCL);
    chmodSync(temp, 0o600);
    const owner = inheritedOwner(dirname(databaseFile));
    if (owner) lchownSync(temp, owner.uid, owner.gid);
    // Its locks name the processes of the moment it was taken (the wpp serve that ran then): none of them holds anything now.
    const copy = new Database(temp);
    try {
      if (copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'locks'").get()) copy.exec('DELETE FROM locks');
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    for (const stale of ['-wal', '-shm']) rmSync(`${databaseFile}${stale}`, { force: true });
    renameSync(temp, databaseFile);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { restored, keptAs };
}
