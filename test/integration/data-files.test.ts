/**
 * The data folders on disk: owner-only modes whatever the umask (every customer has a shell on
 * shared hosting, and the databases hold their API keys and the partner key), the start check
 * that tightens an older install, databases that were lost or damaged, refused by name, and
 * processes that create or upgrade one database at once.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { loadMigrations } from '../../src/db/migrate.js';
import { openMigratedDatabase } from '../../src/db/open.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { paths } from '../../src/paths.js';
import { runWpp, spawnWpp } from '../helpers/cli.js';
import { startTestPlugin, TEST_PANEL_SECRET } from '../helpers/plugin.js';
import { startTestSandbox, withSandbox } from '../helpers/sandbox.js';
import { withTempDir } from '../helpers/temp.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
const modes = (dir: string, names: string[]) => Object.fromEntries(names.map((name) => [name, mode(join(dir, name))]));
const DB_FILES = ['plugin.sqlite', 'plugin.sqlite-wal', 'plugin.sqlite-shm'];
const SANDBOX_FILES = ['sandbox.sqlite', 'sandbox.sqlite-wal', 'sandbox.sqlite-shm'];
/** One secret per purpose (src/secrets.ts): hooks, sign-in links, callback URLs, notifications. */
const SECRET_FILES = ['panel-secret', 'sign-in-key', 'callback-key', 'notify-secret'];
const owner = (names: string[], value: string) => Object.fromEntries(names.map((name) => [name, value]));

/** The environment of a one-shot command that never reaches a provider. */
const offlineEnv = (dataDir: string) => ({
  WPP_DATA_DIR: dataDir,
  WPP_PROVIDER_URL: 'http://127.0.0.1:9',
  WPP_PROVIDER_API_KEY: 'unused-key',
  WPP_PANEL_SECRET: TEST_PANEL_SECRET,
  WPP_LOG_LEVEL: 'silent',
});

/** `wpp serve` (embedded sandbox, generated panel secret) started with umask 000; stopped after `fn`. */
async function withServeProcess(dataDir: string, fn: () => void): Promise<void> {
  const child = spawnWpp(['serve'], {
    umask: 0o000,
    env: { WPP_DATA_DIR: dataDir, WPP_PORT: '0', WPP_SANDBOX_PORT: '0', WPP_LOG_LEVEL: 'silent' },
  });
  try {
    await child.waitForStdout('Sandbox partner key:');
    fn();
  } finally {
    child.kill('SIGTERM');
    await child.exited(20_000);
  }
}

