import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTING_DEFAULTS, SETTING_NAMES } from '../../src/config.js';
import { INSTALL_TARGETS, INSTALLERS } from '../../src/install/panels.js';
import { VIRTUALMIN_HOOK_COMMAND } from '../../src/install/virtualmin.js';
import { currentInstallSource } from '../../src/install/source.js';
import { manifestSchema } from '../../src/manifest.js';
import { describeCpanelHooks } from '../../src/panel/adapters/cpanel.js';
import { DIRECTADMIN_HOOKS } from '../../src/panel/adapters/directadmin.js';
import { PLESK_EVENTS } from '../../src/panel/adapters/plesk.js';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('plugin.json', () => {
  const manifest = manifestSchema.parse(read('plugin.json'));

  it('carries the package version and points at files that exist', () => {
    expect(manifest.version).toBe(read('package.json').version);
    for (const entry of Object.values(manifest.entryPoints)) {
      if (/^(GET|POST|PUT) \//.test(entry)) continue;
      const file = entry.split(' ')[0] ?? '';
      expect(existsSync(new URL(`../../${file}`, import.meta.url)), entry).toBe(true);
    }
  });

  it('lists every setting of the config schema, with its default, and no other', () => {
    expect(manifest.settings.map((setting) => setting.key)).toEqual(SETTING_NAMES);
    const stated = manifest.settings.filter((setting) => setting.default !== undefined).map((setting) => [setting.key, setting.default]);
    expect(Object.fromEntries(stated)).toEqual(SETTING_DEFAULTS);
  });

  it('gives each setting the type the config schema reads', () => {
    const machine = { hostname: 'web1', primaryIp: undefined };
    const accepts = (key: string, value: string) =>
      expect(() => loadConfig({ [key]: value }, machine, 'standalone'), `${key}=${value}`).not.toThrow();
    const refuses = (key: string, value: string) =>
      expect(() => loadConfig({ [key]: value }, machine, 'standalone'), `${key}=${value}`).toThrow(key);
    for (const setting of manifest.settings) {
      for (const value of setting.enum ?? []) accepts(setting.key, value);
      if (setting.enum) refuses(setting.key, 'none-of-these');
      if (setting.type === 'integer') {
        accepts(setting.key, '7');
        refuses(setting.key, '7.5');
      }
      if (setting.type === 'boolean') {
        accepts(setting.key, 'false');
        refuses(setting.key, 'maybe');
      }
      if (setting.type === 'url') {
        accepts(setting.key, 'https://plugin.example');
        refuses(setting.key, 'ftp://plugin.example');
      }
    }
  });

  it('lists only settings the configuration reference documents, each in its settings table', () => {
    const reference = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const rows = reference.split('\n').filter((line) => line.startsWith('| `WPP_'));
    for (const setting of manifest.settings)
      expect(
        rows.some((row) => (row.split(' | ')[0] ?? '').includes(`\`${setting.key}\``)),
        setting.key,
      ).toBe(true);
  });

  it('lists the installers wpp has, and the hooks each registers, with the command the panel runs', () => {
    expect(manifest.install.map((entry) => entry.panel).sort()).toEqual([...INSTALL_TARGETS].sort());
    const hooks = (panel: string) =>
      manifest.hooks.filter((hook) => hook.panel === panel).map((h) => `${h.event} ${h.stage ?? ''} ${h.command}`);
    const hookScript = '/usr/local/cpanel/3rdparty/bin/wpp-hook-cpanel';
    expect(hooks('cpanel')).toEqual([
      ...describeCpanelHooks(hookScript).map((h) => `${h.category}::${h.event} ${h.stage} ${hookScript}`),
      'System::upcp post /usr/local/cpanel/3rdparty/bin/wpp-cpanel-upcp',
    ]);
    expect(hooks('plesk')).toEqual(PLESK_EVENTS.map((event) => `${event}  /usr/local/lib/wpp/wpp hook plesk ${event}`));
    expect(hooks('directadmin')).toEqual(
      DIRECTADMIN_HOOKS.map((hook) => `${hook} post /usr/local/directadmin/scripts/custom/${hook}/wpp.sh`),
    );
    // Virtualmin holds one post-change command: the launcher's hook, registered by the installer.
    expect(hooks('virtualmin')).toEqual([`post_command post ${VIRTUALMIN_HOOK_COMMAND}`]);
    // Each hook command is a file the panel's installer writes (Plesk's and Virtualmin's run the launcher).
    for (const panel of ['cpanel', 'directadmin', 'plesk', 'virtualmin'] as const) {
      const files = INSTALLERS[panel](currentInstallSource(), { panel }).artefacts.flatMap((a) => (a.kind === 'file' ? [a.path] : []));
      for (const hook of manifest.hooks.filter((h) => h.panel === panel)) expect(files, hook.command).toContain(hook.command.split(' ')[0]);
    }
  });

  it("names each panel's menu entries by a page its installer writes", () => {
    for (const entry of manifest.menu.filter((m) => m.panel !== undefined)) {
      const panel = entry.panel as keyof typeof INSTALLERS;
      const files = INSTALLERS[panel](currentInstallSource(), { panel }).artefacts.flatMap((a) => (a.kind === 'file' ? [a.path] : []));
      const page = entry.path
        .replace('/CMD_PLUGINS_ADMIN/wpp/', 'wpp/admin/')
        .replace('/CMD_PLUGINS/wpp/', 'wpp/user/')
        .replace(/\/$/, '/index.php');
      expect(
        files.some((file) => file.endsWith(page)),
        `${entry.id}: ${entry.path}`,
      ).toBe(true);
    }
  });
});
