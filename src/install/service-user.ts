/**
 * The system user `wpp serve` runs as once installed: the service holds the network-facing
 * part of wpp (the pages, the callbacks, the hooks endpoint) and the provider key, so a flaw
 * there gives that user, not root. Created with the distribution's own useradd by absolute
 * path; looked up with getent (NSS, so an LDAP or sssd passwd is seen too).
 */
import type { RegistrationArtefact } from './artefacts.js';
import { LAYOUT } from './layout.js';
import { ToolError, type ToolRunner } from './tools.js';

export const USER_TOOLS = {
  getent: '/usr/bin/getent',
  useradd: '/usr/sbin/useradd',
  userdel: '/usr/sbin/userdel',
} as const;

export interface ServiceUser {
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

/** A login shell a system account is created with: it cannot log in. */
const NO_LOGIN = new Set(['/usr/sbin/nologin', '/sbin/nologin', '/bin/false', '/usr/bin/false']);
/** Distributions give system accounts uids below this (SYS_UID_MAX 999 in login.defs). */
const FIRST_REGULAR_UID = 1000;

/** The user from `getent passwd NAME`, or undefined when there is none (exit 2). */
export async function lookupServiceUser(tools: ToolRunner, name: string = LAYOUT.serviceUser): Promise<ServiceUser | undefined> {
  const result = await tools.run(USER_TOOLS.getent, ['passwd', name]);
  if (result.code === 2) return undefined;
  if (result.code !== 0) throw new ToolError('TOOL_FAILED', `${USER_TOOLS.getent} passwd ${name} exited ${result.code}`, result);
  const fields = result.stdout.trim().split('\n')[0]?.split(':') ?? [];
  const [uid, gid] = [Number(fields[2]), Number(fields[3])];
  if (fields[0] !== name || !Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error(`${USER_TOOLS.getent} passwd ${name} printed no passwd line for ${name}`);
  return { uid, gid, home: fields[5] ?? '', shell: fields[6] ?? '' };
}

/** The ids of the service user; throws when it does not exist (an install makes it first). */
export async function serviceIds(tools: ToolRunner): Promise<{ uid: number; gid: number }> {
  const user = await lookupServiceUser(tools);
  if (!user) throw new Error(`the system user ${LAYOUT.serviceUser} does not exist: run wpp install`);
  return { uid: user.uid, gid: user.gid };
}

/**
 * A user of that name that is not a system account (a hosting customer called "wpp") must not
 * be handed the data folder: refused, nothing written.
 */
function refuseIfNotSystem(user: ServiceUser): void {
  if (user.uid >= FIRST_REGULAR_UID || user.uid === 0 || !NO_LOGIN.has(user.shell)) {
    throw new Error(
      `a user named ${LAYOUT.serviceUser} exists and is not a system user (uid ${user.uid}, shell ${user.shell || 'none'}): ` +
        `wpp would give it the data folder and the provider key. Rename or remove that user, or create the system user yourself ` +
        `(${USER_TOOLS.useradd} --system --user-group --no-create-home --home-dir ${LAYOUT.dataDir} --shell /usr/sbin/nologin ${LAYOUT.serviceUser}), then install again. Nothing was written.`,
    );
  }
}

export function serviceUserRegistration(): RegistrationArtefact {
  const args = [
    '--system',
    '--user-group',
    '--no-create-home',
    '--home-dir',
    LAYOUT.dataDir,
    '--shell',
    '/usr/sbin/nologin',
    LAYOUT.serviceUser,
  ];
  return {
    kind: 'registration',
    key: `system user ${LAYOUT.serviceUser}`,
    describe: `system user ${LAYOUT.serviceUser} (${USER_TOOLS.useradd} ${args.join(' ')})`,
    fingerprint: 'v1',
    // Before any file: the data folder and the settings are given to it.
    first: true,
    // Kept by an uninstall that keeps the data it owns; a uid freed while files still carry it
    // would give them to whoever gets that uid next.
    purgeOnly: true,
    async register(tools) {
      const existing = await lookupServiceUser(tools);
      if (existing) refuseIfNotSystem(existing);
      else await tools.check(USER_TOOLS.useradd, args);
      if (!(await lookupServiceUser(tools)))
        throw new Error(`${USER_TOOLS.useradd} ran, but ${LAYOUT.serviceUser} is still unknown to getent`);
      return {
        ids: [],
        purgeOnly: true,
        undo: [{ tool: USER_TOOLS.userdel, args: [LAYOUT.serviceUser] }],
      };
    },
    async isInPlace(tools) {
      const user = await lookupServiceUser(tools);
      if (user) refuseIfNotSystem(user);
      return user !== undefined;
    },
  };
}
