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
const RESELLER_URL = 'https://panel.example:8443/launch?token=res1-token';
const answers = {
  'launch-url --account alice': { code: 0, stdout: `${ALICE_URL}\n`, stderr: '' },
  'launch-url --account bob': { code: 0, stdout: `${BOB_URL}\n`, stderr: '' },
  'launch-url --admin admin': { code: 0, stdout: `${ADMIN_URL}\n`, stderr: '' },
  'launch-url --reseller res1': { code: 0, stdout: `${RESELLER_URL}\n`, stderr: '' },
  'launch-url --reseller res2': { code: 0, stdout: `${RESELLER_URL}-res2\n`, stderr: '' },
};

/** A subscription as the session sees it: whether the signed-in user may open it and what their role allows there. */
interface Subscription {
  id: number;
  name: string;
  access: boolean;
  permissions: string[];
  /** What the subscription's plan says of the permission Web Protection; absent: no stored value. */
  protection?: boolean | 'true' | 'false';
}
/** What pm_Session::getClient() answers (see the stub): the panel user type and, for a customer, the subscriptions. */
interface PleskSession {
  login: string;
  type: 'admin' | 'reseller' | 'client';
  subscriptions?: Subscription[];
  /** hasCorePermission() throws, as a pm_ call may. */
  permissionsFail?: boolean;
  /** The customer an administrator or reseller is signed in as ("Log in as Customer"): pm_Session::isImpersonated(). */
  impersonated?: PleskSession;
}

const MANAGE_WEBSITES = 'webSitesAndDomainsManagement';
const subscription = (id: number, name: string, permissions: string[] = [MANAGE_WEBSITES, 'filesManagement'], access = true) => ({
  id,
  name,
  access,
  permissions,
});
/** alice herself: two subscriptions, every permission. */
const ALICE: PleskSession = {
  login: 'alice',
  type: 'client',
  subscriptions: [subscription(11, 'alice-shop.example'), subscription(12, 'alice-blog.example')],
};

/** The page as Plesk serves it: Plesk's bootstrap (the stub) first, then the extension's htdocs/index.php. */
function openPage(session: PleskSession, sbin: unknown, query = '', locale?: string) {
  return runPhpPage({
    scriptPath: '/plesk-bootstrap.php',
    files: {
      '/plesk-bootstrap.php': `<?php\nrequire '/pm-stub.php';\nrequire '${HTDOCS}/index.php';\n`,
      '/pm-stub.php': stub,
      [`${HTDOCS}/index.php`]: installed(`${HTDOCS}/index.php`),
      [`${PLIB}/controllers/IndexController.php`]: installed(`${PLIB}/controllers/IndexController.php`),
    },
    env: {
      STUB_SESSION: JSON.stringify(session),
      STUB_SBIN: JSON.stringify(sbin),
      ...(locale === undefined ? {} : { STUB_LOCALE: locale }),
    },
    query,
  });
}

