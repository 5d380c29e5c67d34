/**
 * `wpp install cpanel`: the service, the Standardized Hooks (and one on the cPanel update that
 * registers again what an update dropped), the customer's entry in cPanel (Security > Web
 * Protection) and the administrator's in WHM (Plugins > Web Protection).
 *
 * A customer's page never sees the sign-in key: the cPanel page calls wpp's UAPI function as
 * the customer, which asks wpp's admin module, run by cPanel as root for the calling account
 * (API privilege escalation), for that account's sign-in URL. The shipped files are in
 * panels/cpanel/; every tool is called by the path cPanel documents.
 */
import { readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { describeCpanelHooks } from '../panel/adapters/cpanel.js';
import { paths } from '../paths.js';
import type { Artefact, FileArtefact, InstallPlan, RegistrationArtefact } from './artefacts.js';
import { commonArtefacts, commonNextSteps, fingerprintOf, type InstallSettings, type InstallSource } from './common.js';
import { scriptHooks } from './cpanel-hooks.js';
import { LAYOUT } from './layout.js';
import { PROTECTION_FEATURE } from '../panel/protection-feature.js';

/** Where cPanel & WHM keep things, as their documentation names them. */
export const CPANEL = {
  installPlugin: '/usr/local/cpanel/scripts/install_plugin',
  uninstallPlugin: '/usr/local/cpanel/scripts/uninstall_plugin',
  registerAppconfig: '/usr/local/cpanel/bin/register_appconfig',
  unregisterAppconfig: '/usr/local/cpanel/bin/unregister_appconfig',
  isRegisteredWithAppconfig: '/usr/local/cpanel/bin/is_registered_with_appconfig',
  /** Hook scripts live here, root-owned 0755 (Guide to Standardized Hooks, Hook Action Code). */
  hookScript: '/usr/local/cpanel/3rdparty/bin/wpp-hook-cpanel',
  upcpScript: '/usr/local/cpanel/3rdparty/bin/wpp-cpanel-upcp',
  /** The Jupiter theme; install_plugin is told so rather than left to the server's default theme. */
  theme: 'jupiter',
  pageDir: '/usr/local/cpanel/base/frontend/jupiter/wpp',
  /** What install_plugin writes for our menu entry: present while it is registered. */
  dynamicUiFile: `/usr/local/cpanel/base/frontend/jupiter/dynamicui/dynamicui_${PROTECTION_FEATURE}.conf`,
  uapiModule: '/usr/local/cpanel/Cpanel/API/WebProtection.pm',
  adminModuleDir: '/var/cpanel/perl/Cpanel/Admin/Modules/WebProtection',
  whmCgiDir: '/usr/local/cpanel/whostmgr/docroot/cgi/wpp',
} as const;

/**
 * The cPanel feature (Feature Manager) install_plugin creates from the menu entry's id
 * (install.json `featuremanager: true`: listed in WHM > Feature Manager). It is how a host sets
 * protection per package: a package whose feature list gives it shows the Jupiter item and may
 * sign in; one whose list turns it off has no item, and wpp provisions nothing for its accounts
 * (panel/listings/cpanel-features.ts reads it for the hooks and `wpp import`).
 */
/** The AppConfig application name of the WHM entry. */
export const WHM_APP = 'wpp';

const OURS = {
  dir: `${LAYOUT.libDir}/cpanel`,
  /** The folder install_plugin and uninstall_plugin read (install.json and the icon). */
  pluginDir: `${LAYOUT.libDir}/cpanel/plugin`,
  appConfig: `${LAYOUT.libDir}/cpanel/wpp.conf`,
  page: `${CPANEL.pageDir}/index.live.php`,
  adminModule: `${CPANEL.adminModuleDir}/Launch.pm`,
  whmCgi: `${CPANEL.whmCgiDir}/index.cgi`,
} as const;

const PLACEHOLDERS: Record<string, string> = {
  LAUNCHER: LAYOUT.launcher,
  UPCP_HOOK: CPANEL.upcpScript,
  FEATURE: PROTECTION_FEATURE,
  PAGE_URI: 'wpp/index.live.php',
  APP_NAME: WHM_APP,
  WHM_URL: '/cgi/wpp/index.cgi',
  WHM_ENTRY_URL: 'wpp/index.cgi',
};

/** A shipped file with its {{PLACEHOLDERS}} filled; a placeholder left unfilled is a bug, not a file to install. */
export function cpanelFile(name: string): string {
  return readFileSync(`${paths.panelFiles}/cpanel/${name}`, 'utf8').replace(/\{\{([A-Z_]+)\}\}/g, (whole, key: string) => {
    const value = PLACEHOLDERS[key];
    if (value === undefined) throw new Error(`panels/cpanel/${name}: unknown placeholder ${whole}`);
    return value;
  });
}

const file = (path: string, name: string, mode: number): FileArtefact => ({ kind: 'file', path, content: cpanelFile(name), mode });

function menuEntry(installJson: string, icon: string): RegistrationArtefact {
  const args = [OURS.pluginDir, `--theme=${CPANEL.theme}`];
  return {
    kind: 'registration',
    key: 'cpanel menu entry',
    describe: `cPanel menu entry Security > Web Protection (${CPANEL.installPlugin} ${args.join(' ')})`,
    fingerprint: fingerprintOf(installJson, icon),
    async register(tools) {
      await tools.check(CPANEL.installPlugin, args);
      return {
        ids: [],
        undo: [{ tool: CPANEL.uninstallPlugin, args }],
      };
    },
    async isInPlace(tools) {
      // No tool lists cPanel plugins; install_plugin's own dynamicui file is its registration.
      return access(tools.at(CPANEL.dynamicUiFile)).then(
        () => true,
        () => false,
      );
    },
  };
}

function whmEntry(appConfig: string): RegistrationArtefact {
  return {
    kind: 'registration',
    key: 'whm menu entry',
    describe: `WHM entry Plugins > Web Protection (${CPANEL.registerAppconfig} ${OURS.appConfig})`,
    fingerprint: fingerprintOf(appConfig),
    async register(tools) {
      await tools.check(CPANEL.registerAppconfig, [OURS.appConfig]);
      return {
        ids: [WHM_APP],
        undo: [{ tool: CPANEL.unregisterAppconfig, args: [WHM_APP] }],
      };
    },
    async isInPlace(tools) {
      const { stdout } = await tools.check(CPANEL.isRegisteredWithAppconfig, ['whostmgr', WHM_APP]);
      return stdout.trim() === '1';
    },
  };
}

export function cpanelPlan(source: InstallSource, settings: InstallSettings): InstallPlan {
  const files = {
    hookScript: file(CPANEL.hookScript, 'wpp-hook-cpanel', 0o755),
    upcpScript: file(CPANEL.upcpScript, 'wpp-cpanel-upcp', 0o755),
    installJson: file(`${OURS.pluginDir}/install.json`, 'plugin/install.json', 0o644),
    icon: file(`${OURS.pluginDir}/wpp.svg`, 'plugin/wpp.svg', 0o644),
    page: file(OURS.page, 'index.live.php', 0o644),
    uapiModule: file(CPANEL.uapiModule, 'WebProtection.pm', 0o644),
    adminModule: file(OURS.adminModule, 'Launch.pm', 0o644),
    appConfig: file(OURS.appConfig, 'wpp.conf', 0o644),
    whmCgi: file(OURS.whmCgi, 'whm-index.cgi', 0o755),
  };
  const artefacts: Artefact[] = [
    ...commonArtefacts(source, settings),
    { kind: 'directory', path: OURS.dir, mode: 0o755 },
    { kind: 'directory', path: OURS.pluginDir, mode: 0o755 },
    { kind: 'directory', path: CPANEL.pageDir, mode: 0o755 },
    { kind: 'directory', path: CPANEL.adminModuleDir, mode: 0o755 },
    { kind: 'directory', path: CPANEL.whmCgiDir, mode: 0o755 },
    ...Object.values(files),
    scriptHooks(
      'cpanel hooks',
      CPANEL.hookScript,
      describeCpanelHooks(CPANEL.hookScript).map(({ category, event, stage, hook }) => ({ category, event, stage, hook })),
      files.hookScript.content,
    ),
    scriptHooks(
      'cpanel update hook',
      CPANEL.upcpScript,
      [{ category: 'System', event: 'upcp', stage: 'post', hook: CPANEL.upcpScript }],
      files.upcpScript.content,
    ),
    menuEntry(files.installJson.content, files.icon.content),
    whmEntry(files.appConfig.content),
  ];
  return {
    panel: 'cpanel',
    artefacts,
    nextSteps: [
      ...commonNextSteps,
      'Customers open Web Protection in cPanel under Security; administrators (root, or a reseller with all privileges) and resellers (their own customers) in WHM under Plugins.',
      `Packages without the "${PROTECTION_FEATURE}" feature (WHM > Feature Manager) get no menu entry and no sign-in.`,
    ],
  };
}
