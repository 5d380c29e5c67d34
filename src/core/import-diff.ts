/**
 * The comparison of `wpp import` and of the scheduled drift check: what the panel hosts
 * against what the plugin knows and the provider has, and the panel events that close the
 * gap. Pure: the caller reads the three sides and queues the events.
 *
 * Work already queued counts as done: a difference whose event waits in the jobs table (a
 * hook's, or an earlier `--apply` whose jobs have not run yet) is reported as queued and not
 * queued again, so two applies in a row queue everything once.
 */
import type { PanelEventDraft, PanelEventType } from '../panel/events.js';
import type { AccountState } from './types.js';
import { listingCounts, type PanelListing } from './panel-listing.js';

export const DIFFERENCE_KINDS = [
  /** The panel has the account; the plugin does not (or only as deleted). */
  'account.missing',
  /** The panel has the domain; the plugin does not protect it. */
  'domain.missing',
  /** The panel has the subdomain; the plugin's website lacks it. */
  'subdomain.missing',
  /** The plugin protects the domain; the panel no longer lists it. Queued only with --prune. */
  'domain.gone',
  /** The panel lists the domain under another account than the plugin protects it for: left to an admin. */
  'domain.other-account',
  /** Suspended in the panel but not in the plugin, or the other way round. */
  'suspension.differs',
  /** The panel names another reseller as the account's owner than the plugin has: transferred (account.transferred). */
  'reseller.differs',
  /** The plugin has the account; the provider has no such user. */
  'account.provider-missing',
  /** The plugin protects the website; the provider's last answer was that it does not exist. */
  'domain.provider-missing',
  /** The panel says the account's package includes web protection, or not, and the plugin holds the other (core/package-protection.ts). */
  'package.differs',
] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

export interface Difference {
  kind: DifferenceKind;
  account: string;
  domain?: string;
  subdomain?: string;
  /** For the panel's side: what the event carries. */
  email?: string;
  plan?: string;
  ip?: string;
  suspended?: boolean;
  /** The reseller the panel names (null: the host's own): account.missing and reseller.differs. */
  reseller?: string | null;
  /** The reseller the plugin has (reseller.differs; null: the host's own). */
  knownReseller?: string | null;
  /** Whether the account's package includes web protection, as the panel says (account.missing, package.differs). */
  protection?: boolean;
  /** The other account of domain.other-account. */
  knownAccount?: string;
  /** Its event already waits in the jobs table. */
  queued: boolean;
}

export interface KnownState {
  /** `reseller` absent: not read (a caller of before resellers), so no owner is compared. */
  accounts: {
    account: string;
    state: AccountState;
    providerUserId: string;
    reseller?: string | null;
    protectionIncluded?: boolean | null;
  }[];
  websites: { domain: string; account: string; state: 'active' | 'removed'; subdomains: string[]; providerStatus: string | null }[];
  /** Panel events pending or running. */
  queued: { type: PanelEventType; account: string; domain?: string | undefined; subdomain?: string | undefined }[];
}

export interface Comparison {
  listed: { accounts: number; domains: number; subdomains: number };
  known: { accounts: number; websites: number };
  /** Whether the provider's users were read (false: the provider did not answer; its kinds were not compared). */
  providerChecked: boolean;
  differences: Difference[];
  counts: Record<DifferenceKind, number>;
  /** Differences whose event is not queued yet and can be (domain.gone only with prune). */
  actionable: number;
}

const eventKey = (type: string, account: string, domain = '', subdomain = '') => `${type}\u0000${account}\u0000${domain}\u0000${subdomain}`;

/** The event that closes a difference, or null when none should be queued for it. */
export function eventFor(difference: Difference, options: { prune: boolean }): PanelEventDraft | null {
  const { account, domain, subdomain } = difference;
  switch (difference.kind) {
    case 'account.missing':
      // With its owner when the panel names one (absent: not said, the event leaves what is stored).
      return {
        type: 'account.created',
        account,
        email: difference.email,
        plan: difference.plan,
        protection: difference.protection,
        ...(difference.reseller === undefined ? {} : { reseller: difference.reseller }),
      };
    case 'account.provider-missing':
      return { type: 'account.created', account, email: difference.email, plan: difference.plan, protection: difference.protection };
    case 'package.differs':
      // plan.changed carries the package's protection; the plan itself is the panel's (the default plan when it names none).
      return { type: 'plan.changed', account, plan: difference.plan ?? 'default', protection: difference.protection };
    case 'domain.missing':
    case 'domain.provider-missing':
      return { type: 'domain.added', account, domain, plan: difference.plan, ip: difference.ip };
    case 'subdomain.missing':
      return { type: 'subdomain.added', account, domain, subdomain };
    case 'suspension.differs':
      return { type: difference.suspended ? 'account.suspended' : 'account.unsuspended', account };
    case 'reseller.differs':
      return { type: 'account.transferred', account, reseller: difference.reseller ?? null };
    case 'domain.gone':
      return options.prune ? { type: 'domain.removed', account, domain } : null;
    case 'domain.other-account':
      return null;
  }
}

type Draft = Omit<Difference, 'queued'>;