describe('the Plesk extension page', () => {
  it('redirects a signed-in customer to the URL made for their own login, whatever the query says', async () => {
    const page = await openPage(ALICE, answers, 'account=bob&login=bob');
    expect(page.errors).toBe('');
    expect(page.status).toBe(302);
    expect(page.headers.location).toEqual([ALICE_URL]);
    expect(page.headers['x-stub-sbin']).toEqual(['launch-url --account alice']);
  }, 60_000);

  it("passes the user's Plesk language to wpp, and nothing that is not a language tag", async () => {
    const german = { 'launch-url --account alice --lang de-DE': { code: 0, stdout: `${ALICE_URL}\n`, stderr: '' } };
    const page = await openPage(ALICE, german, '', 'de-DE');
    expect(page.status).toBe(302);
    expect(page.headers['x-stub-sbin']).toEqual(['launch-url --account alice --lang de-DE']);
    const junk = await openPage(ALICE, answers, '', 'de-DE; rm -rf /');
    expect(junk.headers['x-stub-sbin']).toEqual(['launch-url --account alice']);
  }, 60_000);

  it('redirects the administrator to an admin launch URL', async () => {
    const page = await openPage({ login: 'admin', type: 'admin' }, answers);
    expect(page.status).toBe(302);
    expect(page.headers.location).toEqual([ADMIN_URL]);
    expect(page.headers['x-stub-sbin']).toEqual(['launch-url --admin admin']);
  }, 60_000);

  it('redirects a signed-in reseller to the reseller pages made for their own login, whatever the query says', async () => {
    const page = await openPage({ login: 'res1', type: 'reseller' }, answers, 'reseller=res2&login=res2&role=admin&admin=admin');
    expect(page.errors).toBe('');
    expect(page.status).toBe(302);
    expect(page.headers.location).toEqual([RESELLER_URL]);
    expect(page.headers['x-stub-sbin']).toEqual(['launch-url --reseller res1']);
  }, 60_000);

  it('gives a customer their own pages, never the reseller or admin pages, whatever the query asks for', async () => {
    const page = await openPage(ALICE, answers, 'role=reseller&reseller=res1&admin=admin');
    expect(page.status).toBe(302);
    expect(page.headers.location).toEqual([ALICE_URL]);
    expect(page.headers['x-stub-sbin']).toEqual(['launch-url --account alice']);
  }, 60_000);

  it("opens the customer's pages for an administrator or a reseller signed in as that customer (Log in as Customer)", async () => {
    for (const who of [
      { login: 'admin', type: 'admin' },
      { login: 'res1', type: 'reseller' },
    ] as const) {
      const page = await openPage({ ...who, impersonated: ALICE }, answers);
      expect(page.errors, who.type).toBe('');
      expect(page.status, who.type).toBe(302);
      expect(page.headers.location, who.type).toEqual([ALICE_URL]);
      expect(page.headers['x-stub-sbin'], who.type).toEqual(['launch-url --account alice']);
    }
  }, 120_000);

  it('refuses a customer signed in as by an administrator when the customer has no subscription, and makes no URL', async () => {
    const page = await openPage(
      { login: 'admin', type: 'admin', impersonated: { login: 'bob', type: 'client', subscriptions: [] } },
      answers,
    );
    expect(page.status).toBe(403);
    expect(page.headers['x-stub-sbin']).toBeUndefined();
    expect(page.body).toContain('This account has no hosting subscription');
  }, 60_000);

  it("gives an additional user who may manage websites on every subscription the customer's pages", async () => {
    // An additional user of alice signs in as part of alice's account: getClient() is alice.
    const page = await openPage(
      {
        ...ALICE,
        subscriptions: [
          subscription(11, 'alice-shop.example', [MANAGE_WEBSITES]),
          subscription(12, 'alice-blog.example', [MANAGE_WEBSITES]),
        ],
      },
      answers,
    );
    expect(page.status).toBe(302);
    expect(page.headers.location).toEqual([ALICE_URL]);
    expect(page.headers['x-stub-sbin']).toEqual(['launch-url --account alice']);
  }, 60_000);

  it('refuses an additional user whose role may not manage websites, or not on every subscription, and makes no URL', async () => {
    const cases: Record<string, Subscription[]> = {
      'a role without website management (e.g. mail only)': [
        subscription(11, 'alice-shop.example', ['mailManagement']),
        subscription(12, 'alice-blog.example', ['mailManagement']),
      ],
      'website management on one subscription only': [
        subscription(11, 'alice-shop.example', [MANAGE_WEBSITES]),
        subscription(12, 'alice-blog.example', ['mailManagement']),
      ],
      'access to one of the subscriptions only': [
        subscription(11, 'alice-shop.example', [MANAGE_WEBSITES]),
        subscription(12, 'alice-blog.example', [MANAGE_WEBSITES], false),
      ],
    };
    for (const [why, subscriptions] of Object.entries(cases)) {
      const page = await openPage({ ...ALICE, subscriptions }, answers);
      expect(page.status, why).toBe(403);
      expect(page.headers.location, why).toBeUndefined();
      expect(page.headers['x-stub-sbin'], why).toBeUndefined();
      expect(page.body, why).toContain('Your Plesk user may not manage every website of this account');
    }
  }, 120_000);

  it('refuses a customer without a hosting subscription, and makes no URL', async () => {
    const page = await openPage({ login: 'alice', type: 'client', subscriptions: [] }, answers);
    expect(page.status).toBe(403);
    expect(page.headers['x-stub-sbin']).toBeUndefined();
    expect(page.body).toContain('This account has no hosting subscription');
  }, 60_000);

  it('shows the error page, and makes no URL, when Plesk cannot say what the user may do', async () => {
    const page = await openPage({ ...ALICE, permissionsFail: true }, answers);
    expect(page.status).toBe(502);
    expect(page.headers['x-stub-sbin']).toBeUndefined();
    expect(page.body).toContain('Web Protection is not available');
  }, 60_000);

  it('shows an error page, and redirects nowhere, when the privileged call fails or answers no URL', async () => {
    const carol: PleskSession = { login: 'carol', type: 'client', subscriptions: [subscription(31, 'carol.example')] };
    for (const sbin of [
      { 'launch-url --account carol': { code: 1, stdout: '', stderr: 'wpp: the plugin is not configured' } },
      { 'launch-url --account carol': { code: 0, stdout: 'not a url\n', stderr: '' } },
      'throw',
    ]) {
      const page = await openPage(carol, sbin);
      expect(page.status).toBe(502);
      expect(page.headers.location).toBeUndefined();
      expect(page.body).toContain('Web Protection is not available');
      expect(page.body).not.toContain('not configured');
    }
  }, 120_000);
});

