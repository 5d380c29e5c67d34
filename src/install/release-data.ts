/**
 * The database across release upgrades and rollbacks. An upgrade from a release copies the
 * database (root's copy in /var/backups/wpp) before its migrations run, then runs them at
 * install time, so a failing migration shows in the install, not in the first hook. A
 * rollback to a version that does not know the database's schema puts that copy back only
 * when asked to, keeping the current database beside it: nothing is lost either way.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { API_KEY_FILE } from '../config.js';
import { backupDatabase } from '../db/backup.js';
import { newestMigration, schemaLevel } from '../db/migrate.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import { readEnvFile } from './env-file.js';
import { LAYOUT } from './layout.js';
import type { ToolRunner } from './tools.js';

export interface InstalledData {
  /** Paths on this machine (below --root in tests). */
  databaseFile: string;
  keyFile: string;
  /** The same on the target system, for messages. */
  shownDatabaseFile: string;
}

/** Where the installation keeps its database and key file: WPP_DATA_DIR and WPP_KEY_FILE of /etc/wpp/env, else the defaults. */
export async function installedData(tools: ToolRunner): Promise<InstalledData> {
  const settings = await readEnvFile(tools);
  const dataDir = settings.WPP_DATA_DIR ?? LAYOUT.dataDir;
  const keyFile = settings.WPP_KEY_FILE ?? join(dataDir, API_KEY_FILE);
  const shownDatabaseFile = join(dataDir, 'plugin.sqlite');
  return { databaseFile: tools.at(shownDatabaseFile), keyFile: tools.at(keyFile), shownDatabaseFile };
}

const BACKUP_PREFIX = 'plugin.sqlite.before-';
const backupName = (version: string, now: Date) => `${BACKUP_PREFIX}${version}-${now.toISOString().replace(/[:.]/g, '-')}`;

/** The copy taken before `version`'s migrations ran, the newest if several; undefined when none. */
export async function backupBefore(tools: ToolRunner, version: string): Promise<string | undefined> {
  const names = await readdir(tools.at(LAYOUT.upgradeBackupDir)).catch(() => [] as string[]);
  // The copies only (a -wal or -shm beside one, left by whoever opened it, is not one).
  const prefix = `${BACKUP_PREFIX}${version}-`;
  const ours = names
    .filter((name) => name.startsWith(prefix) && /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.test(name.slice(prefix.length)))
    .sort();
  const newest = ours.at(-1);
  return newest && `${LAYOUT.upgradeBackupDir}/${newest}`;
}

export interface UpgradeStep {
  /** Runs the pending migrations once the new version is in place; a no-op when there are none. */
  migrate(): void;
}

/**
 * Before an install from a release touches anything: refuses a database newer than this
 * release knows, and copies one it will migrate. Returns the migration to run afterwards.
 */
export async function prepareDatabaseForRelease(
  tools: ToolRunner,
  release: { version: string; migrationsDir: string },
  options: { dryRun: boolean; print: (line: string) => void; now: () => Date },
): Promise<UpgradeStep> {
  const data = await installedData(tools);
  const level = schemaLevel(data.databaseFile);
  const newest = newestMigration(release.migrationsDir);
  if (level === undefined || level === newest) return { migrate: () => undefined };
  if (level > newest)
    throw new Error(
      `the database ${data.shownDatabaseFile} is at migration ${level}, and wpp ${release.version} knows migrations up to ${newest}: a newer wpp wrote it. ` +
        'Install the newer release again, or go back with wpp rollback (it knows what to do with the database). Nothing was written.',
    );
  const target = `${LAYOUT.upgradeBackupDir}/${backupName(release.version, options.now())}`;
  if (options.dryRun) {
    options.print(`would copy  ${data.shownDatabaseFile} to ${target} (migration ${level}), then migrate it to ${newest}`);
    return { migrate: () => undefined };
  }
  await mkdir(tools.at(LAYOUT.upgradeBackupDir), { recursive: true, mode: 0o700 });
  const summary = await backupDatabase(data.databaseFile, tools.at(target), { force: false, migrationsDir: release.migrationsDir });
  options.print(
    `copied  ${data.shownDatabaseFile} to ${target} (migration ${summary.migration}, before wpp ${release.version}'s migrations)`,
  );
  return {
    migrate() {
      openPluginDatabase({ databaseFile: data.databaseFile }, { notice: (line) => options.print(line) }).close();
      options.print(`migrated  ${data.shownDatabaseFile} from migration ${level} to ${newest}`);
    },
  };
}