// Every test runs `wpp` processes, several of them one after the other: room for a loaded 2-core machine.
describe('secrets at rest: owner-only whatever the umask', { timeout: 60_000 }, () => {
  it('wpp serve started with umask 000 keeps its data folders 0700 and the databases, their -wal and -shm and the secrets 0600', async () => {
    await withTempDir(async (tmp) => {
      const dataDir = join(tmp, 'data');
      await withServeProcess(dataDir, () => {
        expect(mode(dataDir)).toBe('0700');
        expect(modes(dataDir, [...DB_FILES, ...SECRET_FILES, 'plugin.sqlite.created', 'sandbox'])).toEqual({
          ...owner([...DB_FILES, ...SECRET_FILES, 'plugin.sqlite.created'], '0600'),
          sandbox: '0700',
        });
        expect(modes(join(dataDir, 'sandbox'), SANDBOX_FILES)).toEqual(owner(SANDBOX_FILES, '0600'));
      });
    });
  });

  it('a panel hook run with umask 000 that creates the database first creates it owner-only', async () => {
    await withTempDir(async (tmp) => {
      const dataDir = join(tmp, 'data');
      const run = await runWpp(['hook', 'emit', 'domain.added', '--account', 'alice', '--domain', 'alice.example'], {
        umask: 0o000,
        env: { WPP_DATA_DIR: dataDir, WPP_LOG_LEVEL: 'silent' },
      });
      expect(run.code).toBe(0);
      expect(mode(dataDir)).toBe('0700');
      expect(mode(join(dataDir, 'plugin.sqlite'))).toBe('0600');
      // The hook's connection is closed, so SQLite removed -wal and -shm; a reader keeps them for a look.
      const reader = new Database(join(dataDir, 'plugin.sqlite'));
      try {
        reader.prepare('SELECT COUNT(*) FROM jobs').get();
        expect(modes(dataDir, DB_FILES)).toEqual(owner(DB_FILES, '0600'));
      } finally {
        reader.close();
      }
    });
  });

  it('wpp sandbox started with umask 000 keeps its folder 0700 and its database files 0600', async () => {
    await withTempDir(async (tmp) => {
      const dataDir = join(tmp, 'sandbox-data');
      const child = spawnWpp(['sandbox', '--port', '0', '--data', dataDir], { umask: 0o000, env: { WPP_LOG_LEVEL: 'silent' } });
      try {
        await child.waitForStdout('Partner key:');
        expect(mode(dataDir)).toBe('0700');
        expect(modes(dataDir, SANDBOX_FILES)).toEqual(owner(SANDBOX_FILES, '0600'));
      } finally {
        child.kill('SIGTERM');
        await child.exited(20_000);
      }
    });
  });

  it('in process, under umask 000: the plugin and the sandbox create their folders 0700 and files 0600', async () => {
    await withTempDir(async (tmp) => {
      const previous = process.umask(0o000);
      try {
        const sandbox = await startTestSandbox({ dataDir: join(tmp, 'sandbox') });
        const plugin = await startTestPlugin(sandbox, { dataDir: join(tmp, 'data'), env: { WPP_PANEL_SECRET: '' } });
        try {
          expect(mode(join(tmp, 'sandbox'))).toBe('0700');
          expect(modes(join(tmp, 'sandbox'), SANDBOX_FILES)).toEqual(owner(SANDBOX_FILES, '0600'));
          expect(mode(join(tmp, 'data'))).toBe('0700');
          expect(modes(join(tmp, 'data'), [...DB_FILES, ...SECRET_FILES])).toEqual(owner([...DB_FILES, ...SECRET_FILES], '0600'));
        } finally {
          await plugin.close();
          await sandbox.close();
        }
      } finally {
        process.umask(previous);
      }
    });
  });

  it('an existing install left open (folders 0755, files 0644) is tightened at start, with a notice', async () => {
    await withTempDir(async (tmp) => {
      const dataDir = join(tmp, 'data');
      const sandboxDir = join(dataDir, 'sandbox');
      // What an earlier version left: the same files, open to every local user.
      await withSandbox(async () => undefined, { dataDir: sandboxDir });
      const db = openPluginDatabase(loadConfig(offlineEnv(dataDir)));
      writeFileSync(join(dataDir, 'panel-secret'), 'an-old-generated-secret-0123456789\n');
      const open = [...DB_FILES, 'panel-secret', 'plugin.sqlite.created'];
      try {
        db.prepare('SELECT COUNT(*) FROM jobs').get();
        for (const dir of [dataDir, sandboxDir]) chmodSync(dir, 0o755);
        for (const name of open) if (existsSync(join(dataDir, name))) chmodSync(join(dataDir, name), 0o644);
        chmodSync(join(sandboxDir, 'sandbox.sqlite'), 0o644);

        const run = await runWpp(['jobs'], { env: offlineEnv(dataDir) });
        expect(run.code).toBe(0);
        expect(run.stderr).toContain(`${dataDir} was open to other local users (mode 0755): now 0700`);
        expect(run.stderr).toContain(`${join(dataDir, 'plugin.sqlite')} was open to other local users (mode 0644): now 0600`);
        expect(mode(dataDir)).toBe('0700');
        expect(modes(dataDir, [...open, 'sandbox'])).toEqual({ ...owner(open, '0600'), sandbox: '0700' });

        // The sandbox checks its own folder when it starts.
        chmodSync(sandboxDir, 0o755);
        await withSandbox(
          async () => {
            expect(mode(sandboxDir)).toBe('0700');
            expect(mode(join(sandboxDir, 'sandbox.sqlite'))).toBe('0600');
          },
          { dataDir: sandboxDir },
        );
      } finally {
        db.close();
      }
    });
  });

  it("a data folder open to others that holds files not the plugin's is refused, not changed", async () => {
    await withTempDir(async (tmp) => {
      const dataDir = join(tmp, 'www');
      mkdirSync(dataDir, { mode: 0o755 });
      chmodSync(dataDir, 0o755);
      writeFileSync(join(dataDir, 'index.html'), '<h1>a website</h1>');
      const run = await runWpp(['jobs'], { env: offlineEnv(dataDir) });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(
        `wpp: ${dataDir} is open to other local users (mode 0755) and holds files that are not the plugin's (index.html)`,
      );
      expect(run.stderr).toContain(`chmod 700 ${dataDir}`);
      expect(mode(dataDir)).toBe('0755');
      expect(() => statSync(join(dataDir, 'plugin.sqlite'))).toThrow(/ENOENT/);
    });
  });

  it.runIf(process.getuid?.() === 0)(
    'a process that may not change an open data folder (not its owner) is refused with the fix; its panel hooks still reach the plugin over HTTP',
    async () => {
      await withSandbox(async (sandbox) => {
        await withTempDir(async (tmp) => {
          const dataDir = join(tmp, 'data');
          const plugin = await startTestPlugin(sandbox, { dataDir });
          // An install left open and owned by another user. The commands run as root without
          // CAP_FOWNER, which may not chmod what another user owns, like any process that is not
          // the owner (a process of another uid could not read a private checkout of this repository).
          const notOwner = { dropCapabilities: ['fowner'], env: { ...offlineEnv(dataDir), WPP_HOOK_URL: plugin.url } };
          try {
            for (const path of [dataDir, join(dataDir, 'plugin.sqlite')]) chownSync(path, 65534, 65534);
            chmodSync(dataDir, 0o755);
            chmodSync(join(dataDir, 'plugin.sqlite'), 0o644);
            // The hook may not fix the folder, so it does not use the database: it posts its event, signed, to the plugin.
            const hook = await runWpp(['hook', 'emit', 'account.created', '--account', 'dave'], notOwner);
            expect(hook.stdout.trim()).toMatch(/^account\.created queued \(job \d+\)$/);
            expect(hook.code).toBe(0);
            // A command that needs the database is refused, naming the folder, its mode and the fix.
            const jobs = await runWpp(['jobs'], notOwner);
            expect(jobs.code).toBe(1);
            expect(jobs.stderr.trim()).toBe(
              `wpp: ${dataDir} is open to other local users (mode 0755) and this process (uid 0) may not change it (owner uid 65534): run \`chmod go-rwx ${dataDir}\` as its owner or root, then start again`,
            );
            expect(mode(dataDir)).toBe('0755');
            expect(plugin.jobs.list({ limit: 10 }).flatMap((job) => job.account ?? [])).toEqual(['dave']);
          } finally {
            await plugin.close();
          }
        });
      });
    },
  );
});

