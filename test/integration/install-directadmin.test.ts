/**
 * `wpp install directadmin` and `wpp uninstall directadmin`: the real CLI against a temporary
 * root that holds a DirectAdmin skeleton (its binary, another vendor's hook scripts) and a fake
 * systemctl; then the installed pages and hook scripts run for real against a fake launcher.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIRECTADMIN_HOOKS } from '../../src/panel/adapters/directadmin.js';
import { runWpp } from '../helpers/cli.js';
import { decoyCalls, decoyPath, fakeSystemctl, fakeTool, filesBelow, toolCalls } from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const PLUGIN = '/usr/local/directadmin/plugins/wpp';
const CUSTOM = '/usr/local/directadmin/scripts/custom';
const VENDOR_SCRIPT = `${CUSTOM}/user_create_post.sh`;
const VENDOR_FOLDER_SCRIPT = `${CUSTOM}/domain_create_post/other-vendor.sh`;
const VENDOR_TEXT = '#!/bin/sh\r\n# another vendor, CRLF and all\r\necho vendor\r\n';

let root: string;
let decoys: string;

beforeEach(() => {
  root = createTempDir('wpp-install-da-');
  fakeSystemctl(root);
  fakeTool(root, '/usr/local/directadmin/directadmin');
  // DirectAdmin's admin data folder, where its custom package items are kept (none yet).
  mkdirSync(join(root, '/usr/local/directadmin/data/admin'), { recursive: true });
  mkdirSync(join(root, `${CUSTOM}/domain_create_post`), { recursive: true, mode: 0o700 });
  chmodSync(join(root, `${CUSTOM}/domain_create_post`), 0o700);
  writeFileSync(join(root, VENDOR_SCRIPT), VENDOR_TEXT, { mode: 0o700 });
  writeFileSync(join(root, VENDOR_FOLDER_SCRIPT), VENDOR_TEXT, { mode: 0o700 });
  decoys = decoyPath(root, ['systemctl', 'directadmin', 'da']);
});
afterEach(() => removeTempDir(root));

const wpp = (args: string[]) => runWpp([...args, '--root', root], { env: { PATH: `${decoys}:${process.env.PATH ?? ''}` } });
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const modeOf = (path: string) => statSync(join(root, path)).mode & 0o777;
const FAKE_TOOLS = { '/usr/bin/systemctl': 0o755, '/usr/local/directadmin/directadmin': 0o755 };
const VENDOR_FILES = { [VENDOR_SCRIPT]: 0o700, [VENDOR_FOLDER_SCRIPT]: 0o700 };
/** The custom package item wpp registers (protection per package); kept on uninstall, as the host's file. */
const PACKAGE_ITEMS = { '/usr/local/directadmin/data/admin/custom_package_items.conf': 0o644 };

const PLUGIN_FILES: Record<string, number> = {
  'plugin.conf': 0o644,
  'exec/redirect.sh': 0o644,
  'user/index.raw': 0o755,
  'user/index.html': 0o755,
  'user/menu.raw': 0o755,
  'admin/index.raw': 0o755,
  'admin/index.html': 0o755,
  'reseller/index.raw': 0o755,
  'reseller/index.html': 0o755,
  'hooks/user_txt.html': 0o644,
  'hooks/user_img.html': 0o644,
  'hooks/admin_txt.html': 0o644,
  'hooks/admin_img.html': 0o644,
  'hooks/reseller_txt.html': 0o644,
  'hooks/reseller_img.html': 0o644,
  'images/user_menu.json': 0o644,
  'images/admin_menu.json': 0o644,
  'images/reseller_menu.json': 0o644,
  'images/wpp.svg': 0o644,
  'scripts/install.sh': 0o755,
  'scripts/uninstall.sh': 0o755,
};

