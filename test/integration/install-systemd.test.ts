/**
 * `wpp install systemd` and `wpp uninstall systemd` as an administrator runs them: the real CLI
 * against a temporary root holding a fake systemctl at /usr/bin/systemctl, with decoys first
 * on PATH to prove no tool is looked up there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launcherScript } from '../../src/install/common.js';
import { currentInstallSource } from '../../src/install/source.js';
import { runWpp } from '../helpers/cli.js';
import {
  decoyCalls,
  decoyPath,
  FAKE_SERVICE_ID,
  fakeSystemctl,
  filesBelow,
  seedUser,
  toolCalls,
  userToolCalls,
} from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const repoRoot = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const SYSTEMCTL = '/usr/bin/systemctl';

let root: string;
let decoys: string;

beforeEach(() => {
  root = createTempDir('wpp-install-systemd-');
  fakeSystemctl(root);
  decoys = decoyPath(root, ['systemctl', 'sh', 'node']);
});
afterEach(() => removeTempDir(root));

const wpp = (args: string[], env: Record<string, string> = {}) =>
  runWpp(args, { env: { PATH: `${decoys}:${process.env.PATH ?? ''}`, ...env } });
const installSystemd = (args: string[] = [], env: Record<string, string> = {}) => wpp(['install', 'systemd', '--root', root, ...args], env);
const uninstallSystemd = (args: string[] = []) => wpp(['uninstall', 'systemd', '--root', root, ...args]);

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const modeOf = (path: string) => statSync(join(root, path)).mode & 0o777;
const systemctlCalls = () => toolCalls(root).map(([tool, ...args]) => `${tool === SYSTEMCTL ? 'systemctl' : tool} ${args.join(' ')}`);

/** What sh makes of a variable in the environment file, as the launcher loads it. */
const sourced = (name: string) =>
  execFileSync('/bin/sh', ['-c', `set -a; . "$1"; printf '%s' "\${${name}-unset}"`, 'sh', join(root, '/etc/wpp/env')], {
    encoding: 'utf8',
    cwd: root,
  });

