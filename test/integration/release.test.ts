/**
 * The release a provider installs: `npm run release` builds the tarball once, it is unpacked
 * into a folder outside the checkout, and its own `wpp install <panel> --root $tmp` runs for
 * every install target (fake panel tools where the panel keeps its real ones, as the
 * install-*.test.ts files do). Then the installed launcher runs, in a mount namespace of its
 * own where $tmp/usr/local/lib is /usr/local/lib, so it runs exactly the paths it names; then
 * an upgrade to a second version with a migration of its own, and `wpp rollback`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { INSTALL_TARGETS } from '../../src/install/panels.js';
import { readReleaseAt } from '../../src/install/release.js';
import { sourceTrustProblems, serverTrust } from '../../src/install/source-trust.js';
import { createToolRunner } from '../../src/install/tools.js';
import { verifyInstallations } from '../../src/install/verify.js';
import { fakePanel } from '../helpers/fake-panels.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const repo = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
const NAME = `wpp-${version}-${process.platform}-${process.arch}`;
const LAUNCHER = '/usr/local/lib/wpp/wpp';
const INSTALLED = `/usr/local/lib/wpp/${version}`;
/** The fake tools' call logs: they name our paths by design. */
const LOGS = new Set(['.fake-tool-calls', '.fake-user-calls', '.decoy-calls']);

let work: string;
/** The unpacked release, and a copy of it made a newer version with a migration of its own. */
let unpacked: string;
let newer: string;
let newerVersion: string;
let build: { output: string };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `wpp ...` from a release folder, as an administrator runs it there: the system's Node.js, a plain environment, outside the checkout. */
function wppFrom(release: string, args: string[]): Run {
  const run = spawnSync(process.execPath, [join(release, 'bin/wpp.js'), ...args], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The installed launcher, run where $root/usr/local/lib is /usr/local/lib (a private mount namespace: this machine's stays as it is). */
function launcher(root: string, args: string[]): Run {
  const run = spawnSync(
    '/usr/bin/unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '/bin/sh',
      '-c',
      'mount --bind "$1/usr/local/lib" /usr/local/lib && shift && exec "$@"',
      'sh',
      root,
      LAUNCHER,
      ...args,
    ],
    { cwd: work, env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' },
  );
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/**
 * Every file below `root` (but the fake tools' call logs) with its content's hash and mode. A
 * release's copy counts as one entry, its folder's inode: it is checked against its
 * SHA256SUMS on its own, and replacing it (a rename) gives a new inode.
 */
function snapshot(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (LOGS.has(entry.name)) continue;
      if (entry.isDirectory() && existsSync(join(full, 'SHA256SUMS')))
        found.set(`/${relative(root, full)}/`, `release ${statSync(full).ino}`);
      else if (entry.isDirectory()) walk(full);
      else found.set(`/${relative(root, full)}`, `${sha256(readFileSync(full))} ${(statSync(full).mode & 0o7777).toString(8)}`);
    }
  };
  walk(root);
  return found;
}

const isData = (path: string) => path === '/etc/wpp/env' || path.startsWith('/var/lib/wpp/') || path.startsWith('/var/backups/wpp/');

/** Writes SHA256SUMS for a release folder the way the build does (sha256sum's format, sorted). */
function writeSums(dir: string): void {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(at, entry.name));
      else files.push(relative(dir, join(at, entry.name)));
    }
  };
  walk(dir);
  const listed = files.filter((file) => file !== 'SHA256SUMS').sort();
  writeFileSync(join(dir, 'SHA256SUMS'), listed.map((file) => `${sha256(readFileSync(join(dir, file)))}  ${file}\n`).join(''));
}

