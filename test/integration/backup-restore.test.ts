/**
 * `wpp backup` and `wpp restore` as real processes against a real serving plugin: a backup
 * taken while the plugin keeps writing is complete and sound; a restore is refused while
 * serving and for any file that is not a sound wpp database, changing nothing; a good backup
 * restored into a stopped data folder is what the plugin serves next.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { startTestPlugin, testEnv } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const events = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ type: 'account.created' as const, account: `user${from + i}` }));

const jobCount = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM jobs').pluck().get() as number;
  } finally {
    db.close();
  }
};

describe('wpp backup and wpp restore', () => {
  it('backs up while serving, refuses to restore while serving or from a bad file, and restores into a stopped folder', async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const out = createTempDir();
    let plugin = await startTestPlugin(sandbox, { worker: false });
    const env = testEnv(plugin.dataDir, sandbox);
    const database = join(plugin.dataDir, 'plugin.sqlite');
    try {
      expect((await plugin.postEvents(events(0, 50))).status).toBe(202);
      const backup = join(out, 'wpp.sqlite');

      // Hooks keep arriving while the backup runs.
      let writing = true;
      const writer = (async () => {
        for (let i = 1; writing && i < 200; i++) await plugin.postEvents(events(i * 1000, 5));
      })();
      const run = await runWpp(['backup', backup], { env });
      writing = false;
      await writer;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /^backed up \S+plugin\.sqlite to \S+wpp\.sqlite \([\d.]+ [KMG]iB, migration \d+, 0 account\(s\), 0 website\(s\); checked, mode 0600\)$/m,
      );
      expect(run.stdout).toContain(`Keep the key file ${join(plugin.dataDir, 'api-keys.key')} with it`);
      expect(statSync(backup).mode & 0o777).toBe(0o600);
      const copy = new Database(backup, { readonly: true });
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      // Every event stored before the backup began is in it.
      expect(copy.prepare('SELECT COUNT(*) FROM jobs').pluck().get()).toBeGreaterThanOrEqual(50);
      copy.close();

      const again = await runWpp(['backup', backup], { env });
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/wpp\.sqlite exists already; give --force to replace it; nothing was changed/);

      // Restore refused while serving: the database is untouched.
      const before = readFileSync(database);
      const refused = await runWpp(['restore', backup], { env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/a wpp serve runs on this data folder \(.*pid \d+.*\): stop it first \(systemctl stop wpp\)/);
      expect(readFileSync(database).equals(before)).toBe(true);
      await plugin.close();

      // Bad files change nothing either.
      const notSqlite = join(out, 'notes.txt');
      writeFileSync(notSqlite, 'not a database');
      const foreign = join(out, 'foreign.sqlite');
      new Database(foreign).exec('CREATE TABLE t (x)');
      const newer = join(out, 'newer.sqlite');
      writeFileSync(newer, readFileSync(backup));
      new Database(newer).prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)").run();
      const stopped = readFileSync(database);
      for (const [file, message] of [
        [notSqlite, /is not an SQLite database/],
        [foreign, /is not a wpp plugin database \(it has no schema_migrations table\)/],
        [newer, /comes from a newer wpp \(migration 999/],
        [join(out, 'missing.sqlite'), /does not exist/],
      ] as const) {
        const bad = await runWpp(['restore', file], { env });
        expect(bad.code, file).toBe(1);
        expect(bad.stderr).toMatch(message);
        expect(bad.stderr).toContain('nothing was changed');
        expect(readFileSync(database).equals(stopped)).toBe(true);
      }

      // A good backup into the stopped folder: the current database is kept aside.
      const afterBackup = jobCount(database);
      const restored = await runWpp(['restore', backup], { env });
      expect(restored.stderr).toBe('');
      expect(restored.code).toBe(0);
      expect(restored.stdout).toMatch(/^restored .*wpp\.sqlite to .*plugin\.sqlite/m);
      const kept = /kept as (\S+)/.exec(restored.stdout)?.[1] as string;
      expect(kept).toMatch(/plugin\.sqlite\.before-restore-/);
      expect(statSync(kept).mode & 0o777).toBe(0o600);
      expect(jobCount(kept)).toBe(afterBackup);
      expect(statSync(database).mode & 0o777).toBe(0o600);
      expect(jobCount(database)).toBe(jobCount(backup));

      plugin = await startTestPlugin(sandbox, { dataDir: plugin.dataDir, worker: false });
      expect(plugin.jobs.counts().pending).toBe(jobCount(backup));
      await plugin.close();
    } finally {
      await sandbox.close();
      removeTempDir(out);
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  }, 120_000);
});
