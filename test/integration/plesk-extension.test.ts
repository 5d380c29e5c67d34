/**
 * The Plesk extension as installed: its page (htdocs/index.php -> IndexController) run with PHP
 * against a stub of Plesk's extension API, and its sbin script run for real with a fake
 * launcher. The page must take the user from the panel session only and redirect to the URL
 * the privileged call made for that user; the script must hand exactly that login to wpp.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { fakePlesk } from '../helpers/fake-plesk.js';
import { fakeSystemctl } from '../helpers/fake-tools.js';
import { runPhpPage } from '../helpers/php.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const PLIB = '/usr/local/psa/admin/plib/modules/wpp';
const HTDOCS = '/usr/local/psa/admin/htdocs/modules/wpp';
const SBIN = '/usr/local/psa/admin/sbin/modules/wpp';
const stub = readFileSync(new URL('../fixtures/panels/plesk/pm-stub.php', import.meta.url), 'utf8');

let root: string;
const installed = (path: string) => readFileSync(join(root, path), 'utf8');

beforeAll(async () => {
  root = createTempDir('wpp-plesk-ext-');
  fakePlesk(root);
  fakeSystemctl(root);
  const run = await runWpp(['install', 'plesk', '--root', root]);
  if (run.code !== 0) throw new Error(run.stderr);
}, 60_000);
afterAll(() => removeTempDir(root));

const ALICE_URL = 'https://panel.example:8443/launch?token=alice-token';
const BOB_URL = 'https://panel.example:8443/launch?token=bob-token';
const ADMIN_URL = 'https://panel.example:8443/launch?token=admin-token';
const answers = {
  'launch-url --account alice': { code: 0, stdout: `${ALICE_URL}\n`, stderr: '' },
  'launch-url --account bob': { code: 0, stdout: `${BOB_URL}\n`, stderr: '' },
  'launch-url --admin admin': { code: 0, stdout: `${ADMIN_URL}\n`, stderr: '' },
};

/** The page as Plesk serves it: Plesk's bootstrap (the stub) first, then the extension's htdocs/index.php. */
function openPage(session: { login: string; admin: boolean }, sbin: unknown, query = '') {
  return runPhpPage({
    scriptPath: '/plesk-bootstrap.php',
    files: {
      '/plesk-bootstrap.php': `<?php\nrequire '/pm-stub.php';\nrequire '${HTDOCS}/index.php';\n`,
      '/pm-stub.php': stub,
      [`${HTDOCS}/index.php`]: installed(`${HTDOCS}/index.php`),
      [`${PLIB}/controllers/IndexController.php`]: installed(`${PLIB}/controllers/IndexController.php`),
    },
    env: { STUB_SESSION: JSON.stringify(session), STUB_SBIN: JSON.stringify(sbin) },
    query,
  });
}

describe('the Plesk extension page', () => {
  it('redirects a signed-in customer to the URL made for their own login, whatever the query says', async () => {
    const page = await openPage({ login: 'alice', admin: false }, answers, 'account=bob&login=bob');
    expect(page.errors).toBe('');
    expect(page.status).toBe(302);
    expect(page.headers.location).toEqual([ALICE_URL]);
  }, 60_000);

  it('redirects the administrator to an admin launch URL', async () => {
    const page = await openPage({ login: 'admin', admin: true }, answers);
    expect(page.status).toBe(302);
    expect(page.headers.location).toEqual([ADMIN_URL]);
  }, 60_000);

  it('shows an error page, and redirects nowhere, when the privileged call fails or answers no URL', async () => {
    for (const sbin of [
      { 'launch-url --account carol': { code: 1, stdout: '', stderr: 'wpp: the plugin is not configured' } },
      { 'launch-url --account carol': { code: 0, stdout: 'not a url\n', stderr: '' } },
      'throw',
    ]) {
      const page = await openPage({ login: 'carol', admin: false }, sbin);
      expect(page.status).toBe(502);
      expect(page.headers.location).toBeUndefined();
      expect(page.body).toContain('Web Protection is not available');
      expect(page.body).not.toContain('not configured');
    }
  }, 120_000);
});

describe('the sbin script (run as root by Plesk for the extension only)', () => {
  let dir: string;
  let script: string;
  let log: string;

  beforeAll(() => {
    dir = createTempDir('wpp-plesk-sbin-');
    log = join(dir, 'launcher-calls');
    const launcher = join(dir, 'fake launcher');
    writeFileSync(
      launcher,
      `#!/bin/sh\nfor a in "$@"; do printf '[%s]' "$a"; done >> '${log}'\necho >> '${log}'\necho 'https://panel.example/launch?token=t'\n`,
    );
    chmodSync(launcher, 0o755);
    script = join(dir, 'launch-url');
    writeFileSync(script, installed(`${SBIN}/launch-url`).replaceAll(`'/usr/local/lib/wpp/wpp'`, `'${launcher}'`));
    chmodSync(script, 0o755);
  });
  afterAll(() => removeTempDir(dir));

  const run = (args: string[]) => spawnSync(script, args, { encoding: 'utf8' });
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);

  it('hands the login it was given to wpp launch-url as one argument, for a customer or the admin', () => {
    expect(run(['--account', 'alice']).stdout).toBe('https://panel.example/launch?token=t\n');
    expect(run(['--admin', 'admin']).status).toBe(0);
    expect(run(['--account', 'x; touch /tmp/owned $(id)']).status).toBe(0);
    expect(calls()).toEqual([
      '[launch-url][--panel][plesk][--account][alice]',
      '[launch-url][--panel][plesk][--admin][admin]',
      '[launch-url][--panel][plesk][--account][x; touch /tmp/owned $(id)]',
    ]);
  });

  it('refuses anything else without running wpp', () => {
    const before = calls().length;
    for (const args of [[], ['--account'], ['--account', 'a', 'b'], ['--domain', 'a.example'], ['alice', '--account']]) {
      const result = run(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('usage: launch-url --account LOGIN | --admin LOGIN');
    }
    expect(calls()).toHaveLength(before);
  });
});