beforeAll(() => {
  work = createTempDir('wpp-release-');
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-release.ts', '--out', join(work, 'out')], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`npm run release failed:\n${built.stdout}${built.stderr}`);
  build = { output: built.stdout };

  mkdirSync(join(work, 'unpacked'));
  const untar = spawnSync('/usr/bin/tar', [
    '--extract',
    '--gzip',
    '--file',
    join(work, 'out', `${NAME}.tar.gz`),
    '--directory',
    join(work, 'unpacked'),
  ]);
  if (untar.status !== 0) throw new Error(`tar: ${String(untar.stderr)}`);
  unpacked = join(work, 'unpacked', NAME);

  // The next version: the same release with another version number and one more migration.
  newerVersion = `${version}-next.1`;
  newer = join(work, 'unpacked-next', `wpp-${newerVersion}-${process.platform}-${process.arch}`);
  mkdirSync(join(work, 'unpacked-next'));
  // cp -a: fs.cpSync takes seconds on a release's two thousand files.
  if (spawnSync('/bin/cp', ['-a', '--', unpacked, newer]).status !== 0) throw new Error('cp -a failed');
  for (const file of ['package.json', 'release.json']) {
    const json = JSON.parse(readFileSync(join(newer, file), 'utf8')) as { version: string };
    writeFileSync(join(newer, file), `${JSON.stringify({ ...json, version: newerVersion }, null, 2)}\n`);
  }
  const numbers = readdirSync(join(newer, 'migrations')).map((name) => Number(/^(\d+)_/.exec(name)?.[1] ?? 0));
  const next = String(Math.max(...numbers) + 1).padStart(3, '0');
  writeFileSync(
    join(newer, 'migrations', `${next}_release_upgrade_probe.sql`),
    'CREATE TABLE release_upgrade_probe (id INTEGER PRIMARY KEY);\n',
  );
  writeSums(newer);
}, 180_000);

afterAll(() => removeTempDir(work));

