/**
 * The launcher every hook, panel page and the service run as root (or as the wpp user): it
 * runs wpp with a clean environment, a fixed PATH, the settings of the env file and, for a
 * panel's hook, the event's own values; never what the caller's environment holds besides
 * (NODE_OPTIONS would run any file as root, WPP_* would point root at another data folder).
 * The launcher runs here as the real script with a stand-in package whose bin/wpp.js prints
 * what it was given.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOK_VARIABLES, launcherScript } from '../../src/install/common.js';
import { translateDirectAdminHook } from '../../src/panel/adapters/directadmin.js';
import { translatePleskEvent } from '../../src/panel/adapters/plesk.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

let dir: string;
let launcher: string;
let envFile: string;

beforeEach(() => {
  dir = createTempDir('wpp-launcher-');
  mkdirSync(join(dir, 'pkg/bin'), { recursive: true });
  writeFileSync(join(dir, 'pkg/bin/wpp.js'), 'process.stdout.write(JSON.stringify({ env: process.env, argv: process.argv.slice(2) }));\n');
  writeFileSync(join(dir, 'evil.cjs'), `require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'evil-ran'))}, 'yes');\n`);
  envFile = join(dir, 'env');
  writeFileSync(envFile, "WPP_DATA_DIR=/var/lib/wpp\nWPP_PROVIDER_API_KEY='key from the env file'\n", { mode: 0o600 });
  launcher = join(dir, 'wpp');
  writeFileSync(launcher, launcherScript({ nodePath: process.execPath, packageRoot: join(dir, 'pkg'), version: '9.9.9' }, { envFile }), {
    mode: 0o755,
  });
});
afterEach(() => removeTempDir(dir));

const CALLER = {
  PATH: '/home/alice/bin:/usr/bin:/bin',
  NODE_OPTIONS: '',
  WPP_PROVIDER_API_KEY: 'key from the caller',
  WPP_DATA_DIR: '/home/alice/wpp',
  WPP_PANEL_SECRET: 'a-secret-from-the-caller-0123456789',
  HOME: '/home/alice',
  LD_LIBRARY_PATH: '/home/alice/lib',
};

function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(launcher, args, {
    encoding: 'utf8',
    env: { ...CALLER, NODE_OPTIONS: `--require=${join(dir, 'evil.cjs')}`, ...env },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as { env: Record<string, string>; argv: string[] };
}

describe('the launcher', () => {
  it("passes none of the caller's environment: the env file's settings win, NODE_OPTIONS does not run", () => {
    const { env, argv } = run(['launch-url', '--account', 'alice b', 'X=1', '--', "it's"]);
    expect(existsSync(join(dir, 'evil-ran'))).toBe(false);
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(env.WPP_DATA_DIR).toBe('/var/lib/wpp');
    expect(env.WPP_PROVIDER_API_KEY).toBe('key from the env file');
    expect(env.WPP_PANEL_SECRET).toBeUndefined();
    expect(env.HOME).toBeUndefined();
    expect(env.LD_LIBRARY_PATH).toBeUndefined();
    expect(env.PATH).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    // Every argument exactly as given, even one that looks like an assignment.
    expect(argv).toEqual(['launch-url', '--account', 'alice b', 'X=1', '--', "it's"]);
  });

  it("passes a hook the panel's event values (Plesk NEW_*/OLD_*, DirectAdmin's user.conf names), and nothing else", () => {
    const plesk = run(['hook', 'plesk', 'client_create'], { NEW_LOGIN_NAME: 'jdoe', NEW_EMAIL: 'j@doe.example', NEW_FOO: 'x' });
    expect(plesk.env).toMatchObject({ NEW_LOGIN_NAME: 'jdoe', NEW_EMAIL: 'j@doe.example', WPP_DATA_DIR: '/var/lib/wpp' });
    expect(plesk.env.NODE_OPTIONS).toBeUndefined();
    expect(plesk.env.NEW_FOO).toBeUndefined();
    expect(plesk.argv).toEqual(['hook', 'plesk', 'client_create']);

    // The owner (`creator`) and the package item that says whether the package includes web protection come with user.conf.
    const da = run(['hook', 'directadmin', 'user_create_post'], {
      username: 'fred',
      domain: 'fred.example',
      package: 'gold plan',
      creator: 'res1',
      wpp_web_protection: 'OFF',
      plugins_deny: 'other:wpp',
    });
    expect(da.env).toMatchObject({
      username: 'fred',
      domain: 'fred.example',
      package: 'gold plan',
      creator: 'res1',
      wpp_web_protection: 'OFF',
      plugins_deny: 'other:wpp',
    });
    expect(da.env.WPP_PROVIDER_API_KEY).toBe('key from the env file');

    // A domain renamed: the new name is `newdomain` (DirectAdmin's domain_change_post).
    const renamed = run(['hook', 'directadmin', 'domain_change_post'], {
      username: 'bob',
      domain: 'bob.example',
      newdomain: 'bob-new.example',
    });
    expect(renamed.env).toMatchObject({ username: 'bob', domain: 'bob.example', newdomain: 'bob-new.example' });

    // Not a hook: the same names are not passed.
    expect(run(['launch-url', '--admin', 'root'], { NEW_LOGIN_NAME: 'jdoe', username: 'fred' }).env).not.toHaveProperty('username');
  });

  it('runs without an env file (before the first install wrote one)', () => {
    writeFileSync(envFile, '');
    const { env } = run(['version']);
    expect(env.WPP_DATA_DIR).toBeUndefined();
    // PWD is sh's own.
    expect(Object.keys(env).sort()).toEqual(['PATH', 'PWD']);
  });
});

describe('HOOK_VARIABLES', () => {
  const fixtures = (panel: string) =>
    readdirSync(new URL(`../fixtures/panels/${panel}/`, import.meta.url))
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(new URL(`../fixtures/panels/${panel}/${name}`, import.meta.url), 'utf8')));
  const only = (env: Record<string, string>, names: readonly string[]) =>
    Object.fromEntries(Object.entries(env).filter(([name]) => names.includes(name)));
  const now = new Date('2025-01-01T00:00:00Z');

  it('hold every value the Plesk and DirectAdmin adapters read: each fixture translates the same through the launcher', () => {
    // A subscription's status change acts on the websites the hook found: give it one, so its status is read.
    const websites = [{ domain: 'doe-shop.example', account: 'jdoe' }];
    for (const { event, env } of fixtures('plesk') as { event: string; env: Record<string, string> }[])
      expect(translatePleskEvent(event, only(env, HOOK_VARIABLES.plesk), now, 'jdoe', websites), event).toEqual(
        translatePleskEvent(event, env, now, 'jdoe', websites),
      );
    for (const { hook, env } of fixtures('directadmin') as { hook: string; env: Record<string, string> }[])
      expect(translateDirectAdminHook(hook, only(env, HOOK_VARIABLES.directadmin), now), hook).toEqual(
        translateDirectAdminHook(hook, env, now),
      );
  });
});