describe('wpp install systemd', () => {
  it('writes the data folder, the settings, the launcher and the unit with their modes, and enables the service', async () => {
    const run = await installSystemd();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('wpp is installed for systemd');

    expect(Object.fromEntries(filesBelow(root))).toEqual({
      '/usr/bin/systemctl': 0o755,
      '/etc/wpp/env': 0o640,
      '/usr/local/lib/wpp/wpp': 0o755,
      '/etc/systemd/system/wpp.service': 0o644,
      '/etc/wpp/install/systemd.json': 0o600,
    });
    expect(modeOf('/var/lib/wpp')).toBe(0o700);
    expect(modeOf('/etc/wpp')).toBe(0o750);
    expect(modeOf('/etc/wpp/install')).toBe(0o700);

    const unit = read('/etc/systemd/system/wpp.service');
    expect(unit.split('\n')).toEqual(
      expect.arrayContaining([
        '[Service]',
        'Restart=always',
        'ExecStart=/usr/local/lib/wpp/wpp serve',
        'UMask=0077',
        'WantedBy=multi-user.target',
      ]),
    );
    const launcher = read('/usr/local/lib/wpp/wpp');
    expect(launcher.startsWith('#!/bin/sh\n')).toBe(true);
    expect(launcher).toBe(launcherScript(currentInstallSource()));
    expect(launcher).toContain(`wpp '/etc/wpp/env' '${process.execPath}' '${repoRoot}/bin/wpp.js'\n`);
    expect(launcher).toContain(`exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"\n`);
    expect(unit).not.toContain('EnvironmentFile');
    execFileSync('/bin/sh', ['-n', join(root, '/usr/local/lib/wpp/wpp')]);

    const env = read('/etc/wpp/env');
    expect(env).toContain('WPP_PANEL=systemd\n');
    expect(env).toContain('WPP_DATA_DIR=/var/lib/wpp\n');
    expect(env).toContain('# WPP_PROVIDER_URL=');
    for (const path of ['/etc/wpp/env', '/usr/local/lib/wpp/wpp', '/etc/systemd/system/wpp.service'])
      expect(read(path)).not.toContain('\r');

    // No provider yet: enabled, not started (it would provision into the embedded sandbox).
    expect(systemctlCalls()).toEqual(['systemctl daemon-reload', 'systemctl enable wpp.service']);
    expect(decoyCalls(root)).toEqual([]);
  });

  it("a second install changes nothing and registers nothing again; the administrator's edits to /etc/wpp/env stay", async () => {
    expect((await installSystemd()).code).toBe(0);
    const edited = `${read('/etc/wpp/env')}WPP_PUBLIC_URL=https://edited.example:8443\n`;
    writeFileSync(join(root, '/etc/wpp/env'), edited);
    const before = new Map([...filesBelow(root)].map(([path]) => [path, read(path)]));
    const callsBefore = toolCalls(root).length;

    const again = await installSystemd(['--provider-url', 'https://ignored.example']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to change: wpp is installed for systemd.');
    expect(again.stdout).toContain('kept  /etc/wpp/env (0640): already there, left as it is');
    expect(again.stdout).not.toMatch(/^(created|updated|registered|re-registered|recorded) /m);

    expect(new Map([...filesBelow(root)].map(([path]) => [path, read(path)]))).toEqual(before);
    expect(read('/etc/wpp/env')).toBe(edited);
    expect(modeOf('/etc/wpp/env')).toBe(0o640);
    // Only the check that the service is still enabled.
    expect(systemctlCalls().slice(callsBefore)).toEqual(['systemctl is-enabled --quiet wpp.service']);
    expect(decoyCalls(root)).toEqual([]);
  });

  it('starts the service (restart) when /etc/wpp/env already names a provider', async () => {
    mkdirSync(join(root, '/etc/wpp'), { recursive: true });
    writeFileSync(join(root, '/etc/wpp/env'), 'WPP_PROVIDER_URL=https://api.provider.example\n', { mode: 0o600 });
    const run = await installSystemd();
    expect(run.code).toBe(0);
    expect(read('/etc/wpp/env')).toBe('WPP_PROVIDER_URL=https://api.provider.example\n');
    expect(systemctlCalls()).toEqual(['systemctl daemon-reload', 'systemctl enable wpp.service', 'systemctl restart wpp.service']);
  });

  it('--provider-url and WPP_PROVIDER_API_KEY from the environment land in a new env file, read back exactly by sh, the key never printed', async () => {
    const key = 'k3y with space $(touch pwned) & `touch pwned2`';
    const run = await installSystemd(
      ['--provider-url', 'https://api.provider.example/v1?region=eu&tier=2', '--public-url', 'https://panel.example:8443'],
      {
        WPP_PROVIDER_API_KEY: key,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain('k3y');
    expect(read('/etc/wpp/install/systemd.json')).not.toContain('k3y');

    expect(sourced('WPP_PROVIDER_API_KEY')).toBe(key);
    expect(sourced('WPP_PROVIDER_URL')).toBe('https://api.provider.example/v1?region=eu&tier=2');
    expect(sourced('WPP_PUBLIC_URL')).toBe('https://panel.example:8443');
    expect(existsSync(join(root, 'pwned'))).toBe(false);
    expect(existsSync(join(root, 'pwned2'))).toBe(false);
    expect(modeOf('/etc/wpp/env')).toBe(0o640);
    expect(systemctlCalls()).toEqual(['systemctl daemon-reload', 'systemctl enable wpp.service', 'systemctl restart wpp.service']);
  });

  it('generates a WPP_METRICS_TOKEN into a new env file (never printed, kept by a second install)', async () => {
    expect((await installSystemd()).code).toBe(0);
    const token = sourced('WPP_METRICS_TOKEN');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await installSystemd();
    expect(again.code).toBe(0);
    expect(again.stdout + again.stderr).not.toContain(token);
    expect(sourced('WPP_METRICS_TOKEN')).toBe(token);
    // Each installation its own token.
    const other = createTempDir('wpp-install-systemd-');
    try {
      fakeSystemctl(other);
      expect((await wpp(['install', 'systemd', '--root', other])).code).toBe(0);
      expect(readFileSync(join(other, '/etc/wpp/env'), 'utf8')).not.toContain(token);
    } finally {
      removeTempDir(other);
    }
  });

  it('refuses a key sh could not hold in quotes, without printing it, and writes nothing', async () => {
    const run = await installSystemd([], { WPP_PROVIDER_API_KEY: "secret'quote" });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('WPP_PROVIDER_API_KEY');
    expect(run.stdout + run.stderr).not.toContain('secret');
    expect([...filesBelow(root).keys()]).toEqual(['/usr/bin/systemctl']);
  });

  it('--dry-run on a fresh root prints what it would do and changes nothing', async () => {
    const run = await installSystemd(['--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('would create  /etc/systemd/system/wpp.service (0644)');
    expect(run.stdout).toContain('would register  systemd service wpp.service');
    expect(run.stdout).toContain('Dry run: nothing was changed');
    expect([...filesBelow(root).keys()]).toEqual(['/usr/bin/systemctl']);
    expect(existsSync(join(root, '/var/lib/wpp'))).toBe(false);
    expect(toolCalls(root)).toEqual([]);
  });
});

describe('wpp uninstall systemd', () => {
  it('disables and stops the service, reloads systemd, and leaves only the data', async () => {
    expect((await installSystemd()).code).toBe(0);
    writeFileSync(join(root, '/var/lib/wpp/wpp.db'), 'the database', { mode: 0o600 });
    const callsBefore = toolCalls(root).length;

    const run = await uninstallSystemd();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The data stays in /var/lib/wpp and /etc/wpp (--purge removes them).');
    expect(systemctlCalls().slice(callsBefore)).toEqual(['systemctl disable --now wpp.service', 'systemctl daemon-reload']);
    expect(Object.fromEntries(filesBelow(root))).toEqual({
      '/usr/bin/systemctl': 0o755,
      '/etc/wpp/env': 0o640,
      '/var/lib/wpp/wpp.db': 0o600,
    });
    expect(modeOf('/var/lib/wpp')).toBe(0o700);
    expect(existsSync(join(root, '/usr/local/lib/wpp'))).toBe(false);
    expect(existsSync(join(root, '/etc/wpp/install'))).toBe(false);

    const again = await uninstallSystemd();
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('wpp is not installed for systemd');
    expect(decoyCalls(root)).toEqual([]);
  });

  it('--purge removes the data and the settings too', async () => {
    expect((await installSystemd()).code).toBe(0);
    writeFileSync(join(root, '/var/lib/wpp/wpp.db'), 'the database', { mode: 0o600 });
    const run = await uninstallSystemd(['--purge']);
    expect(run.code).toBe(0);
    expect([...filesBelow(root).keys()]).toEqual(['/usr/bin/systemctl']);
    expect(existsSync(join(root, '/var/lib/wpp'))).toBe(false);
    expect(existsSync(join(root, '/etc/wpp'))).toBe(false);
  });
});

describe('refusals', () => {
  it('without --root and not as root: exits non-zero, says to run as root, writes nothing', async () => {
    const touched = ['/etc/wpp', '/var/lib/wpp', '/usr/local/lib/wpp', '/etc/systemd/system/wpp.service'];
    // Only meaningful where this machine has no wpp installed.
    for (const path of touched) expect(existsSync(path)).toBe(false);
    for (const verb of ['install', 'uninstall']) {
      const run = await runWpp([verb, 'systemd'], { uid: 65534, gid: 65534 });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`wpp ${verb} systemd must run as root`);
      expect(run.stderr).toContain('--root DIR');
    }
    for (const path of touched) expect(existsSync(path)).toBe(false);
  });

  it('a panel it does not know is a usage error', async () => {
    const run = await wpp(['install', 'kpanel', '--root', root]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown panel "kpanel"');
    expect([...filesBelow(root).keys()]).toEqual(['/usr/bin/systemctl']);
  });
});

describe('the wpp system user', () => {
  const SERVICE = FAKE_SERVICE_ID;
  const owner = (path: string) => {
    const info = statSync(join(root, path));
    return `${info.uid}:${info.gid} ${(info.mode & 0o777).toString(8)}`;
  };
  const USERADD = '/usr/sbin/useradd --system --user-group --no-create-home --home-dir /var/lib/wpp --shell /usr/sbin/nologin wpp';

  it('is created with the vendor tool, runs the service, owns the data folder and may read the settings; a second install is a no-op', async () => {
    const run = await installSystemd();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // Looked up, created, looked up again (it must exist now), and its ids read for the files.
    expect(userToolCalls(root)).toEqual([
      '/usr/bin/getent passwd wpp',
      USERADD,
      '/usr/bin/getent passwd wpp',
      '/usr/bin/getent passwd wpp',
    ]);
    expect(run.stdout).toContain('registered  system user wpp');
    const unit = read('/etc/systemd/system/wpp.service').split('\n');
    expect(unit).toEqual(expect.arrayContaining(['User=wpp', 'Group=wpp']));
    expect(owner('/var/lib/wpp')).toBe(`${SERVICE}:${SERVICE} 700`);
    // Root's settings, readable by the service: it may not change what root's hooks load.
    expect(owner('/etc/wpp')).toBe(`0:${SERVICE} 750`);
    expect(owner('/etc/wpp/env')).toBe(`0:${SERVICE} 640`);
    // What root replays on uninstall is root's alone, outside the folder the service owns.
    expect(owner('/etc/wpp/install')).toBe('0:0 700');
    expect(owner('/etc/wpp/install/systemd.json')).toBe('0:0 600');
    expect(existsSync(join(root, '/var/lib/wpp/install'))).toBe(false);
    expect(owner('/usr/local/lib/wpp/wpp')).toBe('0:0 755');

    const before = userToolCalls(root).length;
    const again = await installSystemd();
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to change: wpp is installed for systemd.');
    // Only lookups: still there, and its ids.
    expect(userToolCalls(root).slice(before)).toEqual(['/usr/bin/getent passwd wpp', '/usr/bin/getent passwd wpp']);
  });

  it('an install from before the wpp user (root-owned data, the record in the data folder) moves to the new ownership, keeping the data and settings', async () => {
    mkdirSync(join(root, '/var/lib/wpp/install'), { recursive: true, mode: 0o700 });
    mkdirSync(join(root, '/var/lib/wpp/sandbox'), { mode: 0o700 });
    mkdirSync(join(root, '/etc/wpp'), { recursive: true, mode: 0o700 });
    const settings = "WPP_PANEL=systemd\nWPP_DATA_DIR=/var/lib/wpp\nWPP_PROVIDER_API_KEY='kept'\n";
    writeFileSync(join(root, '/etc/wpp/env'), settings, { mode: 0o600 });
    for (const name of ['plugin.sqlite', 'plugin.sqlite-wal', 'panel-secret', 'api-keys.key', 'sandbox/sandbox.sqlite'])
      writeFileSync(join(root, '/var/lib/wpp', name), name, { mode: 0o600 });
    const record = {
      panel: 'systemd',
      version: '0.2.0',
      installedAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
      files: [{ path: '/etc/wpp/env', mode: 0o600, sha256: 'x', keep: true }],
      directories: [
        { path: '/var/lib/wpp', mode: 0o700, data: true },
        { path: '/etc/wpp', mode: 0o700, data: true },
      ],
      registrations: [
        {
          key: 'systemd service wpp',
          describe: 'systemd service wpp.service',
          fingerprint: 'old',
          ids: [],
          undo: [{ tool: '/usr/bin/systemctl', args: ['disable', '--now', 'wpp.service'] }],
        },
      ],
    };
    writeFileSync(join(root, '/var/lib/wpp/install/systemd.json'), JSON.stringify(record), { mode: 0o600 });

    const run = await installSystemd();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const path of [
      '',
      '/plugin.sqlite',
      '/plugin.sqlite-wal',
      '/panel-secret',
      '/api-keys.key',
      '/sandbox',
      '/sandbox/sandbox.sqlite',
    ])
      expect(statSync(join(root, '/var/lib/wpp', path)).uid, path).toBe(SERVICE);
    expect(read('/var/lib/wpp/panel-secret')).toBe('panel-secret');
    expect(read('/etc/wpp/env')).toBe(settings);
    expect(owner('/etc/wpp/env')).toBe(`0:${SERVICE} 640`);
    expect(owner('/etc/wpp')).toBe(`0:${SERVICE} 750`);
    expect(existsSync(join(root, '/var/lib/wpp/install'))).toBe(false);
    expect(JSON.parse(read('/etc/wpp/install/systemd.json'))).toMatchObject({ panel: 'systemd', installedAt: '2025-01-01T00:00:00.000Z' });

    const again = await installSystemd();
    expect(again.stdout).toContain('Nothing to change: wpp is installed for systemd.');
  });

  it('uninstall keeps the user with the data; --purge removes both', async () => {
    expect((await installSystemd()).code).toBe(0);
    const before = userToolCalls(root).length;
    const kept = await uninstallSystemd();
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('kept  system user wpp: it owns the data (--purge removes it)');
    expect(userToolCalls(root).slice(before)).toEqual([]);

    expect((await installSystemd()).code).toBe(0);
    const purged = await uninstallSystemd(['--purge']);
    expect(purged.code).toBe(0);
    expect(userToolCalls(root).slice(-1)).toEqual(['/usr/sbin/userdel wpp']);
    expect(existsSync(join(root, '/var/lib/wpp'))).toBe(false);
  });

  it('refuses a user named wpp that is not a system user (a customer account), before writing anything', async () => {
    seedUser(root, 'wpp:x:1000:1000::/home/wpp:/bin/bash');
    const run = await installSystemd();
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('a user named wpp exists and is not a system user (uid 1000, shell /bin/bash)');
    expect([...filesBelow(root).keys()]).toEqual(['/usr/bin/systemctl']);
    expect(userToolCalls(root)).toEqual(['/usr/bin/getent passwd wpp']);
  });
});
