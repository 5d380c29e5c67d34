/**
 * Installed, `wpp serve` runs as the wpp user and owns the data folder, while hooks, panel
 * pages and the administrator's commands run as root on the same folder. Whatever root
 * creates there (the database and its -wal and -shm, the secrets, the key file, a restored
 * database) takes the folder's owner, so the service can still use it. Run as root, with
 * nobody (65534) as the folder's owner.
 */
import { chmodSync, chownSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePanelSecret } from '../../src/config.js';
import { openApiKeys } from '../../src/db/api-keys.js';
import { backupDatabase, restoreDatabase } from '../../src/db/backup.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { paths } from '../../src/paths.js';
import { runWpp } from '../helpers/cli.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const SERVICE = 65534;
let base: string;
let dataDir: string;

beforeEach(() => {
  base = createTempDir('wpp-data-owner-');
  chmodSync(base, 0o755);
  dataDir = join(base, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  chownSync(dataDir, SERVICE, SERVICE);
});
afterEach(() => removeTempDir(base));

/** Every file and folder below the data folder with an owner other than the service's. */
function notTheService(dir = dataDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const info = statSync(path);
    const own = info.uid === SERVICE && info.gid === SERVICE ? [] : [`${path.slice(dataDir.length)} ${info.uid}:${info.gid}`];
    return entry.isDirectory() ? [...own, ...notTheService(path)] : own;
  });
}

const env = () => ({ WPP_DATA_DIR: dataDir, WPP_LOG_LEVEL: 'silent' });

describe("files root creates in the service's data folder", () => {
  it('take its owner: the database, -wal, -shm, the secret and the key file; the service can then write the database', async () => {
    const db = openPluginDatabase({ databaseFile: join(dataDir, 'plugin.sqlite') }, { notice: () => undefined });
    try {
      openApiKeys(db, join(dataDir, 'api-keys.key'), () => undefined);
      ensurePanelSecret({ dataDir, panelSecret: undefined });
      db.exec("INSERT INTO kv (key, value, updated_at) VALUES ('owner-test', '1', 0)");
      // While it is open its -wal and -shm are there.
      expect(readdirSync(dataDir).sort()).toEqual(
        ['api-keys.key', 'panel-secret', 'plugin.sqlite', 'plugin.sqlite-shm', 'plugin.sqlite-wal', 'plugin.sqlite.created'].sort(),
      );
      expect(notTheService()).toEqual([]);
    } finally {
      db.close();
    }
    // The service's own process queues an event into the database root created.
    const hook = await runWpp(['hook', 'emit', 'account.created', '--account', 'bob'], { uid: SERVICE, gid: SERVICE, env: env() });
    expect(hook.stderr).toBe('');
    expect(hook.stdout).toMatch(/account\.created queued \(job \d+\)/);
    expect(notTheService()).toEqual([]);
  });

  it('take its owner after a restore as root (the database and the one it replaced)', async () => {
    const database = join(dataDir, 'plugin.sqlite');
    openPluginDatabase({ databaseFile: database }, { notice: () => undefined }).close();
    const backup = join(base, 'backup.sqlite');
    await backupDatabase(database, backup, { force: false, migrationsDir: paths.migrations });
    await restoreDatabase(database, backup, {
      migrationsDir: paths.migrations,
      keyFile: join(dataDir, 'api-keys.key'),
      now: new Date('2025-01-01T00:00:00Z'),
      host: 'test-host',
    });
    expect(readdirSync(dataDir).some((name) => name.includes('before-restore'))).toBe(true);
    expect(notTheService()).toEqual([]);
    const hook = await runWpp(['hook', 'emit', 'account.created', '--account', 'carol'], { uid: SERVICE, gid: SERVICE, env: env() });
    expect(hook.stdout).toMatch(/queued/);
  });
});