/** What the panel lists that the plugin lacks or holds otherwise, account by account, in the order the events must run. */
function panelSide(listing: PanelListing, known: KnownState): Draft[] {
  const accounts = new Map(known.accounts.map((a) => [a.account, a]));
  const websites = new Map(known.websites.map((w) => [w.domain, w]));
  const found: Draft[] = [];
  for (const listed of listing.accounts) {
    const { account, email, plan, protection } = listed;
    const mine = accounts.get(account);
    const live = mine !== undefined && mine.state !== 'deleted';
    if (!live)
      found.push({
        kind: 'account.missing',
        account,
        email,
        plan,
        ...(listed.reseller === undefined ? {} : { reseller: listed.reseller }),
        ...(protection === undefined ? {} : { protection }),
      });
    else if (protection !== undefined && (mine.protectionIncluded ?? true) !== protection)
      found.push({ kind: 'package.differs', account, plan, protection });
    const isSuspended = live && mine.state === 'suspended';
    if (listed.suspended !== undefined && listed.suspended !== isSuspended) {
      found.push({ kind: 'suspension.differs', account, suspended: listed.suspended });
    }
    const transfer = live ? resellerDifference(listed, mine) : null;
    if (transfer) found.push(transfer);
    // A package without web protection: its domains are not the plugin's to protect (left out of --apply).
    const domains = protection === false ? [] : listed.domains;
    for (const { domain, subdomains, ip } of domains) {
      const website = websites.get(domain);
      if (website?.state === 'active' && website.account !== account) {
        found.push({ kind: 'domain.other-account', account, domain, knownAccount: website.account });
        continue;
      }
      const protectedHere = website?.state === 'active';
      if (!protectedHere) found.push({ kind: 'domain.missing', account, domain, plan, ip });
      const has = new Set(protectedHere ? website.subdomains : []);
      for (const subdomain of subdomains) if (!has.has(subdomain)) found.push({ kind: 'subdomain.missing', account, domain, subdomain });
    }
  }
  return found;
}

/** The panel names another owner than the plugin has (either side not saying: nothing compared). */
function resellerDifference(listed: PanelListing['accounts'][number], mine: KnownState['accounts'][number]): Draft | null {
  if (listed.reseller === undefined || mine.reseller === undefined) return null;
  const known = mine.reseller;
  if ((listed.reseller ?? null) === (known?.toLowerCase() ?? null)) return null;
  return { kind: 'reseller.differs', account: listed.account, reseller: listed.reseller, knownReseller: known };
}

/** What the plugin protects that the panel no longer lists, and what the provider lacks. */
function pluginSide(listing: PanelListing, known: KnownState, providerUsers: Set<string> | null): Draft[] {
  const listedDomains = new Set(listing.accounts.flatMap((a) => a.domains.map((d) => d.domain)));
  const found: Draft[] = [];
  if (providerUsers) {
    for (const a of known.accounts) {
      if (a.state !== 'deleted' && !providerUsers.has(a.providerUserId))
        found.push({ kind: 'account.provider-missing', account: a.account });
    }
  }
  for (const w of known.websites) {
    if (w.state !== 'active') continue;
    if (!listedDomains.has(w.domain)) found.push({ kind: 'domain.gone', account: w.account, domain: w.domain });
    else if (w.providerStatus === 'missing') found.push({ kind: 'domain.provider-missing', account: w.account, domain: w.domain });
  }
  return found;
}

/** Compares; `providerUsers` null when the provider could not be asked. */
export function compareListing(listing: PanelListing, known: KnownState, providerUsers: Set<string> | null): Comparison {
  const queued = new Set(known.queued.map((e) => eventKey(e.type, e.account, e.domain, e.subdomain)));
  const drafts = [...panelSide(listing, known), ...pluginSide(listing, known, providerUsers)];
  const counts = Object.fromEntries(DIFFERENCE_KINDS.map((kind) => [kind, 0])) as Record<DifferenceKind, number>;
  let actionable = 0;
  const differences = drafts.map((draft): Difference => {
    counts[draft.kind] += 1;
    const event = eventFor({ ...draft, queued: false }, { prune: true });
    const isQueued = event !== null && queued.has(eventKey(event.type, event.account, event.domain, event.subdomain));
    if (event !== null && !isQueued && draft.kind !== 'domain.gone') actionable += 1;
    return { ...draft, queued: isQueued };
  });
  return {
    listed: listingCounts(listing),
    known: {
      accounts: known.accounts.filter((a) => a.state !== 'deleted').length,
      websites: known.websites.filter((w) => w.state === 'active').length,
    },
    providerChecked: providerUsers !== null,
    differences,
    counts,
    actionable,
  };
}

/** The events `--apply` queues, in order: what is queued already is left out. */
export function eventsToApply(comparison: Comparison, options: { prune: boolean }): PanelEventDraft[] {
  return comparison.differences.flatMap((difference) => {
    if (difference.queued) return [];
    const event = eventFor(difference, options);
    return event ? [event] : [];
  });
}

/** Drift: anything that differs, queued or not (queued work may still fail). */
export const hasDrift = (comparison: Comparison) => comparison.differences.length > 0;

/** One line per kind that occurs, for the terminal and the log. */
export function describeCounts(counts: Record<DifferenceKind, number>): string {
  const parts = DIFFERENCE_KINDS.filter((kind) => counts[kind] > 0).map((kind) => `${counts[kind]} ${kind}`);
  return parts.length === 0 ? 'no difference' : parts.join(', ');
}
