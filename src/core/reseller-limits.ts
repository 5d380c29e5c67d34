/**
 * The reseller scope: one pooled hit limit over every website of every account a reseller owns
 * (accounts.reseller). The reseller's limits row sets the pool (in its account_hits column),
 * and its own period, anchor day and warning threshold; what it leaves unset comes from the
 * global row, then the defaults. The pool is not a layer of an account's limits: each account's
 * website, aggregate and domain limits still resolve website -> account -> plan -> global, and
 * the pool applies on top of them (docs/statistics-and-limits.md).
 */
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import { createLimitResolver, type LimitResolver } from './limits.js';
import { periodAt, type Period, type QuotaPool } from './quota.js';

type PoolDeps = { stats: StatisticsRepo; accounts: AccountsRepo };

export interface ResellerUsage {
  reseller: string;
  /** The pool's period (the reseller row's, else global). */
  period: Period;
  /** All the reseller's customers' websites' hits in that period. */
  hits: number;
  /** The pool; null: the reseller has none. */
  limit: number | null;
  warningPercent: number;
  /** Each account the reseller owns, with its websites' hits in the pool's period (every account, 0 without hits). */
  accounts: { account: string; hits: number }[];
}

/**
 * Each pool's accounts with their hits in the pool's period, for any number of resellers in
 * two queries: one grouped query over every pool's accounts and their usage rows (on the
 * accounts_reseller and usage_account indexes), which gives each account's plan as well; and,
 * for the accounts whose own period is not their pool's (a daily plan, another anchor day),
 * one sum of their hourly rows inside the pool's period, so the pool counts the same hits
 * whatever periods its accounts keep. No account's API key is read.
 */
function poolsAccountHits(deps: PoolDeps, periods: Map<string, Period>, limits: LimitResolver, now: number) {
  const rows = deps.stats.resellerAccountHits([...periods].map(([reseller, period]) => ({ reseller, periodStart: period.start })));
  limits.remember(rows);
  const offPeriod = rows.flatMap(({ reseller, account }) => {
    const pool = periods.get(reseller) as Period;
    const own = limits.periodOf(account, now);
    return own.start === pool.start && own.end === pool.end ? [] : [{ account, from: pool.start, to: pool.end }];
  });
  const hourly = deps.stats.accountsHitsBetween(offPeriod);
  const byReseller = new Map<string, { account: string; hits: number }[]>([...periods.keys()].map((reseller) => [reseller, []]));
  for (const { reseller, account, hits } of rows) byReseller.get(reseller)?.push({ account, hits: hourly.get(account) ?? hits });
  return byReseller;
}

/**
 * These resellers' pools now: each one's period, the hits of all its customers' websites in it,
 * and the limit, in two queries however many resellers and accounts. Pass a resolver to share
 * its read of the limits table and of the accounts' plans.
 */
export function resellerUsages(
  deps: PoolDeps,
  resellers: readonly string[],
  now: number,
  limits: LimitResolver = createLimitResolver(deps.stats, deps.accounts),
): Map<string, ResellerUsage> {
  const periods = new Map(
    resellers.map((reseller) => {
      const pool = limits.forReseller(reseller);
      return [reseller, periodAt(now, pool.period, pool.anchorDay)];
    }),
  );
  const accounts = poolsAccountHits(deps, periods, limits, now);
  return new Map(
    [...periods].map(([reseller, period]) => {
      const pool = limits.forReseller(reseller);
      const own = accounts.get(reseller) ?? [];
      const hits = own.reduce((sum, row) => sum + row.hits, 0);
      return [reseller, { reseller, period, hits, limit: pool.poolHits, warningPercent: pool.warningPercent, accounts: own }];
    }),
  );
}

/**
 * A reseller's pool now: its period, the hits of all its customers' websites in it, and the
 * limit, for the pages (the reseller's own, and the admin's account and website pages). Pass
 * a resolver to share its read of the limits table.
 */
export function resellerUsageNow(
  deps: PoolDeps,
  reseller: string,
  now: number,
  limits: LimitResolver = createLimitResolver(deps.stats, deps.accounts),
): ResellerUsage {
  return resellerUsages(deps, [reseller], now, limits).get(reseller) as ResellerUsage;
}

const toQuotaPool = (usage: ResellerUsage): QuotaPool => ({
  reseller: usage.reseller,
  periodStart: usage.period.start,
  usage: usage.hits,
  limit: usage.limit,
  warningPercent: usage.warningPercent,
});

/**
 * The pools of one enforcement pass: each reseller's read once, and only for a reseller that
 * has a pool (the rest cost no query). Given the pass's accounts, it reads their plans and
 * resellers in one query and all their pools together; an account asked about later reads its
 * own pool when first asked. Enforcement adds no hits, so one read serves every account of the pass.
 */
export function createPoolReader(deps: PoolDeps, limits: LimitResolver, now: number, passAccounts: readonly string[] = []) {
  const pools = new Map<string, QuotaPool>();
  const pooled = (account: string) => {
    const reseller = limits.resellerOf(account);
    return reseller !== null && limits.forReseller(reseller).poolHits !== null ? reseller : null;
  };
  const read = (resellers: Iterable<string>) => {
    const unread = [...new Set(resellers)].filter((reseller) => !pools.has(reseller));
    for (const [reseller, usage] of resellerUsages(deps, unread, now, limits)) pools.set(reseller, toQuotaPool(usage));
  };
  limits.prime(passAccounts);
  read(passAccounts.flatMap((account) => pooled(account) ?? []));
  return {
    /** The pool the account's websites count against; null: it belongs to no reseller, or one without a pool. */
    poolOf(account: string): QuotaPool | null {
      const reseller = pooled(account);
      if (reseller === null) return null;
      read([reseller]);
      return pools.get(reseller) ?? null;
    },
  };
}

export type PoolReader = ReturnType<typeof createPoolReader>;

/**
 * The pools the given accounts count against, for the admin's account and website pages: by
 * account, only those that belong to a reseller. One query for the accounts' resellers, then
 * each reseller's pool read once, all together, however many of its accounts the page lists.
 */
export function resellerPoolsOf(deps: PoolDeps, accounts: readonly string[], now: number): Map<string, ResellerUsage> {
  const limits = createLimitResolver(deps.stats, deps.accounts);
  limits.prime(accounts);
  const owned = accounts.flatMap((account) => {
    const reseller = limits.resellerOf(account);
    return reseller === null ? [] : [{ account, reseller }];
  });
  const usages = resellerUsages(deps, [...new Set(owned.map((row) => row.reseller))], now, limits);
  return new Map(owned.map(({ account, reseller }) => [account, usages.get(reseller) as ResellerUsage]));
}
