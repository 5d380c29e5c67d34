import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCpanelHooks } from '../../src/panel/adapters/cpanel.js';
import { runWpp } from '../helpers/cli.js';
import { FAKE_CPANEL_FILES, fakeCpanelTools, registeredHookIds, registeredHooks, testLauncher } from '../helpers/fake-cpanel.js';
import { decoyCalls, decoyPath, fakeSystemctl, filesBelow, toolCalls } from '../helpers/fake-tools.js';
import { withTempDir } from '../helpers/temp.js';

const HOOK = '/usr/local/cpanel/3rdparty/bin/wpp-hook-cpanel';
const UPCP = '/usr/local/cpanel/3rdparty/bin/wpp-cpanel-upcp';
const PLUGIN = '/usr/local/lib/wpp/cpanel/plugin';
const DYNAMIC_UI = '/usr/local/cpanel/base/frontend/jupiter/dynamicui/dynamicui_wpp_web_protection.conf';
const TOOLS = ['manage_hooks', 'whmapi1', 'install_plugin', 'uninstall_plugin', 'register_appconfig', 'unregister_appconfig', 'systemctl'];
const WHMAPI1 = '/usr/local/cpanel/bin/whmapi1';

const FAKE_TOOLS = [
  '/usr/bin/systemctl',
  '/usr/local/cpanel/bin/manage_hooks',
  '/usr/local/cpanel/bin/whmapi1',
  '/usr/local/cpanel/scripts/install_plugin',
  '/usr/local/cpanel/scripts/uninstall_plugin',
  '/usr/local/cpanel/bin/register_appconfig',
  '/usr/local/cpanel/bin/unregister_appconfig',
  '/usr/local/cpanel/bin/is_registered_with_appconfig',
];

/** What the files installed: path -> mode. */
const INSTALLED = {
  '/etc/wpp/env': 0o640,
  '/usr/local/lib/wpp/wpp': 0o755,
  '/etc/systemd/system/wpp.service': 0o644,
  '/etc/systemd/system/wpp-panel-check.service': 0o644,
  '/etc/systemd/system/wpp-panel-check.timer': 0o644,
  [HOOK]: 0o755,
  [UPCP]: 0o755,
  [`${PLUGIN}/install.json`]: 0o644,
  [`${PLUGIN}/wpp.svg`]: 0o644,
  '/usr/local/cpanel/base/frontend/jupiter/wpp/index.live.php': 0o644,
  '/usr/local/cpanel/Cpanel/API/WebProtection.pm': 0o644,
  '/var/cpanel/perl/Cpanel/Admin/Modules/WebProtection/Launch.pm': 0o644,
  '/usr/local/lib/wpp/cpanel/wpp.conf': 0o644,
  '/usr/local/cpanel/whostmgr/docroot/cgi/wpp/index.cgi': 0o755,
};

/** What cPanel's tools made of the registrations (the fakes write them where cPanel does). */
const PANEL_MADE = {
  [DYNAMIC_UI]: 0o644,
  '/usr/local/cpanel/whostmgr/addonfeatures/wpp_web_protection': 0o644,
  '/var/cpanel/apps/wpp.conf': 0o644,
};

const expectedHooks = [
  ...describeCpanelHooks(HOOK).map((h) => `${h.category}::${h.event} ${h.stage} ${HOOK}`),
  `System::upcp post ${UPCP}`,
].sort();

function setUp(root: string) {
  fakeSystemctl(root);
  fakeCpanelTools(root);
  return { PATH: `${decoyPath(root, TOOLS)}:${process.env.PATH}` };
}

const ours = (root: string) => {
  const files = filesBelow(root, FAKE_CPANEL_FILES);
  for (const tool of FAKE_TOOLS) files.delete(tool);
  return files;
};
const calls = (root: string) => toolCalls(root).map((call) => call.join(' '));
const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');