/**
 * The menu entries as Plesk shows them to a session: getButtons(), then each button's `visibility`
 * callback (pm_Hook_CustomButtons' documented key), as Plesk calls it, decides whether it is shown.
 */
async function menuFor(session: PleskSession | null) {
  const page = await runPhpPage({
    scriptPath: '/buttons.php',
    files: {
      '/buttons.php': [
        '<?php',
        "require '/pm-stub.php';",
        "pm_Context::init('wpp');",
        `require '${PLIB}/hooks/CustomButtons.php';`,
        '$hook = new Modules_Wpp_CustomButtons();',
        "$shown = array_filter($hook->getButtons(), function ($b) { return !isset($b['visibility']) || call_user_func($b['visibility'], []); });",
        "echo json_encode(array_values(array_map(function ($b) { return [$b['place'], $b['link']]; }, $shown)));",
        '',
      ].join('\n'),
      '/pm-stub.php': stub,
      [`${PLIB}/hooks/CustomButtons.php`]: installed(`${PLIB}/hooks/CustomButtons.php`),
    },
    env: session === null ? {} : { STUB_SESSION: JSON.stringify(session) },
  });
  expect(page.errors).toBe('');
  return JSON.parse(page.body) as [number, string][];
}

// 7, 12, 13: PLACE_HOSTING_PANEL_NAVIGATION, PLACE_ADMIN_NAVIGATION, PLACE_RESELLER_NAVIGATION (Plesk's stubs).
const EVERY_ENTRY = [
  [7, '/modules/wpp/'],
  [12, '/modules/wpp/'],
  [13, '/modules/wpp/'],
];
const WITHOUT_CUSTOMER_ENTRY = EVERY_ENTRY.filter(([place]) => place !== 7);
const withProtection = (protection: boolean | 'true' | 'false' | undefined, id: number, name: string) => ({
  ...subscription(id, name),
  ...(protection === undefined ? {} : { protection }),
});