describe('a lost or damaged database is refused by name', { timeout: 60_000 }, () => {
  it('a plugin database truncated to 0 bytes, with a queued job, is refused and left as it is; deleting the marker starts over', async () => {
    await withTempDir(async (tmp) => {
      const dataDir = join(tmp, 'data');
      const file = join(dataDir, 'plugin.sqlite');
      const queued = await runWpp(['hook', 'emit', 'domain.added', '--account', 'alice', '--domain', 'alice.example'], {
        env: offlineEnv(dataDir),
      });
      expect(queued.code).toBe(0);
      truncateSync(file, 0);

      for (const command of [['worker', '--once'], ['jobs']]) {
        const run = await runWpp(command, { env: offlineEnv(dataDir) });
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).toMatch(
          new RegExp(`^wpp: The database ${file} is empty \\(0 bytes\\), but it was created on \\d{4}-\\d\\d-\\d\\dT`),
        );
        expect(run.stderr).toContain(`Restore it from a backup; to really start over with an empty database, delete ${file}.created`);
        expect(statSync(file).size).toBe(0);
      }

      unlinkSync(file);
      const missing = await runWpp(['jobs'], { env: offlineEnv(dataDir) });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(`The database ${file} is missing, but it was created on`);

      unlinkSync(`${file}.created`);
      const fresh = await runWpp(['jobs'], { env: offlineEnv(dataDir) });
      expect(fresh.code).toBe(0);
      expect(fresh.stdout).toContain('"pending":0');
    });
  });

  it('a file that is not a database is refused with a message naming it, and left as it is', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'plugin.sqlite');
      const garbage = 'this is a restored backup of something else entirely\n'.repeat(200);
      writeFileSync(file, garbage, { mode: 0o600 });
      const run = await runWpp(['jobs'], { env: offlineEnv(tmp) });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(
        `wpp: The database ${file} is damaged or not a SQLite database (file is not a database): restore it from a backup`,
      );
      expect(readFileSync(file, 'utf8')).toBe(garbage);
    });
  });

  it("the embedded sandbox's database truncated to 0 bytes is refused by name, in process and by wpp worker", async () => {
    await withTempDir(async (tmp) => {
      const dataDir = join(tmp, 'data');
      const sandboxFile = join(dataDir, 'sandbox', 'sandbox.sqlite');
      await withSandbox(async () => undefined, { dataDir: join(dataDir, 'sandbox') });
      truncateSync(sandboxFile, 0);

      await expect(startTestSandbox({ dataDir: join(dataDir, 'sandbox') })).rejects.toThrow(
        `The database ${sandboxFile} is empty (0 bytes)`,
      );
      const { WPP_PROVIDER_URL: _url, WPP_PROVIDER_API_KEY: _key, ...embedded } = offlineEnv(dataDir);
      const run = await runWpp(['worker', '--once'], { env: embedded });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^wpp: The database ${sandboxFile} is empty \\(0 bytes\\)`));
      expect(statSync(sandboxFile).size).toBe(0);
    });
  });

  it('a fresh folder starts fine when several processes create the database at once', async () => {
    await withTempDir(async (tmp) => {
      const dataDir = join(tmp, 'data');
      const runs = await Promise.all(
        ['a', 'b', 'c'].map((account) => runWpp(['hook', 'emit', 'account.created', '--account', account], { env: offlineEnv(dataDir) })),
      );
      expect(runs.map((run) => [run.code, run.stderr])).toEqual([
        [0, ''],
        [0, ''],
        [0, ''],
      ]);
      const listed = await runWpp(['jobs'], { env: offlineEnv(dataDir) });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('"pending":3');
    });
  });
});

/**
 * A process that migrates `file` to the migrations in `dir` with the project's `migrate`, and
 * prints "waiting" once it has read the database's version and asks for the write lock for
 * its first pending migration. It prints the versions it applied last.
 */
function startMigrating(script: string, file: string, dir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, file, dir], { cwd: paths.root });
  let out = '';
  let err = '';
  let onWaiting: () => void = () => {};
  const waiting = new Promise<void>((resolve) => (onWaiting = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith('waiting\n')) onWaiting();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const finished = new Promise<{ code: number | null; applied: number[] | undefined; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      resolve({ code, applied: code === 0 ? (JSON.parse(last) as number[]) : undefined, stderr: err });
    });
  });
  // A child that dies before it waits must fail the test, not hang it.
  void finished.then(() => onWaiting());
  return { waiting, finished };
}

/** Writes the script `startMigrating` runs into `dir`; returns its path. */
function writeMigrateScript(dir: string): string {
  const source = (path: string) => JSON.stringify(pathToFileURL(join(paths.root, path)).href);
  const script = join(dir, 'migrate-child.mts');
  writeFileSync(
    script,
    `import { createRequire } from 'node:module';
import { migrate } from ${source('src/db/migrate.ts')};
// This script lives in a temp folder: take better-sqlite3 from the project's node_modules.
const Database = createRequire(${source('package.json')})('better-sqlite3');
const [file, dir] = process.argv.slice(2);
let told = false;
// The trace runs as BEGIN IMMEDIATE starts, before it waits for the lock: the version is read by then.
const db = new Database(file, {
  timeout: 15000,
  verbose: (sql) => {
    if (told || sql !== 'BEGIN IMMEDIATE') return;
    told = true;
    process.stdout.write('waiting\\n');
  },
});
const { applied } = migrate(db, dir);
db.close();
process.stdout.write(JSON.stringify(applied.map((m) => m.version)) + '\\n');
`,
  );
  return script;
}

describe('processes migrating one database at once', { timeout: 60_000 }, () => {
  it('an upgrade: two processes migrating one older database at once both succeed, and each migration runs once', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'data', 'plugin.sqlite');
      // The install as an older version left it: only the first two migrations.
      const older = join(tmp, 'older-migrations');
      mkdirSync(older);
      for (const name of ['001_provisioning.sql', '002_statistics_and_limits.sql'])
        copyFileSync(join(paths.migrations, name), join(older, name));
      openMigratedDatabase(file, older).close();

      const script = writeMigrateScript(tmp);
      // Held until both processes have read version 2 and wait for the lock, so both really
      // try to apply the same migrations: the clash a hook during an upgrade meets.
      const holder = new Database(file);
      holder.exec('BEGIN IMMEDIATE');
      const children = [startMigrating(script, file, paths.migrations), startMigrating(script, file, paths.migrations)];
      try {
        await Promise.all(children.map((child) => child.waiting));
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      const results = await Promise.all(children.map((child) => child.finished));

      expect(results.map((result) => [result.code, result.stderr])).toEqual([
        [0, ''],
        [0, ''],
      ]);
      // Between them, the two applied each pending migration once.
      const pending = loadMigrations(paths.migrations)
        .map((migration) => migration.version)
        .filter((version) => version > 2);
      expect(pending.length).toBeGreaterThan(0);
      expect(results.flatMap((result) => result.applied ?? []).sort((a, b) => a - b)).toEqual(pending);

      // The same schema as a database migrated by one process alone.
      const alone = openMigratedDatabase(join(tmp, 'alone', 'plugin.sqlite'), paths.migrations);
      const migrated = new Database(file, { readonly: true });
      try {
        const schema = (db: Database.Database) =>
          db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all();
        expect(schema(migrated)).toEqual(schema(alone));
        expect(migrated.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual(
          alone.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all(),
        );
      } finally {
        migrated.close();
        alone.close();
      }
    });
  });
});
