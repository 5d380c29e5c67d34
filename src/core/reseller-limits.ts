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
 * Each of the reseller's accounts with its hits in the pool's period. An account whose own
 * period is the pool's (the usual case: both monthly from the same day) is read from its usage
 * rows, one grouped query for all of them on the accounts_reseller and usage_account indexes;
 * an account on another period (a daily plan, another anchor day) from its hourly rows inside
 * the pool's period, so the pool counts the same hits whatever periods its accounts keep.
 */
function poolAccountHits(deps: PoolDeps, reseller: string, period: Period, limits: LimitResolver, now: number) {
  return deps.stats.resellerAccountHits(reseller, period.start).map((row) => {
    const own = limits.periodOf(row.account, now);
    if (own.start === period.start && own.end === period.end) return row;
    return { account: row.account, hits: deps.stats.accountHitsBetween(row.account, period.start, period.end) };
  });
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
  const pool = limits.forReseller(reseller);
  const period = periodAt(now, pool.period, pool.anchorDay);
  const accounts = poolAccountHits(deps, reseller, period, limits, now);
  return {
    reseller,
    period,
    hits: accounts.reduce((sum, row) => sum + row.hits, 0),
    limit: pool.poolHits,
    warningPercent: pool.warningPercent,
    accounts,
  };
}

/**
 * The pools of one enforcement pass: each reseller's read once, when the first of its accounts
 * is enforced, and only for a reseller that has a pool (the rest cost no query). Enforcement
 * adds no hits, so one read serves every account of the pass.
 */
export function createPoolReader(deps: PoolDeps, limits: LimitResolver, now: number) {
  const pools = new Map<string, QuotaPool | null>();
  return {
    /** The pool the account's websites count against; null: it belongs to no reseller, or one without a pool. */
    poolOf(account: string): QuotaPool | null {
      const reseller = limits.resellerOf(account);
      if (reseller === null || limits.forReseller(reseller).poolHits === null) return null;
      if (!pools.has(reseller)) {
        const usage = resellerUsageNow(deps, reseller, now, limits);
        pools.set(reseller, {
          reseller,
          periodStart: usage.period.start,
          usage: usage.hits,
          limit: usage.limit,
          warningPercent: usage.warningPercent,
        });
      }
      return pools.get(reseller) ?? null;
    },
  };
}

export type PoolReader = ReturnType<typeof createPoolReader>;

/**
 * The pools the given accounts count against, for the admin's account and website pages: by
 * account, only those that belong to a reseller; each reseller's pool read once however many
 * of its accounts the page lists.
 */
export function resellerPoolsOf(deps: PoolDeps, accounts: string[], now: number): Map<string, ResellerUsage> {
  const limits = createLimitResolver(deps.stats, deps.accounts);
  const byReseller = new Map<string, ResellerUsage>();
  const pools = new Map<string, ResellerUsage>();
  for (const account of accounts) {
    const reseller = limits.resellerOf(account);
    if (reseller === null) continue;
    let usage = byReseller.get(reseller);
    if (!usage) {
      usage = resellerUsageNow(deps, reseller, now, limits);
      byReseller.set(reseller, usage);
    }
    pools.set(account, usage);
  }
  return pools;
}
