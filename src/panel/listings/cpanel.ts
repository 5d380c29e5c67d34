/**
 * cPanel & WHM: the accounts from `whmapi1 --output=json listaccts`, every domain with its
 * type and owner from `whmapi1 --output=json get_domain_info` (WHM API 1, "Return domain
 * information": main, addon, parked and sub domains of every account, in one call).
 * Addon and parked domains are websites of their own, as the hooks treat them (Domain::park);
 * a `sub` domain is a subdomain label of the account's domain it ends with.
 */
import { z } from 'zod';
import type { ToolRunner } from '../../install/tools.js';
import type { PanelListingInput } from '../../core/panel-listing.js';
import type { CpanelDomain } from '../adapters/cpanel.js';
import { HOST_OWNERS, resellerOf } from '../adapters/result.js';
import { readCpanelPackages } from './cpanel-features.js';
import { metadataSchema, parseWhmapi, WHMAPI1 } from './whmapi.js';

const listacctsSchema = z.looseObject({
  metadata: metadataSchema,
  data: z
    .looseObject({
      acct: z.array(
        z.looseObject({
          user: z.string().min(1),
          domain: z.string().optional(),
          email: z.string().optional(),
          plan: z.string().optional(),
          suspended: z.union([z.number(), z.string()]).optional(),
          ip: z.string().optional(),
          // The reseller who owns the account (`root`: the host's own), WHM API 1 listaccts.
          owner: z.string().optional(),
        }),
      ),
    })
    .optional(),
});

const domainInfoSchema = z.looseObject({
  metadata: metadataSchema,
  data: z
    .looseObject({
      domains: z.array(
        z.looseObject({
          domain: z.string().min(1),
          domain_type: z.enum(['main', 'addon', 'parked', 'sub']),
          user: z.string().min(1),
          parent_domain: z.string().optional(),
          docroot: z.string().optional(),
          ipv4: z.string().optional(),
        }),
      ),
    })
    .optional(),
});

const email = (value: string | undefined) => (value && value.includes('@') ? value : undefined);

/** The output of the two calls as a listing (pure: the unit tests feed it recorded output). */
export function cpanelListing(
  listacctsJson: string,
  domainInfoJson: string,
  packages?: { name: string; protection: boolean }[],
): PanelListingInput {
  const accounts = parseWhmapi(listacctsSchema, listacctsJson, 'listaccts').data?.acct ?? [];
  const domains = parseWhmapi(domainInfoSchema, domainInfoJson, 'get_domain_info').data?.domains ?? [];
  const websitesOf = new Map<string, { domain: string; subdomains: string[]; ip?: string }[]>();
  for (const d of domains) {
    if (d.domain_type === 'sub') continue;
    const list = websitesOf.get(d.user.toLowerCase()) ?? [];
    list.push({ domain: d.domain.toLowerCase(), subdomains: [], ...(d.ipv4 ? { ip: d.ipv4 } : {}) });
    websitesOf.set(d.user.toLowerCase(), list);
  }
  // An addon is served by the virtual host of the subdomain it is parked on (Cpanel::AddonDomain): cPanel lists that
  // subdomain with the addon's document root. It is the addon's, not a subdomain to protect.
  const addonRoots = new Set(
    domains.filter((d) => d.domain_type === 'addon' && d.docroot).map((d) => `${d.user.toLowerCase()}:${d.docroot}`),
  );
  for (const d of domains) {
    if (d.domain_type !== 'sub' || (d.docroot && addonRoots.has(`${d.user.toLowerCase()}:${d.docroot}`))) continue;
    const name = d.domain.toLowerCase();
    // The longest of the account's domains the name ends with: sub.addon.example under addon.example, not example.
    const base = (websitesOf.get(d.user.toLowerCase()) ?? [])
      .filter((w) => name.endsWith(`.${w.domain}`))
      .sort((a, b) => b.domain.length - a.domain.length)[0];
    if (base) base.subdomains.push(name.slice(0, -(base.domain.length + 1)));
  }
  // Each account's package and whether it includes web protection (cpanel-features.ts), when the packages were read.
  const protectionOf = new Map((packages ?? []).map((p) => [p.name, p.protection]));
  return {
    panel: 'cpanel',
    accounts: accounts.map((a) => ({
      account: a.user,
      email: email(a.email),
      plan: a.plan,
      suspended: Number(a.suspended ?? 0) === 1,
      reseller: resellerOf(a.owner, HOST_OWNERS.cpanel),
      ...(a.plan !== undefined && protectionOf.has(a.plan) ? { protection: protectionOf.get(a.plan) } : {}),
      domains: websitesOf.get(a.user.toLowerCase()) ?? [],
    })),
    resellers: cpanelResellers(accounts),
    ...(packages ? { packages } : {}),
  };
}

/** Every owner but root: a cPanel reseller is an account too, and its contact address is its e-mail. */
function cpanelResellers(accounts: { user: string; email?: string | undefined; owner?: string | undefined }[]) {
  const owners = new Set(accounts.flatMap((a) => (a.owner && a.owner.toLowerCase() !== 'root' ? [a.owner.toLowerCase()] : [])));
  return [...owners].sort().map((name) => ({ name, email: email(accounts.find((a) => a.user.toLowerCase() === name)?.email) }));
}

/**
 * One user's domains, for the hooks that need more than their payload (a restore, modifyacct).
 * get_domain_info takes no user: the server's list is filtered here.
 */
export async function cpanelDomainsOf(tools: ToolRunner, user: string): Promise<CpanelDomain[]> {
  const { stdout } = await tools.check(WHMAPI1, ['--output=json', 'get_domain_info']);
  const domains = parseWhmapi(domainInfoSchema, stdout, 'get_domain_info').data?.domains ?? [];
  return domains
    .filter((d) => d.user.toLowerCase() === user.toLowerCase())
    .map((d) => ({ domain: d.domain.toLowerCase(), type: d.domain_type, parentDomain: d.parent_domain, docroot: d.docroot }));
}

export async function readCpanelListing(tools: ToolRunner): Promise<PanelListingInput> {
  const accounts = await tools.check(WHMAPI1, ['--output=json', 'listaccts']);
  const domains = await tools.check(WHMAPI1, ['--output=json', 'get_domain_info']);
  return cpanelListing(accounts.stdout, domains.stdout, await readCpanelPackages(tools));
}
