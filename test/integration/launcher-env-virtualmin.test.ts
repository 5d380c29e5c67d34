/**
 * The launcher's clean environment (`env -i`) for Virtualmin's change command: `hook virtualmin`
 * gets the VIRTUALSERVER_* values the adapter reads, and nothing else of the ~140 (plus the
 * caller's whole environment) Virtualmin hands over. Run as the real script, with a stand-in
 * package whose bin/wpp.js prints what it was given.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOK_VARIABLES, launcherScript } from '../../src/install/common.js';
import { translateVirtualminHook } from '../../src/panel/adapters/virtualmin.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

let dir: string;
let launcher: string;

beforeEach(() => {
  dir = createTempDir('wpp-launcher-vm-');
  mkdirSync(join(dir, 'pkg/bin'), { recursive: true });
  writeFileSync(join(dir, 'pkg/bin/wpp.js'), 'process.stdout.write(JSON.stringify({ env: process.env, argv: process.argv.slice(2) }));\n');
  const envFile = join(dir, 'env');
  writeFileSync(envFile, 'WPP_DATA_DIR=/var/lib/wpp\n', { mode: 0o600 });
  launcher = join(dir, 'wpp');
  writeFileSync(launcher, launcherScript({ nodePath: process.execPath, packageRoot: join(dir, 'pkg'), version: '9.9.9' }, { envFile }), {
    mode: 0o755,
  });
});
afterEach(() => removeTempDir(dir));

const captured = (name: string) =>
  (JSON.parse(readFileSync(new URL(`../fixtures/panels/virtualmin/${name}`, import.meta.url), 'utf8')) as { env: Record<string, string> })
    .env;

function run(args: string[], env: Record<string, string>) {
  const result = spawnSync(launcher, args, {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', NODE_OPTIONS: '--no-warnings', WPP_DATA_DIR: '/home/alice/wpp', ...env },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as { env: Record<string, string>; argv: string[] };
}

describe('the launcher and Virtualmin', () => {
  it("passes `hook virtualmin` the server's values it reads, not the passwords, leaked PARENT_/ALIAS_ values or the caller's settings", () => {
    const given = captured('delete-alias-cascade.json');
    const { env, argv } = run(['hook', 'virtualmin', 'post'], { ...given, VIRTUALSERVER_PASS: 'hunter2' });
    expect(argv).toEqual(['hook', 'virtualmin', 'post']);
    expect(env).toMatchObject({
      VIRTUALSERVER_ACTION: 'DELETE_DOMAIN',
      VIRTUALSERVER_DOM: 'cap-alias.example.net',
      VIRTUALSERVER_USER: 'cap-top',
      VIRTUALSERVER_ALIAS: given.VIRTUALSERVER_ALIAS,
      WPP_DATA_DIR: '/var/lib/wpp',
    });
    expect(
      Object.keys(env)
        .filter((name) => name.includes('VIRTUALSERVER'))
        .sort(),
    ).toEqual(HOOK_VARIABLES.virtualmin.filter((name) => given[name] !== undefined).sort());
    expect(env.VIRTUALSERVER_PASS).toBeUndefined();
    expect(env.ALIAS_VIRTUALSERVER_DOM).toBeUndefined();
    expect(env.NODE_OPTIONS).toBeUndefined();
  });

  it('passes a rename its old name (VIRTUALSERVER_OLDSERVER_DOM), and an empty value as empty', () => {
    const { env } = run(['hook', 'virtualmin'], captured('modify-rename-top-level.json'));
    expect(env).toMatchObject({
      VIRTUALSERVER_OLDSERVER_DOM: 'cap-top.example.com',
      VIRTUALSERVER_DOM: 'cap-renamed.example.com',
      VIRTUALSERVER_PARENT: '',
    });
  });

  it('passes a user rename its old user (VIRTUALSERVER_OLDSERVER_USER), and a disable what it disabled (VIRTUALSERVER_DISABLED, empty kept empty)', () => {
    const { env } = run(['hook', 'virtualmin', 'post'], captured('modify-user-top-level.json'));
    expect(env).toMatchObject({ VIRTUALSERVER_OLDSERVER_USER: 'cap-top', VIRTUALSERVER_USER: 'cap-new' });
    expect(run(['hook', 'virtualmin', 'post'], captured('disable-top-level.json')).env.VIRTUALSERVER_DISABLED).toBe('unix');
    expect(run(['hook', 'virtualmin', 'post'], captured('disable-alias.json')).env.VIRTUALSERVER_DISABLED).toBe('');
  });

  it('passes no VIRTUALSERVER_* value to anything but `hook virtualmin`', () => {
    const { env } = run(['hook', 'plesk', 'client_create'], captured('create-top-level.json'));
    expect(Object.keys(env).filter((name) => name.includes('VIRTUALSERVER'))).toEqual([]);
  });

  it('holds every value the adapter reads: each captured environment translates the same through the launcher', () => {
    const now = new Date('2026-11-26T04:24:10Z');
    const names = readdirSync(new URL('../fixtures/panels/virtualmin/', import.meta.url)).filter((name) => name.endsWith('.json'));
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const name of names) {
      const env = captured(name);
      const kept = Object.fromEntries(
        Object.entries(env).filter(([key]) => (HOOK_VARIABLES.virtualmin as readonly string[]).includes(key)),
      );
      expect(translateVirtualminHook('post', kept, now), name).toEqual(translateVirtualminHook('post', env, now));
    }
  });
});
