/**
 * What a panel hosts, as `wpp import` compares it: its accounts, each with its domains and
 * their subdomains. Every panel reader (panel/listings/) ends in this one schema, and so does
 * `wpp import --file` (docs/panel-events.md, "Bringing existing accounts in"), so names are checked and
 * normalised exactly as the hooks' events are.
 */
import { z } from 'zod';
import { AppError } from '../errors.js';
import { accountNameSchema, normalized, optionalEmailSchema, optionalIpSchema, optionalText } from '../panel/events.js';
import { normalizeDomain, normalizeSubdomain } from '../provider/spec.js';

export const PANELS = ['cpanel', 'plesk', 'directadmin', 'virtualmin'] as const;
export type PanelName = (typeof PANELS)[number];

export const listedDomainSchema = z.strictObject({
  domain: normalized(normalizeDomain, 'domain name'),
  /** Labels under the domain (`blog` for blog.example.com). */
  subdomains: z.array(normalized(normalizeSubdomain, 'subdomain label')).default([]),
  /** The address the panel serves it from, when the panel says. */
  ip: optionalIpSchema,
});

export const listedAccountSchema = z.strictObject({
  account: accountNameSchema,
  email: optionalEmailSchema,
  plan: optionalText(100),
  /** Absent: the panel's listing does not say (Plesk's), so no suspension difference is reported. */
  suspended: z.boolean().optional(),
  /** The reseller who owns the account; null: the host's own; absent: the listing does not say, so no owner is compared. */
  reseller: accountNameSchema.nullable().optional(),
  /** Whether the account's hosting package includes web protection (core/package-protection.ts); absent: the panel does not say. */
  protection: z.boolean().optional(),
  domains: z.array(listedDomainSchema).default([]),
});

/** A reseller the panel lists, with the e-mail address it has for it (cPanel: the reseller's own account's). */
const listedResellerSchema = z.strictObject({ name: accountNameSchema, email: optionalEmailSchema });

/** A hosting package the panel has, and whether it includes web protection (the Settings page lists them). */
const listedPackageSchema = z.strictObject({ name: z.string().trim().min(1).max(100), protection: z.boolean() });

/** The shape of `wpp import --file FILE`, and what every panel reader produces. */
export const panelListingSchema = z
  .strictObject({
    /** Which panel it came from (free text for a file; the reader's name otherwise). */
    panel: z.string().trim().min(1).max(40).default('file'),
    accounts: z.array(listedAccountSchema),
    /** The panel's resellers (absent: the listing names none). */
    resellers: z.array(listedResellerSchema).optional(),
    packages: z.array(listedPackageSchema).optional(),
  })
  .superRefine((listing, ctx) => {
    const seenAccounts = new Set<string>();
    const seenDomains = new Map<string, string>();
    listing.accounts.forEach((account, i) => {
      if (seenAccounts.has(account.account)) {
        ctx.addIssue({ code: 'custom', path: ['accounts', i, 'account'], message: `account ${account.account} is listed twice` });
      }
      seenAccounts.add(account.account);
      account.domains.forEach((domain, j) => {
        const owner = seenDomains.get(domain.domain);
        if (owner !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['accounts', i, 'domains', j, 'domain'],
            message: `${domain.domain} is listed twice (also under ${owner})`,
          });
        }
        seenDomains.set(domain.domain, account.account);
      });
    });
  });

export type PanelListing = z.output<typeof panelListingSchema>;
export type PanelListingInput = z.input<typeof panelListingSchema>;
export type ListedAccount = PanelListing['accounts'][number];

/** At most this many problems are named in the error: a broken listing of 1,500 domains would otherwise flood the terminal. */
const MAX_PROBLEMS = 20;

/** Checks a listing; a bad one is refused whole (VALIDATION_FAILED naming what is wrong), so nothing is compared on half of it. */
export function parseListing(raw: unknown, source: string): PanelListing {
  const result = panelListingSchema.safeParse(raw);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const lines = details.slice(0, MAX_PROBLEMS).map((d) => `  ${d.path || '(listing)'}: ${d.message}`);
  if (details.length > MAX_PROBLEMS) lines.push(`  ... and ${details.length - MAX_PROBLEMS} more`);
  throw new AppError('VALIDATION_FAILED', `The listing from ${source} is not valid:\n${lines.join('\n')}`, details);
}

/** Counts of what a listing holds. */
export function listingCounts(listing: PanelListing): { accounts: number; domains: number; subdomains: number } {
  let domains = 0;
  let subdomains = 0;
  for (const account of listing.accounts) {
    domains += account.domains.length;
    for (const domain of account.domains) subdomains += domain.subdomains.length;
  }
  return { accounts: listing.accounts.length, domains, subdomains };
}