describe('wpp install cpanel / wpp uninstall cpanel', () => {
  it('registers hooks, the update hook and both menu entries once, puts back what an update dropped, and uninstall leaves only the data', async () => {
    await withTempDir(async (root) => {
      const env = setUp(root);
      const first = await runWpp(['install', 'cpanel', '--root', root], { env });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('wpp is installed for cpanel');

      expect(Object.fromEntries(ours(root))).toEqual({ ...INSTALLED, ...PANEL_MADE, '/etc/wpp/install/cpanel.json': 0o600 });
      for (const path of Object.keys(INSTALLED)) expect(read(root, path), path).not.toContain('\r');
      for (const path of Object.keys(INSTALLED)) expect(read(root, path), path).not.toMatch(/\{\{[A-Z_]+\}\}/);
      expect(read(root, HOOK)).toContain(`exec '/usr/local/lib/wpp/wpp' hook cpanel "$@"`);
      expect(read(root, UPCP)).toContain(`'/usr/local/lib/wpp/wpp' install cpanel`);
      expect(JSON.parse(read(root, `${PLUGIN}/install.json`))).toEqual([
        expect.objectContaining({
          type: 'link',
          id: 'wpp_web_protection',
          group_id: 'security',
          uri: 'wpp/index.live.php',
          icon: 'wpp.svg',
          // Listed in WHM's Feature Manager: a package whose feature list lacks it hides the item (protection per package).
          featuremanager: true,
        }),
      ]);
      const appConfig = read(root, '/usr/local/lib/wpp/cpanel/wpp.conf');
      for (const line of ['name=wpp', 'service=whostmgr', 'user=root', 'url=/cgi/wpp/index.cgi', 'acls=any', 'entryurl=wpp/index.cgi'])
        expect(appConfig.split('\n')).toContain(line);

      expect(calls(root)).toEqual([
        '/usr/bin/systemctl daemon-reload',
        '/usr/bin/systemctl enable wpp.service',
        '/usr/bin/systemctl enable --now wpp-panel-check.timer',
        `/usr/local/cpanel/bin/manage_hooks add script ${HOOK}`,
        `${WHMAPI1} --output=json list_hooks`,
        `/usr/local/cpanel/bin/manage_hooks add script ${UPCP}`,
        `${WHMAPI1} --output=json list_hooks`,
        `/usr/local/cpanel/scripts/install_plugin ${PLUGIN} --theme=jupiter`,
        '/usr/local/cpanel/bin/register_appconfig /usr/local/lib/wpp/cpanel/wpp.conf',
      ]);
      // manage_hooks ran the real hook script's --describe: the adapter's list, and the update hook.
      expect(registeredHooks(root)).toEqual(expectedHooks);
      expect(read(root, DYNAMIC_UI)).toContain('group=>security');
      expect(read(root, '/var/cpanel/apps/wpp.conf')).toBe(appConfig);

      // Twice is once: only checks, no registration.
      const before = toolCalls(root).length;
      const second = await runWpp(['install', 'cpanel', '--root', root], { env });
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('Nothing to change: wpp is installed for cpanel.');
      expect(calls(root).slice(before)).toEqual([
        '/usr/bin/systemctl is-enabled --quiet wpp.service',
        '/usr/bin/systemctl is-enabled --quiet wpp-panel-check.timer',
        `${WHMAPI1} --output=json list_hooks`,
        `${WHMAPI1} --output=json list_hooks`,
        '/usr/local/cpanel/bin/is_registered_with_appconfig whostmgr wpp',
      ]);

      // A cPanel update that dropped the hooks and the menu entry: the update hook, run as cPanel
      // runs it (the event on standard input), registers them again through the install.
      rmSync(join(root, '.cpanel-hooks.json'));
      rmSync(join(root, DYNAMIC_UI));
      const script = read(root, UPCP).replaceAll('/usr/local/lib/wpp/wpp', testLauncher(root));
      const upcp = spawnSync('sh', ['-c', script, UPCP], {
        input: JSON.stringify({ context: { category: 'System', event: 'upcp', stage: 'post' }, data: {} }),
        encoding: 'utf8',
        env: { PATH: env.PATH },
      });
      expect(upcp.status).toBe(0);
      expect(upcp.stdout).toBe('1 wpp: checked after the cPanel update, anything the update dropped is registered again\n');
      expect(registeredHooks(root)).toEqual(expectedHooks);
      expect(read(root, DYNAMIC_UI)).toContain('url=>wpp/index.live.php');

      // Another vendor's hook on one of the same events: uninstall must leave it.
      const registry = join(root, '.cpanel-hooks.json');
      const withOther = JSON.parse(readFileSync(registry, 'utf8')) as Record<string, Record<string, object[]>>;
      withOther.Whostmgr?.['Accounts::Create']?.push({
        hook: '/usr/local/cpanel/3rdparty/bin/other-vendor',
        stage: 'post',
        exectype: 'script',
        id: 'OtherVendorHookId0000001',
        weight: 900,
      });
      writeFileSync(registry, JSON.stringify(withOther));
      // The ids WHM gave our hooks when the update hook registered them again (not those of the first install).
      const ids = [...registeredHookIds(root, UPCP), ...registeredHookIds(root, HOOK)];
      expect(ids).toHaveLength(expectedHooks.length);

      const installed = toolCalls(root).length;
      const removed = await runWpp(['uninstall', 'cpanel', '--root', root], { env });
      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain('The data stays in /var/lib/wpp and /etc/wpp');
      const undone = calls(root).slice(installed);
      expect(undone.slice(0, 2)).toEqual([
        '/usr/local/cpanel/bin/unregister_appconfig wpp',
        `/usr/local/cpanel/scripts/uninstall_plugin ${PLUGIN} --theme=jupiter`,
      ]);
      // Each hook deleted by the id WHM gave it (whmapi1 delete_hook), never by matching its fields.
      expect(undone.filter((call) => call.includes('delete')).sort()).toEqual(
        ids.map((id) => `${WHMAPI1} --output=json delete_hook id=${id}`).sort(),
      );
      expect(registeredHooks(root)).toEqual(['Whostmgr::Accounts::Create post /usr/local/cpanel/3rdparty/bin/other-vendor']);
      writeFileSync(registry, '{}');
      expect(undone.slice(-3)).toEqual([
        '/usr/bin/systemctl disable --now wpp.service',
        '/usr/bin/systemctl disable --now wpp-panel-check.timer',
        '/usr/bin/systemctl daemon-reload',
      ]);
      expect(registeredHooks(root)).toEqual([]);
      expect([...filesBelow(root, FAKE_CPANEL_FILES).keys()].filter((path) => !FAKE_TOOLS.includes(path))).toEqual(['/etc/wpp/env']);
      expect(decoyCalls(root)).toEqual([]);
    });
  }, 180_000);

  it('moves account removal from pre (where installs before 0.4.0 put it, blocking killacct) to post', async () => {
    await withTempDir(async (root) => {
      const env = setUp(root);
      expect((await runWpp(['install', 'cpanel', '--root', root], { env })).code).toBe(0);
      // The registry as an earlier install left it: Accounts::Remove at pre.
      const file = join(root, '.cpanel-hooks.json');
      const db = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, { stage: string; hook: string }[]>>;
      for (const hook of db.Whostmgr?.['Accounts::Remove'] ?? []) if (hook.hook === HOOK) hook.stage = 'pre';
      writeFileSync(file, JSON.stringify(db));
      expect(registeredHooks(root)).toContain(`Whostmgr::Accounts::Remove pre ${HOOK}`);

      const again = await runWpp(['install', 'cpanel', '--root', root], { env });
      expect(again.code).toBe(0);
      expect(registeredHooks(root)).toContain(`Whostmgr::Accounts::Remove post ${HOOK}`);
      expect(registeredHooks(root)).not.toContain(`Whostmgr::Accounts::Remove pre ${HOOK}`);
    });
  }, 120_000);

  it('--dry-run on a fresh server writes and registers nothing', async () => {
    await withTempDir(async (root) => {
      const env = setUp(root);
      const run = await runWpp(['install', 'cpanel', '--root', root, '--dry-run'], { env });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`would register  cpanel hooks: ${expectedHooks.length - 1} hook(s)`);
      expect(run.stdout).toContain('Dry run: nothing was changed');
      expect(ours(root).size).toBe(0);
      expect(toolCalls(root)).toEqual([]);
      expect(decoyCalls(root)).toEqual([]);
    });
  }, 60_000);
});
