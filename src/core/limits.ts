/**
 * Which limits apply to an account or a website: website -> account -> plan -> global, read
 * once per pass (the limits table is small) so 100,000 websites resolve without a query each.
 * A reseller's pool is apart from that order: reseller -> global for its period, anchor day and
 * warning threshold, and the pool itself from the reseller row only (core/reseller-limits.ts).
 */
import type { AccountOwner, AccountsRepo } from '../db/accounts.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import { DEFAULT_PLAN } from './provisioning.js';
import { periodAt, resolveLimits, type EffectiveLimits, type LimitLayer, type Period } from './quota.js';
import type { Website } from './types.js';

/** `layers`: the limits table when the caller has read it already (a page that shows it too). */
export function createLimitResolver(
  stats: StatisticsRepo,
  accounts: AccountsRepo,
  layers: ReadonlyMap<string, LimitLayer> = stats.limitLayers(),
) {
  const owners = new Map<string, { plan: string; reseller: string | null }>();
  const accountLimits = new Map<string, EffectiveLimits>();

  // An account's plan and reseller, read once per pass (never its API key, which would be opened for nothing).
  const remember = (row: AccountOwner) => {
    const found = { plan: row.plan ?? DEFAULT_PLAN, reseller: row.reseller };
    owners.set(row.account, found);
    return found;
  };
  const owner = (account: string) => owners.get(account) ?? remember(accounts.ownerOf(account) ?? { account, plan: null, reseller: null });
  const plan = (account: string) => owner(account).plan;
  const common = (account: string) => [layers.get(`account:${account}`), layers.get(`plan:${plan(account)}`), layers.get('global:')];

  const forAccount = (account: string): EffectiveLimits => {
    let limits = accountLimits.get(account);
    if (!limits) {
      limits = resolveLimits(common(account));
      accountLimits.set(account, limits);
    }
    return limits;
  };

  return {
    /** Reads the plan and reseller of the accounts not known yet in one query, for a pass or a page about all of them. */
    prime(list: readonly string[]): void {
      const unknown = list.filter((account) => !owners.has(account));
      for (const row of accounts.ownersOf(unknown)) remember(row);
      // An account the plugin does not know is on the default plan, of no reseller: not asked again.
      for (const account of unknown) if (!owners.has(account)) remember({ account, plan: null, reseller: null });
    },
    /** Takes the plan and reseller of accounts another query has read already. */
    remember: (rows: readonly AccountOwner[]): void => rows.forEach(remember),
    forAccount,
    /** A website's own limits; the period stays the account's (an aggregate needs one period). */
    forWebsite(domain: string, account: string): EffectiveLimits {
      const own = layers.get(`website:${domain}`);
      if (!own) return forAccount(account);
      const limits = resolveLimits([own, ...common(account)]);
      const { period, anchorDay } = forAccount(account);
      return { ...limits, period, anchorDay };
    },
    periodOf(account: string, now: number): Period {
      const limits = forAccount(account);
      return periodAt(now, limits.period, limits.anchorDay);
    },
    /** The reseller that owns the account; null: the host's own customer. */
    resellerOf: (account: string): string | null => owner(account).reseller,
    /** The reseller's pool: its period and warning threshold (reseller, then global), the pool from its own row only. */
    forReseller: (reseller: string) => resellerPoolLimits(layers.get(`reseller:${reseller}`), layers.get('global:')),
  };
}

/**
 * A reseller pool's limits. The pool is the reseller row's alone: the global row's account
 * limit is each account's, never a pool. Its period and warning threshold fall back to the
 * global row's, then the defaults, as a global row sets them for everyone.
 */
export function resellerPoolLimits(
  own: LimitLayer | null | undefined,
  global: LimitLayer | null | undefined,
): { period: EffectiveLimits['period']; anchorDay: number; warningPercent: number; poolHits: number | null } {
  const resolved = resolveLimits([own, global]);
  return {
    period: resolved.period,
    anchorDay: resolved.anchorDay,
    warningPercent: resolved.warningPercent,
    poolHits: own?.accountHits ?? null,
  };
}

export type LimitResolver = ReturnType<typeof createLimitResolver>;

export interface AccountUsage {
  period: Period;
  /** Every active website with its hits this period and its own hit limit (null: none, or exempt: never paused). */
  websites: { website: Website; hits: number; limit: number | null; exempt: boolean }[];
  /** All the account's websites' hits this period, and its aggregate limit (null: none, or exempt). */
  accountHits: number;
  accountLimit: number | null;
}

/**
 * An account's usage this period against its limits, for the pages: one usage query and one
 * limits read for all its websites. Pass a resolver to share its read across accounts.
 */
export function accountUsageNow(
  deps: { stats: StatisticsRepo; accounts: AccountsRepo },
  account: string,
  now: number,
  limits: LimitResolver = createLimitResolver(deps.stats, deps.accounts),
): AccountUsage {
  const period = limits.periodOf(account, now);
  const usage = new Map(deps.stats.accountUsage(account, period.start).map((row) => [row.domain, row.hits]));
  const accountLimits = limits.forAccount(account);
  const websites = deps.accounts
    .websitesOf(account)
    .filter((website) => website.state === 'active')
    .map((website) => {
      const own = limits.forWebsite(website.domain, account);
      return { website, hits: usage.get(website.domain) ?? 0, limit: own.exempt ? null : own.websiteHits, exempt: own.exempt };
    });
  return {
    period,
    websites,
    accountHits: [...usage.values()].reduce((sum, hits) => sum + hits, 0),
    accountLimit: accountLimits.exempt ? null : accountLimits.accountHits,
  };
}

/**
 * One account's limits from three point lookups, for a single question asked often (the
 * domain limit on every domain.added) where reading the whole limits table would be waste.
 */
export function accountLimitsOf(stats: StatisticsRepo, accounts: AccountsRepo, account: string): EffectiveLimits {
  return resolveLimits([
    stats.limitLayer('account', account),
    stats.limitLayer('plan', planOfAccount(accounts, account)),
    stats.limitLayer('global', ''),
  ]);
}

/** An account the panel names no plan for is on the default plan, for limits as for provisioning. */
const planOfAccount = (accounts: AccountsRepo, account: string) => accounts.ownerOf(account)?.plan ?? DEFAULT_PLAN;
