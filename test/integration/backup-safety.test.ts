/**
 * `wpp backup` and `wpp restore` run as root, into folders other users may reach. The copy is
 * written exclusively in a private folder of its own and renamed into place, so nothing another
 * user put at a predictable name (a file, a link) is written through or handed the backup; a
 * target folder other users may write to is refused.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupDatabase, restoreDatabase } from '../../src/db/backup.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { paths } from '../../src/paths.js';
import { runWpp } from '../helpers/cli.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const NOBODY = 65534;
let dir: string;
let dataDir: string;
let database: string;

beforeEach(() => {
  dir = createTempDir('wpp-backup-safety-');
  chmodSync(dir, 0o755);
  dataDir = join(dir, 'data');
  database = join(dataDir, 'plugin.sqlite');
  openPluginDatabase({ databaseFile: database }, { notice: () => undefined }).close();
});
afterEach(() => removeTempDir(dir));

const backup = (target: string, force = false) => backupDatabase(database, target, { force, migrationsDir: paths.migrations });
const isSqlite = (file: string) => readFileSync(file).subarray(0, 15).toString() === 'SQLite format 3';

describe('wpp backup', () => {
  it("writes nothing through a file or link another user put at the old predictable temporary name, and the backup is root's", async () => {
    const out = join(dir, 'out');
    mkdirSync(out, { mode: 0o755 });
    const target = join(out, 'wpp.sqlite');
    // The name the backup used to write to first: another user's file there got the backup, owner and all.
    const planted = join(out, `.wpp.sqlite.${process.pid}.tmp`);
    writeFileSync(planted, 'theirs', { mode: 0o666 });
    chownSync(planted, NOBODY, NOBODY);
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched');
    const linked = join(out, `.wpp.sqlite.${process.pid}.tmp.link`);
    symlinkSync(victim, linked);

    await backup(target);
    expect(isSqlite(target)).toBe(true);
    expect(statSync(target).uid).toBe(process.getuid?.());
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readFileSync(planted, 'utf8')).toBe('theirs');
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    // Its private working folder is gone.
    expect(readdirSync(out).sort()).toEqual([`.wpp.sqlite.${process.pid}.tmp`, `.wpp.sqlite.${process.pid}.tmp.link`, 'wpp.sqlite']);
  });

  it('refuses a target folder other users may write to (1777, 0777, 0775) or that is another user’s, writing nothing', async () => {
    for (const [name, mode, owner] of [
      ['sticky', 0o1777, 0],
      ['open', 0o777, 0],
      ['group', 0o775, 0],
      ['theirs', 0o755, NOBODY],
    ] as const) {
      const out = join(dir, name);
      mkdirSync(out);
      chmodSync(out, mode);
      chownSync(out, owner, owner);
      await expect(backup(join(out, 'wpp.sqlite')), name).rejects.toThrow(
        owner === 0 ? /is writable by other users \(mode \d+\): .*choose a folder only you can write to/ : /belongs to another user/,
      );
      expect(readdirSync(out), name).toEqual([]);
    }
  });

  it('through the CLI: a world-writable folder is one clear refusal', async () => {
    const out = join(dir, 'tmp');
    mkdirSync(out);
    chmodSync(out, 0o1777);
    const run = await runWpp(['backup', join(out, 'wpp.sqlite')], { env: { WPP_DATA_DIR: dataDir, WPP_LOG_LEVEL: 'silent' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^wpp: .*tmp is writable by other users \(mode 1777\).*; nothing was changed$/m);
    expect(readdirSync(out)).toEqual([]);
  });

  it('replaces a link at the target with the backup (--force) instead of writing through it', async () => {
    const out = join(dir, 'out');
    mkdirSync(out, { mode: 0o700 });
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, join(out, 'wpp.sqlite'));
    await expect(backup(join(out, 'wpp.sqlite'))).rejects.toThrow(/exists already; give --force/);
    await backup(join(out, 'wpp.sqlite'), true);
    expect(lstatSync(join(out, 'wpp.sqlite')).isFile()).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
  });
});

describe('wpp restore', () => {
  it('writes its copy exclusively in a private folder: a link at the old predictable name is not written through', async () => {
    const source = join(dir, 'backup.sqlite');
    await backup(source);
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, join(dataDir, `.plugin.sqlite.${process.pid}.restore.tmp`));
    const outcome = await restoreDatabase(database, source, {
      migrationsDir: paths.migrations,
      keyFile: join(dataDir, 'api-keys.key'),
      now: new Date('2025-01-01T00:00:00Z'),
      host: 'test-host',
    });
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(isSqlite(database)).toBe(true);
    expect(statSync(database).mode & 0o777).toBe(0o600);
    expect(existsSync(outcome.keptAs as string)).toBe(true);
    new Database(database, { readonly: true }).close();
    expect(readdirSync(dataDir).filter((name) => name.includes('restore') && !name.includes('before-restore'))).toEqual([
      `.plugin.sqlite.${process.pid}.restore.tmp`,
    ]);
  });
});
