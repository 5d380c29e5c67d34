/**
 * `wpp install virtualmin`: a Webmin module `wpp` (a Virtualmin plugin: module.info depending on
 * virtual-server, virtual_feature.pl) in Webmin's folder, and its registration with Virtualmin:
 * - Virtualmin's post-change command (post_command= in /etc/webmin/virtual-server/config, the
 *   "Command to run after making changes to a server" of its module configuration) runs
 *   `wpp hook virtualmin post` after every virtual server change. It holds one command: one set
 *   by another vendor is never replaced (the install stops and says what to do).
 * - The plugin list gets `wpp`: each virtual server's menu links to its page (launch.cgi), System
 *   Settings to the admin page (index.cgi); both sign the signed-in Webmin user in through the
 *   launcher's launch-url. Being in the list also makes "Web Protection" a feature of each
 *   top-level server (virtual_feature.pl's feature_setup): whether its account includes web
 *   protection (docs/panels/virtualmin.md, protection per package). The Webmin users that may use Virtualmin get the module in webmin.acl.
 * The registration is done by the module's own wpp-register.pl, which edits those files the way
 * Virtualmin's own code writes them, below the install root. Written for the layout of the
 * Debian/Ubuntu webmin package (/usr/share/webmin, /etc/webmin), which the testbed uses.
 */
import { readFile } from 'node:fs/promises';
import type { Artefact, InstallPlan, RegistrationArtefact } from './artefacts.js';
import type { ToolRunner } from './tools.js';
import { commonArtefacts, commonNextSteps, fingerprintOf, shellQuote, type InstallSettings, type InstallSource } from './common.js';
import { shippedFile } from './shipped-file.js';
import { LAYOUT } from './layout.js';

export const VIRTUALMIN = {
  webminRoot: '/usr/share/webmin',
  virtualServerLib: '/usr/share/webmin/virtual-server/virtual-server-lib.pl',
  config: '/etc/webmin/virtual-server/config',
  moduleDir: '/usr/share/webmin/wpp',
  registerScript: '/usr/share/webmin/wpp/wpp-register.pl',
  cli: '/usr/sbin/virtualmin',
} as const;

/** What Virtualmin's post_command runs: the launcher, which passes the hook the VIRTUALSERVER_* values it reads. */
export const VIRTUALMIN_HOOK_COMMAND = `${LAYOUT.launcher} hook virtualmin post`;

/** The module's files as shipped in panels/virtualmin/wpp/, with the mode each is installed with. */
const MODULE_FILES: { path: string; mode: number }[] = [
  { path: 'module.info', mode: 0o644 },
  { path: 'virtual_feature.pl', mode: 0o644 },
  { path: 'wpp-lib.pl', mode: 0o644 },
  // Webmin runs a module's .cgi files itself, as root, for the signed-in Webmin user.
  { path: 'launch.cgi', mode: 0o755 },
  { path: 'index.cgi', mode: 0o755 },
  // Root's tool for the installer; nobody else may change it.
  { path: 'wpp-register.pl', mode: 0o755 },
];

/** Virtualmin's post_command as its module config holds it ('' when unset). */
export async function readPostCommand(tools: ToolRunner): Promise<string> {
  const config = await readFile(tools.at(VIRTUALMIN.config), 'utf8');
  return /^post_command=(.*)$/m.exec(config)?.[1]?.trim() ?? '';
}

/** What to say when another vendor's command holds post_command: wpp never replaces it. */
export const foreignPostCommand = (current: string) =>
  `Virtualmin's post-change command is already set (post_command=${current} in ${VIRTUALMIN.config}): wpp does not replace another vendor's command, and nothing was written. Run ${VIRTUALMIN_HOOK_COMMAND} from that command as well (for example post_command=${current} ; ${VIRTUALMIN_HOOK_COMMAND}), or clear it, then install again.`;

/**
 * Made before any file is written (like the service user): an install that would have to
 * replace another vendor's post_command stops here, with nothing changed.
 */
export function virtualminCommandCheck(): RegistrationArtefact {
  const free = async (tools: ToolRunner) => {
    const current = await readPostCommand(tools);
    return current === '' || current.includes(VIRTUALMIN_HOOK_COMMAND) ? undefined : current;
  };
  return {
    kind: 'registration',
    key: 'virtualmin post_command free',
    describe: `Virtualmin post_command is free or wpp's (${VIRTUALMIN.config})`,
    fingerprint: fingerprintOf(VIRTUALMIN_HOOK_COMMAND),
    first: true,
    async register(tools) {
      const current = await free(tools);
      if (current !== undefined) throw new Error(foreignPostCommand(current));
      return { ids: [], undo: [] };
    },
    async isInPlace(tools) {
      return (await free(tools)) === undefined;
    },
  };
}

export function virtualminRegistration(): RegistrationArtefact {
  const call = (action: string) => ({ tool: VIRTUALMIN.registerScript, args: [action, VIRTUALMIN_HOOK_COMMAND] });
  return {
    kind: 'registration',
    key: 'virtualmin post_command and plugin',
    describe: `Virtualmin post_command (${VIRTUALMIN_HOOK_COMMAND}) and plugin wpp (${VIRTUALMIN.registerScript} register)`,
    fingerprint: fingerprintOf(VIRTUALMIN_HOOK_COMMAND, 'wpp'),
    async register(tools) {
      const { tool, args } = call('register');
      await tools.check(tool, args);
      return { ids: [], undo: [call('unregister')] };
    },
    async isInPlace(tools) {
      const { tool, args } = call('check');
      return (await tools.exists(tool)) && (await tools.run(tool, args)).code === 0;
    },
  };
}

export function virtualminPlan(source: InstallSource, settings: InstallSettings): InstallPlan {
  const values = { VERSION: source.version, LAUNCHER: shellQuote(LAYOUT.launcher).slice(1, -1) };
  const artefacts: Artefact[] = [
    virtualminCommandCheck(),
    ...commonArtefacts(source, settings),
    { kind: 'directory', path: VIRTUALMIN.moduleDir, mode: 0o755 },
    ...MODULE_FILES.map((file): Artefact => ({
      kind: 'file',
      path: `${VIRTUALMIN.moduleDir}/${file.path}`,
      mode: file.mode,
      content: shippedFile(`virtualmin/wpp/${file.path}`, values),
    })),
    virtualminRegistration(),
  ];
  return {
    panel: 'virtualmin',
    requires: [
      {
        path: VIRTUALMIN.virtualServerLib,
        missing: `Virtualmin is not installed here (no ${VIRTUALMIN.virtualServerLib}): nothing was written. On another panel, use its installer or \`wpp install systemd\`.`,
      },
      {
        path: VIRTUALMIN.config,
        missing: `Virtualmin has no configuration here (no ${VIRTUALMIN.config}): nothing was written. Finish Virtualmin's own set-up first.`,
      },
    ],
    artefacts,
    nextSteps: [
      ...commonNextSteps,
      `Virtualmin runs ${VIRTUALMIN_HOOK_COMMAND} after every virtual server change (System Settings > Virtualmin Configuration > Actions upon server and user creation).`,
      'Each virtual server has a "Web Protection" link in its menu; master administrators find "Web Protection" under System Settings.',
    ],
  };
}
