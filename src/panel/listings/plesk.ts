/**
 * Plesk: the customers from `plesk bin customer --list` (one login a line), the domains from
 * `plesk bin domain --list`, and each domain's owner from `plesk bin domain --info <domain>`
 * ("Owner's contact name: John Doe (jdoe)", the login in brackets). That is one call per
 * domain, and a `plesk bin` call takes a good part of a second: they run a few at a time.
 * A listed domain under another listed domain of the same owner is a subdomain of it.
 * The listings do not say which customer is suspended, so no suspension is compared.
 *
 * Resellers: `plesk bin customer --list` says nothing of owners, so one `plesk db` query reads
 * each customer's owner from Plesk's `clients` table (`parent_id`, and the owner's `type`:
 * 'admin' or 'reseller'), and another the resellers with their e-mail (`type = 'reseller'`), as
 * public tools read Plesk's resellers (lviana/reaper's collector). When the database cannot be
 * read, the listing says nothing of owners (none is compared) rather than failing the import.
 *
 * Packages (issue 22): each service plan's Web Protection permission and each account's plan
 * and protection from its subscriptions' plans, two more `plesk db` queries
 * (panel/plesk-package.ts says what of them is confirmed). Without the database, nothing is
 * said of packages either, so no account is left out for it.
 */
import PQueue from 'p-queue';
import { AppError } from '../../errors.js';
import type { ToolRunner } from '../../install/tools.js';
import type { PanelListingInput } from '../../core/panel-listing.js';
import { readPleskPackages, type PleskPlan } from '../plesk-package.js';

export const PLESK = '/usr/sbin/plesk';

/** `plesk bin domain --info` calls in flight at once. */
export const PLESK_INFO_CONCURRENCY = 4;

export interface PleskDomainInfo {
  domain: string;
  owner: string;
  ip?: string;
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** The `Key: value` lines of `domain --info`; section titles and their ==== underlines have no colon-value pair worth keeping. */
export function parseDomainInfo(domain: string, text: string): PleskDomainInfo {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([^:=]+?):\s*(.*)$/.exec(line.trim());
    if (match && !fields.has(match[1] as string)) fields.set(match[1] as string, (match[2] as string).trim());
  }
  const ownerLine = fields.get("Owner's contact name");
  const owner = ownerLine === undefined ? undefined : (/\(([^()]+)\)\s*$/.exec(ownerLine)?.[1] ?? undefined);
  if (!owner) {
    throw new AppError(
      'VALIDATION_FAILED',
      `plesk bin domain --info ${domain} printed no owner ("Owner's contact name: Name (login)" expected${ownerLine === undefined ? '' : `, got "${ownerLine}"`})`,
    );
  }
  const ip = fields.get('IP Address');
  return { domain: domain.toLowerCase(), owner, ...(ip ? { ip } : {}) };
}

/** Each customer's owner: `login<TAB>owner<TAB>owner type` lines (plesk db -Ne). */
export const PLESK_OWNERS_QUERY =
  "SELECT c.login, p.login, p.type FROM clients c JOIN clients p ON p.id = c.parent_id WHERE c.type = 'client'";
/** The resellers: `login<TAB>email` lines. */
export const PLESK_RESELLERS_QUERY = "SELECT login, email FROM clients WHERE type = 'reseller'";

export interface PleskOwners {
  /** customer login -> reseller (null: the administrator's own). */
  owners: Map<string, string | null>;
  resellers: { name: string; email?: string }[];
}

/** The two queries' output as owners and resellers (pure). */
export function parsePleskOwners(ownersOut: string, resellersOut: string): PleskOwners {
  const owners = new Map<string, string | null>();
  for (const line of lines(ownersOut)) {
    const [login, owner, type] = line.split('\t').map((field) => field.trim());
    if (login && owner) owners.set(login.toLowerCase(), type === 'reseller' ? owner : null);
  }
  const resellers = lines(resellersOut).flatMap((line) => {
    const [name, email] = line.split('\t').map((field) => field.trim());
    return name ? [{ name, ...(email && email.includes('@') ? { email } : {}) }] : [];
  });
  return { owners, resellers };
}

/** The service plans and each account's package (see panel/plesk-package.ts). */
export interface PleskPackages {
  plans: PleskPlan[];
  accounts: Map<string, { plan: string; protection: boolean }>;
}

/** The three listings as one (pure: the unit tests feed it recorded output). */
export function pleskListing(
  customers: string,
  infos: PleskDomainInfo[],
  owned?: PleskOwners,
  packages?: PleskPackages,
): PanelListingInput {
  const byOwner = new Map<string, { domain: string; subdomains: string[]; ip?: string }[]>();
  for (const login of lines(customers)) byOwner.set(login.toLowerCase(), []);
  const sorted = [...infos].sort((a, b) => a.domain.length - b.domain.length);
  for (const info of sorted) {
    const owned = byOwner.get(info.owner.toLowerCase()) ?? [];
    byOwner.set(info.owner.toLowerCase(), owned);
    const parent = owned.filter((w) => info.domain.endsWith(`.${w.domain}`)).sort((a, b) => b.domain.length - a.domain.length)[0];
    if (parent) parent.subdomains.push(info.domain.slice(0, -(parent.domain.length + 1)));
    else owned.push({ domain: info.domain, subdomains: [], ...(info.ip ? { ip: info.ip } : {}) });
  }
  const accounts = [...byOwner].map(([account, domains]) => {
    const reseller = owned?.owners.get(account);
    const found = packages?.accounts.get(account);
    return { account, ...(reseller === undefined ? {} : { reseller }), ...(found ?? {}), domains };
  });
  return {
    panel: 'plesk',
    accounts,
    ...(owned ? { resellers: owned.resellers } : {}),
    ...(packages ? { packages: packages.plans.map(({ name, protection }) => ({ name, protection })) } : {}),
  };
}

/** Owners and resellers from Plesk's database; undefined (nothing compared) when it cannot be read. */
async function readPleskOwners(tools: ToolRunner): Promise<PleskOwners | undefined> {
  try {
    const owners = await tools.check(PLESK, ['db', '-Ne', PLESK_OWNERS_QUERY]);
    const resellers = await tools.check(PLESK, ['db', '-Ne', PLESK_RESELLERS_QUERY]);
    return parsePleskOwners(owners.stdout, resellers.stdout);
  } catch {
    return undefined;
  }
}

export async function readPleskListing(tools: ToolRunner, onProgress?: (done: number, total: number) => void): Promise<PanelListingInput> {
  const customers = await tools.check(PLESK, ['bin', 'customer', '--list']);
  const domains = lines((await tools.check(PLESK, ['bin', 'domain', '--list'])).stdout);
  const queue = new PQueue({ concurrency: PLESK_INFO_CONCURRENCY });
  let done = 0;
  const infos = await Promise.all(
    domains.map((domain) =>
      queue.add(async () => {
        const info = parseDomainInfo(domain, (await tools.check(PLESK, ['bin', 'domain', '--info', domain])).stdout);
        onProgress?.(++done, domains.length);
        return info;
      }),
    ),
  );
  return pleskListing(customers.stdout, infos, await readPleskOwners(tools), await readPleskPackages(tools));
}
