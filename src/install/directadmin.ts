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
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { DIRECTADMIN_PACKAGE_ITEM } from '../panel/listings/directadmin.js';
import type { Artefact, InstallPlan, RegistrationArtefact } from './artefacts.js';
import { commonArtefacts, commonNextSteps, fingerprintOf, shellQuote, type InstallSettings, type InstallSource } from './common.js';
import type { ToolRunner } from './tools.js';
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
  { path: 'user/menu.raw', mode: 0o755 },
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

/** DirectAdmin's custom package items (one `name=type=...&string=...` line each), shared with the host's own items. */
export const DIRECTADMIN_PACKAGE_ITEMS = '/usr/local/directadmin/data/admin/custom_package_items.conf';

/** The checkbox a host ticks per package: whether it includes web protection (user.conf gets ON or OFF). */
export const DIRECTADMIN_PACKAGE_ITEM_LINE = `${DIRECTADMIN_PACKAGE_ITEM}=type=checkbox&string=Web Protection&desc=Websites of this package are protected by wpp&checked=yes`;

const readItems = (tools: ToolRunner) =>
  readFile(tools.at(DIRECTADMIN_PACKAGE_ITEMS), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
const hasItem = (text: string | null) => text !== null && text.split('\n').some((line) => line.startsWith(`${DIRECTADMIN_PACKAGE_ITEM}=`));

/**
 * Protection per package: the custom package item, added as a line of DirectAdmin's file
 * (created when the host has none; another line of the same name, the host's own, is left as it
 * is). Kept on uninstall: the packages' saved values stay meaningful if wpp comes back, and the
 * file is the host's (docs/panels/directadmin.md).
 */
function packageItemRegistration(): RegistrationArtefact {
  return {
    kind: 'registration',
    key: 'directadmin package item',
    describe: `DirectAdmin custom package item ${DIRECTADMIN_PACKAGE_ITEM} (${DIRECTADMIN_PACKAGE_ITEMS})`,
    fingerprint: fingerprintOf(DIRECTADMIN_PACKAGE_ITEM_LINE),
    async register(tools) {
      const text = await readItems(tools);
      if (text === null) await writeFile(tools.at(DIRECTADMIN_PACKAGE_ITEMS), `${DIRECTADMIN_PACKAGE_ITEM_LINE}\n`, { mode: 0o644 });
      else if (!hasItem(text))
        await appendFile(
          tools.at(DIRECTADMIN_PACKAGE_ITEMS),
          `${text.endsWith('\n') || text === '' ? '' : '\n'}${DIRECTADMIN_PACKAGE_ITEM_LINE}\n`,
        );
      return { ids: [], undo: [] };
    },
    isInPlace: async (tools) => hasItem(await readItems(tools)),
  };
}

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
    packageItemRegistration(),
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
      `Packages have a "Web Protection" item (${DIRECTADMIN_PACKAGE_ITEM}): untick it for packages without web protection; their users get no protected websites.`,
      'DirectAdmin shows "Web protection" in the user, reseller and admin menus (Evolution and the legacy skins). The pages run as the signed-in user and sign in through the wpp service, which asks DirectAdmin (127.0.0.1:2222) whose session it is: the service must be running.',
    ],
  };
}
