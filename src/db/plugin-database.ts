import { API_KEY_FILE, PANEL_SECRET_FILE, type Config } from '../config.js';
import { CALLBACK_KEY_FILE, NOTIFY_SECRET_FILE, SIGN_IN_KEY_FILE } from '../secrets.js';
import { paths } from '../paths.js';
import type { Notice } from './files.js';
import { openMigratedDatabase, type Db } from './open.js';

/**
 * How long `wpp serve` waits for another process's write lock in one go. better-sqlite3
 * waits synchronously, stopping the event loop, so the server waits briefly and tries again
 * later without blocking (retryWhileBusy): a request for about a second, then 503.
 * Short writes of other processes (a hook's one row) fit in the wait itself.
 */
export const SERVER_BUSY_TIMEOUT_MS = 50;

/**
 * Opens the plugin's database, migrated to the newest schema, after the data folder's start
 * check (db/open.ts). Used by every entry point.
 */
export function openPluginDatabase(config: Pick<Config, 'databaseFile'>, options: { notice?: Notice; busyTimeoutMs?: number } = {}): Db {
  return openMigratedDatabase(config.databaseFile, paths.migrations, {
    ...options,
    ownNames: [PANEL_SECRET_FILE, SIGN_IN_KEY_FILE, CALLBACK_KEY_FILE, NOTIFY_SECRET_FILE, API_KEY_FILE, 'sandbox'],
  });
}