describe('wpp install directadmin', () => {
  it('writes the plugin folder and one hook script per event beside the other vendors, and leaves theirs alone', async () => {
    const run = await wpp(['install', 'directadmin']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const expected: Record<string, number> = {
      ...FAKE_TOOLS,
      ...VENDOR_FILES,
      '/etc/wpp/env': 0o640,
      '/usr/local/lib/wpp/wpp': 0o755,
      '/etc/systemd/system/wpp.service': 0o644,
      '/etc/systemd/system/wpp-panel-check.service': 0o644,
      '/etc/systemd/system/wpp-panel-check.timer': 0o644,
      '/etc/wpp/install/directadmin.json': 0o600,
      ...PACKAGE_ITEMS,
      ...Object.fromEntries(Object.entries(PLUGIN_FILES).map(([path, mode]) => [`${PLUGIN}/${path}`, mode])),
      ...Object.fromEntries(DIRECTADMIN_HOOKS.map((hook) => [`${CUSTOM}/${hook}/wpp.sh`, 0o755])),
    };
    expect(Object.fromEntries(filesBelow(root))).toEqual(expected);
    for (const path of Object.keys(expected).filter((p) => p.startsWith(PLUGIN) || p.includes('/wpp.sh'))) {
      expect(read(path), path).not.toContain('\r');
      expect(read(path), path).not.toContain('{{');
    }

    expect(read('/usr/local/directadmin/data/admin/custom_package_items.conf')).toBe(
      'wpp_web_protection=type=checkbox&string=Web Protection&desc=Websites of this package are protected by wpp&checked=yes\n',
    );
    const conf = read(`${PLUGIN}/plugin.conf`).split('\n');
    expect(conf).toEqual(
      expect.arrayContaining([
        'id=wpp',
        'name=Web protection',
        'version=0.4.0',
        'active=yes',
        'installed=yes',
        // The user's menu is a script (DirectAdmin's pluggable menus): it leaves the entry out when the package lacks protection.
        'menu_user=user/menu.raw',
        'menu_admin=images/admin_menu.json',
        'menu_reseller=images/reseller_menu.json',
      ]),
    );
    // Recent DirectAdmin refuses a plugin that asks to run as root ("must not be uid=0"): the pages run as the signed-in user.
    expect(conf.filter((line) => /_run_as=/.test(line))).toEqual([]);
    const menu = (level: string) => JSON.parse(read(`${PLUGIN}/images/${level}_menu.json`)) as { entries: { href: string }[] }[];
    expect(menu('user')[0]?.entries.map((e) => e.href)).toEqual(['/CMD_PLUGINS/wpp/index.raw']);
    expect(menu('admin')[0]?.entries.map((e) => e.href)).toEqual(['/CMD_PLUGINS_ADMIN/wpp/index.raw']);
    expect(read(`${PLUGIN}/hooks/user_txt.html`)).toContain('href="/CMD_PLUGINS/wpp/index.raw"');
    expect(read(`${PLUGIN}/hooks/admin_txt.html`)).toContain('href="/CMD_PLUGINS_ADMIN/wpp/index.raw"');
    // Resellers find the entry in their own menu (CMD_PLUGINS_RESELLER: reseller sessions only).
    expect(menu('reseller')[0]?.entries.map((e) => e.href)).toEqual(['/CMD_PLUGINS_RESELLER/wpp/index.raw']);
    expect(read(`${PLUGIN}/hooks/reseller_txt.html`)).toContain('href="/CMD_PLUGINS_RESELLER/wpp/index.raw"');
    expect(read(`${PLUGIN}/hooks/reseller_img.html`)).toContain('href="/CMD_PLUGINS_RESELLER/wpp/index.raw"');

    for (const hook of DIRECTADMIN_HOOKS) {
      expect(read(`${CUSTOM}/${hook}/wpp.sh`)).toContain(`\nexec '/usr/local/lib/wpp/wpp' hook directadmin ${hook}\n`);
    }
    // The other vendors' scripts, byte for byte, and their folder's own mode.
    expect(read(VENDOR_SCRIPT)).toBe(VENDOR_TEXT);
    expect(read(VENDOR_FOLDER_SCRIPT)).toBe(VENDOR_TEXT);
    expect(modeOf(`${CUSTOM}/domain_create_post`)).toBe(0o700);
    expect(modeOf(`${CUSTOM}/user_destroy_post`)).toBe(0o755);

    // Nothing to call for DirectAdmin: only the service and, as root, the scheduled comparison of its users.
    expect(toolCalls(root)).toEqual([
      ['/usr/bin/systemctl', 'daemon-reload'],
      ['/usr/bin/systemctl', 'enable', 'wpp.service'],
      ['/usr/bin/systemctl', 'enable', '--now', 'wpp-panel-check.timer'],
    ]);
    expect(read('/etc/systemd/system/wpp-panel-check.service')).toContain('ExecStart=/usr/local/lib/wpp/wpp import directadmin --if-due\n');
    expect(read('/etc/systemd/system/wpp-panel-check.service')).not.toMatch(/^User=/m);
    expect(read('/etc/systemd/system/wpp-panel-check.timer')).toContain('OnCalendar=hourly\n');
    expect(decoyCalls(root)).toEqual([]);
  });

  it('a second install changes nothing', async () => {
    expect((await wpp(['install', 'directadmin'])).code).toBe(0);
    const before = new Map([...filesBelow(root)].map(([path, mode]) => [path, `${mode}:${read(path)}`]));
    const calls = toolCalls(root).length;
    const again = await wpp(['install', 'directadmin']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to change: wpp is installed for directadmin.');
    expect(again.stdout).not.toMatch(/^(created|updated|registered|recorded) /m);
    expect(new Map([...filesBelow(root)].map(([path, mode]) => [path, `${mode}:${read(path)}`]))).toEqual(before);
    expect(toolCalls(root).slice(calls)).toEqual([
      ['/usr/bin/systemctl', 'is-enabled', '--quiet', 'wpp.service'],
      ['/usr/bin/systemctl', 'is-enabled', '--quiet', 'wpp-panel-check.timer'],
    ]);
  });

  it('--dry-run on a fresh root writes nothing and calls nothing', async () => {
    const run = await wpp(['install', 'directadmin', '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`would create  ${CUSTOM}/user_create_post/wpp.sh (0755)`);
    expect(Object.fromEntries(filesBelow(root))).toEqual({ ...FAKE_TOOLS, ...VENDOR_FILES });
    expect(existsSync(join(root, PLUGIN))).toBe(false);
    expect(toolCalls(root)).toEqual([]);
  });

  it('refuses where DirectAdmin is not installed, writing nothing', async () => {
    removeTempDir(join(root, '/usr/local/directadmin/directadmin'));
    const run = await wpp(['install', 'directadmin']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('DirectAdmin is not installed here (no /usr/local/directadmin/directadmin)');
    expect(Object.fromEntries(filesBelow(root))).toEqual({ '/usr/bin/systemctl': 0o755, ...VENDOR_FILES });
  });
});

describe('wpp uninstall directadmin', () => {
  it("removes the plugin and the hook scripts, keeps the other vendors' and the data", async () => {
    expect((await wpp(['install', 'directadmin'])).code).toBe(0);
    const calls = toolCalls(root).length;
    const run = await wpp(['uninstall', 'directadmin']);
    expect(run.code).toBe(0);
    expect(toolCalls(root).slice(calls)).toEqual([
      ['/usr/bin/systemctl', 'disable', '--now', 'wpp.service'],
      ['/usr/bin/systemctl', 'disable', '--now', 'wpp-panel-check.timer'],
      ['/usr/bin/systemctl', 'daemon-reload'],
    ]);
    expect(Object.fromEntries(filesBelow(root))).toEqual({ ...FAKE_TOOLS, ...VENDOR_FILES, ...PACKAGE_ITEMS, '/etc/wpp/env': 0o640 });
    expect(existsSync(join(root, PLUGIN))).toBe(false);
    expect(existsSync(join(root, `${CUSTOM}/user_destroy_post`))).toBe(false);
    // The vendor's folder stays (with its script), and so does DirectAdmin's own.
    expect(read(VENDOR_FOLDER_SCRIPT)).toBe(VENDOR_TEXT);
    expect(read(VENDOR_SCRIPT)).toBe(VENDOR_TEXT);
    expect(existsSync(join(root, '/usr/local/directadmin/plugins'))).toBe(true);
    expect(decoyCalls(root)).toEqual([]);
  });

  it('does not remove a folder another vendor had made, even when it ends up empty', async () => {
    removeTempDir(join(root, VENDOR_FOLDER_SCRIPT));
    expect((await wpp(['install', 'directadmin'])).code).toBe(0);
    expect((await wpp(['uninstall', 'directadmin'])).code).toBe(0);
    expect(existsSync(join(root, `${CUSTOM}/domain_create_post`))).toBe(true);
    expect(existsSync(join(root, `${CUSTOM}/domain_create_post/wpp.sh`))).toBe(false);
  });
});

describe('the installed pages and scripts, run with a fake launcher', () => {
  let copy: string;
  let launcherLog: string;

  /** The installed plugin folder, copied where nobody can read it too, its launcher path pointed at the fake. */
  beforeEach(async () => {
    expect((await wpp(['install', 'directadmin'])).code).toBe(0);
    copy = createTempDir('wpp-da-pages-');
    chmodSync(copy, 0o755);
    cpSync(join(root, PLUGIN), join(copy, 'wpp'), { recursive: true });
    cpSync(join(root, CUSTOM), join(copy, 'custom'), { recursive: true });
    launcherLog = join(copy, 'launcher.log');
    const launcher = join(copy, 'fake-launcher');
    writeFileSync(
      launcher,
      [
        '#!/bin/sh',
        // What the page hands over on standard input, one value a line, logged with the arguments.
        'input=$(tr "\\n" "," )',
        `printf '%s|' "$@" >> '${launcherLog}'; printf 'stdin=%s|username=%s\\n' "$input" "\${username-}" >> '${launcherLog}'`,
        'case "$input" in *",fail,"*) echo "wpp: no" >&2; exit 1 ;; *",inject,"*) printf "https://x/\\r\\nSet-Cookie: a=b\\n"; exit 0 ;; esac',
        'user=$(printf %s "$input" | cut -d, -f3)',
        // The menu's question: the package of "nopkg" lacks protection; "silent" gets an answer that is neither.
        'if [ "${2-}" = --menu ]; then case "$user" in nopkg) echo hidden ;; silent) echo maybe ;; *) echo shown ;; esac; exit 0; fi',
        'echo "https://panel.example:8443/launch?token=for-$user"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    for (const file of ['wpp/exec/redirect.sh', 'wpp/scripts/install.sh', 'wpp/scripts/uninstall.sh', 'custom/user_create_post/wpp.sh']) {
      const path = join(copy, file);
      const text = readFileSync(path, 'utf8');
      expect(text.split("'/usr/local/lib/wpp/wpp'").length, file).toBe(2);
      writeFileSync(path, text.replace("'/usr/local/lib/wpp/wpp'", `'${launcher}'`));
    }
  });
  afterEach(() => removeTempDir(copy));

  const launcherCalls = () => (existsSync(launcherLog) ? readFileSync(launcherLog, 'utf8').split('\n').filter(Boolean) : []);
  const page = (level: 'user' | 'admin' | 'reseller', env: Record<string, string>, as?: { uid: number; gid: number }) => {
    const result = spawnSync(join(copy, `wpp/${level}/index.raw`), [], { env: { PATH: '/usr/bin:/bin', ...env }, encoding: 'utf8', ...as });
    const [head = '', body = ''] = result.stdout.split('\r\n\r\n');
    const [status = '', ...headers] = head.split('\r\n');
    return { code: result.status, status, headers, body };
  };

  const SESSION = { SESSION_ID: 'sess0id0123456789', SESSION_KEY: 'sess0key0123456789' };

  it("hands a signed-in user's session to the launcher on standard input (never as an argument) and redirects to the URL it printed", () => {
    const answer = page('user', { USERNAME: 'alice', ...SESSION, SESSION_SELECTED_DOMAIN: 'alice.example' });
    expect(answer.code).toBe(0);
    expect(answer.status).toBe('HTTP/1.1 302 Found');
    expect(answer.headers).toContain('Location: https://panel.example:8443/launch?token=for-alice');
    expect(answer.headers).toContain('Cache-Control: no-store');
    expect(launcherCalls()).toEqual([
      'directadmin-launch|--account|stdin=sess0id0123456789,sess0key0123456789,alice,alice.example,|username=',
    ]);
  });

  it('runs as the DirectAdmin user, not root: plugin.conf no longer asks for root', () => {
    const answer = page('user', { USERNAME: 'alice', ...SESSION }, { uid: 65534, gid: 65534 });
    expect(answer.status).toBe('HTTP/1.1 302 Found');
    expect(answer.headers).toContain('Location: https://panel.example:8443/launch?token=for-alice');
  });

  it('a query string naming another user changes nothing', () => {
    const answer = page('user', { USERNAME: 'alice', ...SESSION, QUERY_STRING: 'USERNAME=bob&account=bob&username=bob', username: 'bob' });
    expect(answer.headers).toContain('Location: https://panel.example:8443/launch?token=for-alice');
    expect(launcherCalls()).toEqual(['directadmin-launch|--account|stdin=sess0id0123456789,sess0key0123456789,alice,,|username=bob']);
  });

  it("an admin's page asks for the admin pages", () => {
    const answer = page('admin', { USERNAME: 'admin', ...SESSION });
    expect(answer.status).toBe('HTTP/1.1 302 Found');
    expect(answer.headers).toContain('Location: https://panel.example:8443/launch?token=for-admin');
    expect(launcherCalls()).toEqual(['directadmin-launch|--admin|stdin=sess0id0123456789,sess0key0123456789,admin,,|username=']);
  });

  it("a reseller's page asks for the reseller pages, for the signed-in reseller whatever the query names", () => {
    const answer = page('reseller', { USERNAME: 'rita', ...SESSION, QUERY_STRING: 'USERNAME=rose&role=admin', username: 'rose' });
    expect(answer.status).toBe('HTTP/1.1 302 Found');
    expect(answer.headers).toContain('Location: https://panel.example:8443/launch?token=for-rita');
    expect(launcherCalls()).toEqual(['directadmin-launch|--reseller|stdin=sess0id0123456789,sess0key0123456789,rita,,|username=rose']);
    const html = spawnSync(join(copy, 'wpp/reseller/index.html'), [], { encoding: 'utf8' });
    expect(html.stdout).toContain('href="/CMD_PLUGINS_RESELLER/wpp/index.raw"');
  });

  it('without a user or a session DirectAdmin would set, the answer is an error and no redirect', () => {
    for (const env of <Record<string, string>[]>[
      {},
      { ...SESSION },
      { USERNAME: '', ...SESSION },
      { USERNAME: 'alice --admin x', ...SESSION },
      { USERNAME: '-alice', ...SESSION },
      { USERNAME: 'Alice$(id)', ...SESSION },
      { QUERY_STRING: 'USERNAME=bob', ...SESSION },
      { USERNAME: 'alice' },
      { USERNAME: 'alice', SESSION_ID: 'sess0id0123456789' },
      { USERNAME: 'alice', SESSION_ID: 'a\nb', SESSION_KEY: 'sess0key0123456789' },
      { USERNAME: 'alice', SESSION_ID: 'sess0id0123456789', SESSION_KEY: 'k$(id)' },
    ]) {
      const answer = page('user', env);
      expect(answer.status, JSON.stringify(env)).toBe('HTTP/1.1 403 Forbidden');
      expect(answer.headers.some((h) => h.startsWith('Location'))).toBe(false);
    }
    expect(launcherCalls()).toEqual([]);
  });

  it('a launcher that fails or prints more than a URL gives an error, never a header of its making', () => {
    for (const USERNAME of ['fail', 'inject']) {
      const answer = page('user', { USERNAME, ...SESSION });
      expect(answer.status).toBe('HTTP/1.1 503 Service Unavailable');
      expect(answer.headers.some((h) => /^(Location|Set-Cookie)/.test(h))).toBe(false);
    }
  });

  /** The user's Evolution menu as DirectAdmin runs it (plugin.conf menu_user): a RAW-mode answer whose body is the menu's JSON. */
  const userMenu = (env: Record<string, string>) => {
    const result = spawnSync(join(copy, 'wpp/user/menu.raw'), [], { env: { PATH: '/usr/bin:/bin', ...env }, encoding: 'utf8' });
    const [head = '', body = ''] = result.stdout.split('\r\n\r\n');
    return { code: result.status, head: head.split('\r\n'), menu: JSON.parse(body) as unknown };
  };
  const STATIC_MENU = () => JSON.parse(readFileSync(join(copy, 'wpp/images/user_menu.json'), 'utf8')) as unknown;

  it("the user's menu leaves the entry out when the plugin says the package lacks protection, and asks with the session on standard input", () => {
    const without = userMenu({ USERNAME: 'nopkg', ...SESSION });
    expect(without.code).toBe(0);
    expect(without.head).toEqual(['HTTP/1.1 200 OK', 'Content-Type: application/json', 'Cache-Control: no-store']);
    expect(without.menu).toEqual([]);
    const included = userMenu({ USERNAME: 'alice', ...SESSION, QUERY_STRING: 'USERNAME=nopkg' });
    expect(included.menu).toEqual(STATIC_MENU());
    expect(launcherCalls()).toEqual([
      'directadmin-launch|--menu|stdin=sess0id0123456789,sess0key0123456789,nopkg,,|username=',
      'directadmin-launch|--menu|stdin=sess0id0123456789,sess0key0123456789,alice,,|username=',
    ]);
  });

  it("the user's menu keeps the entry when the plugin cannot say (the page then decides), and asks nothing without DirectAdmin's session", () => {
    for (const USERNAME of ['fail', 'silent']) expect(userMenu({ USERNAME, ...SESSION }).menu, USERNAME).toEqual(STATIC_MENU());
    const before = launcherCalls().length;
    for (const env of <Record<string, string>[]>[{}, { USERNAME: 'alice' }, { USERNAME: 'Alice$(id)', ...SESSION }]) {
      expect(userMenu(env).menu, JSON.stringify(env)).toEqual(STATIC_MENU());
    }
    expect(launcherCalls()).toHaveLength(before);
  });

  it("the default entry links to the redirecting page; the hook scripts and the plugin manager's scripts run the launcher", () => {
    const html = spawnSync(join(copy, 'wpp/user/index.html'), [], { encoding: 'utf8' });
    expect(html.stdout).toContain('href="/CMD_PLUGINS/wpp/index.raw"');

    const hook = spawnSync(join(copy, 'custom/user_create_post/wpp.sh'), [], { env: { username: 'alice' }, encoding: 'utf8' });
    expect(hook.status).toBe(0);
    spawnSync(join(copy, 'wpp/scripts/uninstall.sh'), [], { encoding: 'utf8' });
    spawnSync(join(copy, 'wpp/scripts/install.sh'), [], { encoding: 'utf8' });
    expect(launcherCalls()).toEqual([
      'hook|directadmin|user_create_post|stdin=|username=alice',
      'uninstall|directadmin|stdin=|username=',
      'install|directadmin|stdin=|username=',
    ]);
  });
});

describe('wpp install directadmin: the package item', () => {
  it("adds its line after the host's own items, once however often installed, and leaves a host's own line of that name alone", async () => {
    const file = '/usr/local/directadmin/data/admin/custom_package_items.conf';
    writeFileSync(join(root, file), 'backup_plan=type=listbox&string=Backups&item1val=none&item1txt=None');
    expect((await wpp(['install', 'directadmin'])).code).toBe(0);
    expect((await wpp(['install', 'directadmin'])).code).toBe(0);
    expect(read(file).split('\n')).toEqual([
      'backup_plan=type=listbox&string=Backups&item1val=none&item1txt=None',
      'wpp_web_protection=type=checkbox&string=Web Protection&desc=Websites of this package are protected by wpp&checked=yes',
      '',
    ]);
    writeFileSync(join(root, file), 'wpp_web_protection=type=checkbox&string=Protection (ours)\n');
    expect((await wpp(['install', 'directadmin'])).code).toBe(0);
    expect(read(file)).toBe('wpp_web_protection=type=checkbox&string=Protection (ours)\n');
  });
});