describe('npm run release', () => {
  it('builds the tarball with its .sha256 beside it, holding SHA256SUMS, the built SQLite module and no dev dependency', () => {
    expect(build.output).toMatch(new RegExp(`built .*${NAME}\\.tar\\.gz`));
    const beside = readFileSync(join(work, 'out', `${NAME}.tar.gz.sha256`), 'utf8');
    expect(beside).toBe(`${sha256(readFileSync(join(work, 'out', `${NAME}.tar.gz`)))}  ${NAME}.tar.gz\n`);
    expect(spawnSync('/usr/bin/sha256sum', ['--check', '--quiet', `${NAME}.tar.gz.sha256`], { cwd: join(work, 'out') }).status).toBe(0);
    expect(spawnSync('/usr/bin/sha256sum', ['--check', '--quiet', 'SHA256SUMS'], { cwd: unpacked }).status).toBe(0);

    for (const part of [
      'dist/cli.js',
      'bin/wpp.js',
      'views',
      'locales/en.json',
      'locales/de.json',
      'locales/es.json',
      'migrations',
      'panels',
      'plugin.json',
      'package.json',
      'release.json',
      'README.md',
      'CHANGELOG.md',
      'docs/installing.md',
    ])
      expect(existsSync(join(unpacked, part)), part).toBe(true);
    expect(existsSync(join(unpacked, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
    expect(existsSync(join(unpacked, 'src'))).toBe(false);
    const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const shipped = readdirSync(join(unpacked, 'node_modules')).flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(unpacked, 'node_modules', name)).map((sub) => `${name}/${sub}`) : [name],
    );
    const dev = shipped.filter((name) => lock.packages[`node_modules/${name}`]?.dev);
    expect(dev).toEqual([]);
    expect(shipped).not.toContain('typescript');
    expect(shipped).not.toContain('vitest');

    expect(readReleaseAt(unpacked)?.manifest).toMatchObject({ name: 'wpp', version, nodeModuleVersion: process.versions.modules });
    // It runs where no checkout is above it.
    expect(wppFrom(unpacked, ['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });
});

describe.each(INSTALL_TARGETS)('the release installed for %s', (panel) => {
  it('is copied and registered, a second install changes nothing, the launcher runs the copy, and uninstall leaves only the data', async () => {
    const root = createTempDir(`wpp-release-${panel}-`);
    try {
      fakePanel(panel)(root);
      const first = wppFrom(unpacked, ['install', panel, '--root', root]);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`copied  ${unpacked} to ${INSTALLED}/ (wpp ${version}, checked against its SHA256SUMS)`);

      // Written: the release's copy, root's and read-only to others, as its SHA256SUMS lists it.
      const copy = join(root, INSTALLED);
      expect(spawnSync('/usr/bin/sha256sum', ['--check', '--quiet', 'SHA256SUMS'], { cwd: copy }).status).toBe(0);
      expect(sourceTrustProblems({ nodePath: process.execPath, packageRoot: copy }, serverTrust())).toEqual([]);
      expect(readFileSync(join(root, LAUNCHER), 'utf8')).toContain(`'${process.execPath}' '${INSTALLED}/bin/wpp.js'\n`);
      // Registered: every file the record lists as written, every registration in place (what wpp doctor checks).
      const record = JSON.parse(readFileSync(join(root, `/etc/wpp/install/${panel}.json`), 'utf8')) as {
        version: string;
        releases: unknown[];
      };
      expect(record.version).toBe(version);
      expect(record.releases).toEqual([{ path: INSTALLED, version, fingerprint: readReleaseAt(unpacked)?.fingerprint }]);
      const source = { nodePath: process.execPath, packageRoot: INSTALLED, version };
      expect(await verifyInstallations(createToolRunner(root), source)).toEqual([{ panel, version, problems: [] }]);

      // The launcher runs the system's Node.js on the copy.
      expect(launcher(root, ['--version'])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });

      // Twice is once.
      const before = snapshot(root);
      const second = wppFrom(unpacked, ['install', panel, '--root', root]);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain(`Nothing to change: wpp is installed for ${panel}.`);
      expect(second.stdout).toContain(`unchanged  ${INSTALLED}/ (wpp ${version})`);
      expect(snapshot(root)).toEqual(before);

      // Uninstall: what is left is the data, and nothing anywhere names the launcher (no hook, handler or unit).
      writeFileSync(join(root, '/var/lib/wpp/kept-by-uninstall'), 'data');
      const removed = wppFrom(unpacked, ['uninstall', panel, '--root', root]);
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain(`removed  ${INSTALLED}/ (wpp ${version})`);
      expect(existsSync(join(root, '/usr/local/lib/wpp'))).toBe(false);
      const left = [...snapshot(root).keys()].filter((path) => !before.has(path) || isData(path));
      expect(left.filter((path) => !isData(path))).toEqual([]);
      expect(readFileSync(join(root, '/var/lib/wpp/kept-by-uninstall'), 'utf8')).toBe('data');
      for (const path of snapshot(root).keys())
        if (!isData(path)) expect(readFileSync(join(root, path), 'utf8'), path).not.toContain(LAUNCHER);
    } finally {
      removeTempDir(root);
    }
  }, 60_000);
});

describe('an upgrade to a newer release, and wpp rollback', () => {
  const PANEL = 'systemd';
  const NEWER = () => `/usr/local/lib/wpp/${newerVersion}`;
  let root: string;
  const databaseFile = () => join(root, '/var/lib/wpp/plugin.sqlite');
  const migrationsOf = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v;
    } finally {
      db.close();
    }
  };
  const kept = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare("SELECT value FROM kv WHERE key = 'release-test'").pluck().get();
    } finally {
      db.close();
    }
  };
  const releasesInRecord = () =>
    (
      JSON.parse(readFileSync(join(root, `/etc/wpp/install/${PANEL}.json`), 'utf8')) as {
        releases: { version: string; previous?: boolean }[];
      }
    ).releases;

  beforeAll(() => {
    root = createTempDir('wpp-release-upgrade-');
    fakePanel(PANEL)(root);
  });
  afterAll(() => removeTempDir(root));

  it('installs the newer release beside the older one: a copy of the database first, its migration run, the data kept', () => {
    expect(wppFrom(unpacked, ['install', PANEL, '--root', root]).code).toBe(0);
    // The data the installed version wrote (its schema, one fact).
    const db = openPluginDatabase({ databaseFile: databaseFile() }, { notice: () => undefined });
    db.prepare("INSERT INTO kv (key, value, updated_at) VALUES ('release-test', 'kept', 1)").run();
    db.close();
    const oldLevel = migrationsOf(databaseFile());

    const upgrade = wppFrom(newer, ['install', PANEL, '--root', root]);
    expect(upgrade.stderr).toBe('');
    expect(upgrade.code).toBe(0);
    expect(upgrade.stdout).toMatch(
      new RegExp(
        `copied  /var/lib/wpp/plugin.sqlite to /var/backups/wpp/plugin.sqlite.before-${newerVersion}-\\S+ \\(migration ${oldLevel}, `,
      ),
    );
    expect(upgrade.stdout).toContain(`migrated  /var/lib/wpp/plugin.sqlite from migration ${oldLevel} to ${oldLevel + 1}`);
    expect(upgrade.stdout).toContain(`kept  ${INSTALLED}/ (wpp ${version}, the previous version: wpp rollback goes back to it)`);
    expect(migrationsOf(databaseFile())).toBe(oldLevel + 1);
    expect(kept(databaseFile())).toBe('kept');
    expect(existsSync(join(root, INSTALLED, 'bin/wpp.js'))).toBe(true);
    expect(releasesInRecord().map((r) => `${r.version}${r.previous ? ' (previous)' : ''}`)).toEqual([
      newerVersion,
      `${version} (previous)`,
    ]);
    expect(launcher(root, ['--version'])).toMatchObject({ code: 0, stdout: `${newerVersion}\n` });

    const backups = readdirSync(join(root, '/var/backups/wpp'));
    expect(backups).toHaveLength(1);
    expect(migrationsOf(join(root, '/var/backups/wpp', backups[0] as string))).toBe(oldLevel);
    expect(statSync(join(root, '/var/backups/wpp')).mode & 0o777).toBe(0o700);

    // Twice is once on an upgrade too: the older version stays kept.
    const again = wppFrom(newer, ['install', PANEL, '--root', root]);
    expect(again.stdout).toContain(`Nothing to change: wpp is installed for ${PANEL}.`);
    expect(existsSync(join(root, INSTALLED, 'bin/wpp.js'))).toBe(true);
  });

  it('the older release refuses to install over the database the newer one migrated, changing nothing', () => {
    const before = snapshot(root);
    const run = wppFrom(unpacked, ['install', PANEL, '--root', root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`knows migrations up to ${migrationsOf(databaseFile()) - 1}: a newer wpp wrote it`);
    expect(snapshot(root)).toEqual(before);
  });

  it('wpp rollback refuses while the database is newer than the kept version knows, naming the copy to go back with', () => {
    const before = snapshot(root);
    const run = wppFrom(join(root, NEWER()), ['rollback', '--root', root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`wpp ${version} knows migrations up to`);
    expect(run.stderr).toContain('wpp rollback --restore-backup');
    expect(run.stderr).toContain('Nothing was changed.');
    expect(snapshot(root)).toEqual(before);
  });

  it('wpp rollback --restore-backup puts back the copy from before the migration, keeps the newer database and version, and runs the older one', () => {
    const run = wppFrom(join(root, NEWER()), ['rollback', '--restore-backup', '--root', root]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`wpp ${version} runs again.`);
    expect(launcher(root, ['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect(readFileSync(join(root, LAUNCHER), 'utf8')).toContain(`'${INSTALLED}/bin/wpp.js'`);
    expect(kept(databaseFile())).toBe('kept');
    expect(migrationsOf(databaseFile())).toBe(
      migrationsOf(join(root, '/var/backups/wpp', readdirSync(join(root, '/var/backups/wpp'))[0] as string)),
    );
    // Nothing lost: the migrated database is kept beside it, and the newer version for a roll forward.
    const keptDatabase = readdirSync(join(root, '/var/lib/wpp')).filter((name) => name.startsWith('plugin.sqlite.before-restore-'));
    expect(keptDatabase).toHaveLength(1);
    expect(kept(join(root, '/var/lib/wpp', keptDatabase[0] as string))).toBe('kept');
    expect(releasesInRecord().map((r) => `${r.version}${r.previous ? ' (previous)' : ''}`)).toEqual([
      version,
      `${newerVersion} (previous)`,
    ]);
    expect(existsSync(join(root, NEWER(), 'bin/wpp.js'))).toBe(true);
  });
});