describe('the menu entries (plib/hooks/CustomButtons.php)', () => {
  it("puts Web Protection in the customer's, the reseller's and the administrator's navigation, each opening the extension's own page", async () => {
    expect(await menuFor(ALICE)).toEqual(EVERY_ENTRY);
    expect(await menuFor({ login: 'admin', type: 'admin' })).toEqual(EVERY_ENTRY);
    expect(await menuFor({ login: 'res1', type: 'reseller' })).toEqual(EVERY_ENTRY);
  }, 60_000);

  it("hides the customer's entry when no subscription's service plan includes the permission Web Protection", async () => {
    const without: PleskSession = {
      login: 'bob',
      type: 'client',
      // pm_Domain::hasPermission() is documented to return "mixed": Plesk keeps plan permissions as 'true'/'false'.
      subscriptions: [withProtection(false, 21, 'bob-shop.example'), withProtection('false', 22, 'bob-blog.example')],
    };
    expect(await menuFor(without)).toEqual(WITHOUT_CUSTOMER_ENTRY);
    // The same customer seen by an administrator or reseller signed in as them ("Log in as Customer").
    expect(await menuFor({ login: 'admin', type: 'admin', impersonated: without })).toEqual(WITHOUT_CUSTOMER_ENTRY);
    expect(await menuFor({ login: 'res1', type: 'reseller', impersonated: without })).toEqual(WITHOUT_CUSTOMER_ENTRY);
    // No subscription at all: nothing to protect (the page would refuse too).
    expect(await menuFor({ login: 'carol', type: 'client', subscriptions: [] })).toEqual(WITHOUT_CUSTOMER_ENTRY);
  }, 120_000);

  it("shows the customer's entry when any subscription includes it, or a plan has no stored value (the permission's default, on)", async () => {
    const cases: Record<string, Subscription[]> = {
      'one of two subscriptions includes it': [withProtection(false, 21, 'bob-shop.example'), withProtection(true, 22, 'bob-blog.example')],
      'a plan saved before the extension (no value)': [
        withProtection(false, 21, 'bob-shop.example'),
        withProtection(undefined, 22, 'bob-blog.example'),
      ],
    };
    for (const [why, subscriptions] of Object.entries(cases)) {
      expect(await menuFor({ login: 'bob', type: 'client', subscriptions }), why).toEqual(EVERY_ENTRY);
    }
    const included: PleskSession = { login: 'bob', type: 'client', subscriptions: [withProtection(true, 21, 'bob-shop.example')] };
    expect(await menuFor({ login: 'admin', type: 'admin', impersonated: included })).toEqual(EVERY_ENTRY);
  }, 120_000);

  it('keeps the entry when Plesk cannot say what the plans include: the page then decides', async () => {
    expect(await menuFor({ ...ALICE, permissionsFail: true })).toEqual(EVERY_ENTRY);
  }, 60_000);
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
    expect(run(['--admin', 'admin', '--lang', 'es-ES']).status).toBe(0);
    expect(run(['--reseller', 'res1']).status).toBe(0);
    expect(run(['--reseller', 'res1', '--lang', 'de-DE']).status).toBe(0);
    expect(calls()).toEqual([
      '[launch-url][--panel][plesk][--account][alice]',
      '[launch-url][--panel][plesk][--admin][admin]',
      '[launch-url][--panel][plesk][--account][x; touch /tmp/owned $(id)]',
      '[launch-url][--panel][plesk][--admin][admin][--lang][es-ES]',
      '[launch-url][--panel][plesk][--reseller][res1]',
      '[launch-url][--panel][plesk][--reseller][res1][--lang][de-DE]',
    ]);
  });

  it('refuses anything else without running wpp', () => {
    const before = calls().length;
    for (const args of [
      [],
      ['--account'],
      ['--account', 'a', 'b'],
      ['--domain', 'a.example'],
      ['alice', '--account'],
      ['--account', 'a', '--admin', 'b'],
      ['--account', 'a', '--lang', 'de', 'x'],
      ['--reseller'],
      ['--reseller', 'a', '--account', 'b'],
    ]) {
      const result = run(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('usage: launch-url --account LOGIN | --admin LOGIN | --reseller LOGIN');
    }
    expect(calls()).toHaveLength(before);
  });
});

describe('the service-plan permission (plib/hooks/Permissions.php)', () => {
  it('registers Web Protection as a main permission of every service plan, on by default, under the id Plesk stores as wpp_web_protection', async () => {
    const page = await runPhpPage({
      scriptPath: '/permissions.php',
      files: {
        '/permissions.php': `<?php\nrequire '/pm-stub.php';\nrequire '${PLIB}/hooks/Permissions.php';\n$hook = new Modules_Wpp_Permissions();\necho json_encode($hook->getPermissions());\n`,
        '/pm-stub.php': stub,
        [`${PLIB}/hooks/Permissions.php`]: installed(`${PLIB}/hooks/Permissions.php`),
      },
    });
    expect(page.errors).toBe('');
    const permissions = JSON.parse(page.body) as Record<string, Record<string, unknown>>;
    // Plesk puts the extension's id in front: 'web_protection' of extension 'wpp' is wpp_web_protection in TmplData.
    expect(Object.keys(permissions)).toEqual(['web_protection']);
    expect(permissions.web_protection).toMatchObject({ default: true, place: 'main', name: 'Web Protection' });
    expect(permissions.web_protection?.description).toMatch(/not protected/);
  }, 60_000);
});
