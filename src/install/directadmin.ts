/**
 * `wpp install directadmin`: the plugin folder DirectAdmin reads (/usr/local/directadmin/plugins/wpp:
 * plugin.conf, the user, reseller and admin pages, the legacy skins' menu links, the Evolution menus, the
 * plugin manager's scripts) and one hook script per event in scripts/custom/<hook>/wpp.sh. The
 * shared scripts/custom/<hook>.sh other vendors write is never touched: DirectAdmin 1.60+ runs
 * every script in the <hook>/ folder as well. No tool call is documented for making DirectAdmin
 * see a plugin: its plugin manager leaves exactly such a folder, plugin.conf saying active=yes
 * and installed=yes, and the pages, menus and hook folders are read from it as they are.
 */
import { DIRECTADMIN_HOOKS } from '../panel/adapters/directadmin.js';
import type { Artefact, InstallPlan } from './artefacts.js';
import { commonArtefacts, commonNextSteps, shellQuote, type InstallSettings, type InstallSource } from './common.js';
import { shippedFile } from './shipped-file.js';
import { LAYOUT } from './layout.js';

export const DIRECTADMIN = {
  binary: '/usr/local/directadmin/directadmin',
  pluginDir: '/usr/local/directadmin/plugins/wpp',
  customScripts: '/usr/local/directadmin/scripts/custom',
} as const;

/** The plugin's files as shipped in panels/directadmin/, with the mode each is installed with. */
const PLUGIN_FILES: { path: string; mode: number }[] = [
  { path: 'plugin.conf', mode: 0o644 },
  { path: 'exec/redirect.sh', mode: 0o644 },
  { path: 'user/index.raw', mode: 0o755 },
  { path: 'user/index.html', mode: 0o755 },
  { path: 'admin/index.raw', mode: 0o755 },
  { path: 'admin/index.html', mode: 0o755 },
  { path: 'reseller/index.raw', mode: 0o755 },
  { path: 'reseller/index.html', mode: 0o755 },
  { path: 'hooks/user_txt.html', mode: 0o644 },
  { path: 'hooks/user_img.html', mode: 0o644 },
  { path: 'hooks/admin_txt.html', mode: 0o644 },
  { path: 'hooks/admin_img.html', mode: 0o644 },
  { path: 'hooks/reseller_txt.html', mode: 0o644 },
  { path: 'hooks/reseller_img.html', mode: 0o644 },
  { path: 'images/user_menu.json', mode: 0o644 },
  { path: 'images/admin_menu.json', mode: 0o644 },
  { path: 'images/reseller_menu.json', mode: 0o644 },
  { path: 'images/wpp.svg', mode: 0o644 },
  { path: 'scripts/install.sh', mode: 0o755 },
  { path: 'scripts/uninstall.sh', mode: 0o755 },
];

export const directadminHookScript = (hook: string) => `${DIRECTADMIN.customScripts}/${hook}/wpp.sh`;

export function directadminPlan(source: InstallSource, settings: InstallSettings): InstallPlan {
  // The launcher goes into the scripts single-quoted; shellQuote refuses a path that would need more.
  const values = { VERSION: source.version, LAUNCHER: shellQuote(LAYOUT.launcher).slice(1, -1) };
  const folders = [...new Set(PLUGIN_FILES.map((f) => f.path.split('/').slice(0, -1).join('/')).filter(Boolean))];
  const artefacts: Artefact[] = [
    ...commonArtefacts(source, settings),
    { kind: 'directory', path: DIRECTADMIN.pluginDir, mode: 0o755 },
    ...folders.map((folder): Artefact => ({ kind: 'directory', path: `${DIRECTADMIN.pluginDir}/${folder}`, mode: 0o755 })),
    ...PLUGIN_FILES.map((file): Artefact => ({
      kind: 'file',
      path: `${DIRECTADMIN.pluginDir}/${file.path}`,
      mode: file.mode,
      content: shippedFile(`directadmin/${file.path}`, values),
    })),
    ...DIRECTADMIN_HOOKS.flatMap((hook): Artefact[] => [
      { kind: 'directory', path: `${DIRECTADMIN.customScripts}/${hook}`, mode: 0o755, shared: true },
      {
        kind: 'file',
        path: directadminHookScript(hook),
        mode: 0o755,
        content: shippedFile('directadmin/hook.sh', { ...values, HOOK: hook }),
      },
    ]),
  ];
  return {
    panel: 'directadmin',
    requires: [
      {
        path: DIRECTADMIN.binary,
        missing: `DirectAdmin is not installed here (no ${DIRECTADMIN.binary}): nothing was written. On another panel, use its installer or \`wpp install systemd\`.`,
      },
    ],
    artefacts,
    nextSteps: [
      ...commonNextSteps,
      'DirectAdmin shows "Web protection" in the user, reseller and admin menus (Evolution and the legacy skins). The pages run as the signed-in user and sign in through the wpp service, which asks DirectAdmin (127.0.0.1:2222) whose session it is: the service must be running.',
    ],
  };
}
