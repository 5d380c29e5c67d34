/**
 * DirectAdmin keeps its users as files: /usr/local/directadmin/data/users/<user>/user.conf
 * (key=value lines: username, email, package, suspended=yes|no, ip, creator: the reseller who
 * made the user, `admin` for the host's own; usertype: user, reseller or admin), domains.list (one domain
 * a line) and domains/<domain>.subdomains (one label a line). They are read under the root,
 * as DirectAdmin's own scripts read them; no tool runs.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../errors.js';
import type { ToolRunner } from '../../install/tools.js';
import type { PanelListingInput } from '../../core/panel-listing.js';
import { HOST_OWNERS, resellerOf } from '../adapters/result.js';
import { PROTECTION_FEATURE } from '../protection-feature.js';

type ListedUser = PanelListingInput['accounts'][number] & { usertype: string | undefined };

export const DIRECTADMIN_USERS = '/usr/local/directadmin/data/users';

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

export function parseUserConf(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of lines(text)) {
    const cut = line.indexOf('=');
    if (cut > 0) fields.set(line.slice(0, cut).trim(), line.slice(cut + 1).trim());
  }
  return fields;
}

/**
 * The custom package item `wpp install directadmin` registers (custom_package_items.conf, a
 * checkbox): DirectAdmin copies a package's items into each user's user.conf, ON or OFF.
 * Absent: the item was never saved for the user's package, so it says nothing.
 */
export const packageItemProtection = (value: string | undefined): boolean | undefined =>
  value?.toUpperCase() === 'ON' ? true : value?.toUpperCase() === 'OFF' ? false : undefined;

/** The plugin's id (plugin.conf `id`), as DirectAdmin's per-package plugin lists name it. */
const PLUGIN_ID = 'wpp';

/** The user.conf fields that say whether the user's package includes web protection. */
export const DIRECTADMIN_PROTECTION_FIELDS = ['plugins_allow', 'plugins_deny', PROTECTION_FEATURE] as const;

/**
 * Whether the user's package includes web protection, from user.conf (or a hook's copy of it):
 * - DirectAdmin's own switch of each plugin per package (1.61.0: `plugins_allow` / `plugins_deny`,
 *   colon-separated plugin ids; an allow list, even empty, decides alone). A package the plugin
 *   is switched off for has no protection: DirectAdmin refuses the plugin's pages to its users.
 * - Else the custom package item (packageItemProtection): ON, OFF, or nothing said.
 */
export function directAdminProtection(
  field: (name: (typeof DIRECTADMIN_PROTECTION_FIELDS)[number]) => string | undefined,
): boolean | undefined {
  const ids = (list: string) => list.split(':').map((id) => id.trim());
  const allow = field('plugins_allow');
  const deny = field('plugins_deny');
  const pluginOn = allow !== undefined ? ids(allow).includes(PLUGIN_ID) : deny === undefined || !ids(deny).includes(PLUGIN_ID);
  return pluginOn ? packageItemProtection(field(PROTECTION_FEATURE)) : false;
}

const readIfThere = (path: string) =>
  readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });

async function readUser(dir: string, user: string): Promise<ListedUser | null> {
  const conf = await readIfThere(join(dir, user, 'user.conf'));
  // Not a user folder (DirectAdmin keeps nothing else there, but a stray folder is no account).
  if (conf === null) return null;
  const fields = parseUserConf(conf);
  const domains = lines((await readIfThere(join(dir, user, 'domains.list'))) ?? '');
  const ip = fields.get('ip');
  const protection = directAdminProtection((name) => fields.get(name));
  return {
    account: fields.get('username') ?? user,
    email: fields.get('email'),
    plan: fields.get('package'),
    suspended: fields.get('suspended') === 'yes',
    reseller: resellerOf(fields.get('creator'), HOST_OWNERS.directadmin),
    usertype: fields.get('usertype'),
    ...(protection !== undefined ? { protection } : {}),
    domains: await Promise.all(
      domains.map(async (domain) => ({
        domain,
        subdomains: lines((await readIfThere(join(dir, user, 'domains', `${domain}.subdomains`))) ?? ''),
        ...(ip ? { ip } : {}),
      })),
    ),
  };
}

/** One user as its files have it; null when it has no user.conf (no such user). */
export async function readDirectAdminUser(tools: ToolRunner, user: string): Promise<PanelListingInput['accounts'][number] | null> {
  const found = await readUser(tools.at(DIRECTADMIN_USERS), user);
  if (found === null) return null;
  const { usertype: _usertype, ...account } = found;
  return account;
}

export async function readDirectAdminListing(tools: ToolRunner): Promise<PanelListingInput> {
  const dir = tools.at(DIRECTADMIN_USERS);
  const users = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new AppError('NOT_FOUND', `${dir} is not there: is this a DirectAdmin server?`);
    throw error;
  });
  const read = await Promise.all(users.filter((entry) => entry.isDirectory()).map((entry) => readUser(dir, entry.name)));
  const listed = read.filter((user) => user !== null).sort((a, b) => a.account.localeCompare(b.account));
  return {
    panel: 'directadmin',
    accounts: listed.map(({ usertype: _usertype, ...account }) => account),
    // A reseller is a user of its own (usertype=reseller), with its own e-mail address.
    resellers: listed.filter((user) => user.usertype === 'reseller').map((user) => ({ name: user.account, email: user.email })),
  };
}
