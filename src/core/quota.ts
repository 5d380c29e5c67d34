/**
 * Hit quotas, as pure functions of numbers and times: limit periods, hits between two
 * cumulative samples, which limits apply, and what enforcement should do. No I/O here, so
 * every rule is tested with plain values and an injected clock.
 */

/** Cumulative (or delta) hit counters of a website. */
export interface Counters {
  total: number;
  permitted: number;
  blocked: number;
  mitigated: number;
}

export type PeriodKind = 'monthly' | 'daily';

/** One limits row; null inherits from the next, less specific, scope. */
export interface LimitLayer {
  period?: PeriodKind | null;
  anchorDay?: number | null;
  websiteHits?: number | null;
  accountHits?: number | null;
  domainLimit?: number | null;
  warningPercent?: number | null;
  exempt?: boolean | null;
}

/** One limit period: [start, end) in epoch ms, UTC. `start` names the period. */
export interface Period {
  kind: PeriodKind;
  start: number;
  end: number;
}

/**
 * The period containing `now`. Daily periods run midnight to midnight UTC; monthly ones
 * start on `anchorDay` (1-28, so every month has it) at midnight UTC.
 */
export function periodAt(now: number, kind: PeriodKind, anchorDay = 1): Period {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (kind === 'daily') {
    const start = Date.UTC(year, month, date.getUTCDate());
    return { kind, start, end: start + 86_400_000 };
  }
  const anchor = Math.min(28, Math.max(1, Math.trunc(anchorDay)));
  const startMonth = date.getUTCDate() >= anchor ? month : month - 1;
  return { kind, start: Date.UTC(year, startMonth, anchor), end: Date.UTC(year, startMonth + 1, anchor) };
}

/**
 * Hits between two cumulative samples. A total that went down means the provider's counter
 * restarted: everything counted since the restart is new, never negative traffic. The first
 * sample of a website counts whole: the plugin created the website, so its hits are all ours.
 */
export function counterDelta(previous: Counters | null, current: Counters): Counters {
  if (!previous || current.total < previous.total) return { ...current };
  return {
    total: current.total - previous.total,
    permitted: Math.max(0, current.permitted - previous.permitted),
    blocked: Math.max(0, current.blocked - previous.blocked),
    mitigated: Math.max(0, current.mitigated - previous.mitigated),
  };
}

export interface EffectiveLimits {
  period: PeriodKind;
  anchorDay: number;
  /** Hits a website may have per period; null: no limit. */
  websiteHits: number | null;
  /** Hits all websites of the account may have together per period; null: no limit. */
  accountHits: number | null;
  /** Websites the account may protect; null: no limit. */
  domainLimit: number | null;
  warningPercent: number;
  /** Never paused by enforcement. */
  exempt: boolean;
}

export const DEFAULT_LIMITS: EffectiveLimits = {
  period: 'monthly',
  anchorDay: 1,
  websiteHits: null,
  accountHits: null,
  domainLimit: null,
  warningPercent: 80,
  exempt: false,
};

/** Resolves limits from the most specific layer to the least (website, account, plan, global). */
export function resolveLimits(layers: (LimitLayer | null | undefined)[]): EffectiveLimits {
  const pick = <K extends keyof EffectiveLimits>(key: K): EffectiveLimits[K] => {
    for (const layer of layers) {
      const value = layer?.[key as keyof LimitLayer];
      if (value !== null && value !== undefined) return value as EffectiveLimits[K];
    }
    return DEFAULT_LIMITS[key];
  };
  return {
    period: pick('period'),
    anchorDay: pick('anchorDay'),
    websiteHits: pick('websiteHits'),
    accountHits: pick('accountHits'),
    domainLimit: pick('domainLimit'),
    warningPercent: pick('warningPercent'),
    exempt: pick('exempt'),
  };
}

/** reseller_limit: the pool of the account's reseller (all its customers' websites together) is used up. */
export type PauseReason = 'website_limit' | 'account_limit' | 'reseller_limit';
export type ResumeReason = 'period_rollover' | 'limit_raised';

/** A website as enforcement sees it. */
export interface QuotaWebsite {
  domain: string;
  desiredStatus: 'online' | 'paused' | 'setup';
  pausedBy: string | null;
  /** Hits in the current period. */
  usage: number;
  /** The website's own limits (hit limit, exemption, warning threshold). */
  limits: EffectiveLimits;
  /** An admin resumed it: enforcement leaves it alone until then. */
  adminOverrideUntil: number | null;
  /** The period in which enforcement paused it, to tell a rollover from a raised limit. */
  enforcementPausedPeriod: number | null;
}

/** The pooled hit limit of the account's reseller, with the hits of all the reseller's customers in the pool's period. */
export interface QuotaPool {
  reseller: string;
  /** The pool's own period (the reseller row's, else global): it need not be the account's. */
  periodStart: number;
  usage: number;
  limit: number | null;
  warningPercent: number;
}

export interface QuotaAccount {
  account: string;
  /** Account-wide limits: the period, the aggregate limit, its warning threshold. */
  limits: EffectiveLimits;
  period: Period;
  websites: QuotaWebsite[];
  /** The reseller's pool, when the account belongs to a reseller that has one. */
  pool?: QuotaPool | null;
}

export type Decision =
  | { kind: 'pause'; domain: string; reason: PauseReason; usage: number; limit: number }
  | { kind: 'resume'; domain: string; reason: ResumeReason; usage: number; limit: number | null }
  | { kind: 'warning'; domain: string | null; reason: 'website_warning' | 'account_warning'; usage: number; limit: number }
  | {
      kind: 'warning';
      domain: null;
      reason: 'reseller_warning';
      usage: number;
      limit: number;
      pool: { reseller: string; periodStart: number };
    };

const reachesWarning = (usage: number, limit: number, percent: number) => usage < limit && usage * 100 >= limit * percent;

/**
 * What enforcement should do for one account now. Only websites that are online and not
 * paused by anyone are paused; only enforcement's own pauses are resumed; exempt websites and
 * websites an admin resumed for the period are left alone. Applying the decisions and asking
 * again yields no decisions: the caller's state changes make every step idempotent.
 */
export function decide(account: QuotaAccount, now: number): Decision[] {
  const decisions: Decision[] = [];
  const accountUsage = account.websites.reduce((sum, website) => sum + website.usage, 0);
  const accountLimit = account.limits.accountHits;
  const overAccount = accountLimit !== null && accountUsage >= accountLimit;
  const pool = account.pool ?? null;
  const overPool = pool !== null && pool.limit !== null && pool.usage >= pool.limit;

  for (const website of account.websites) {
    const websiteLimit = website.limits.websiteHits;
    const overWebsite = websiteLimit !== null && website.usage >= websiteLimit;
    const shielded = website.limits.exempt || (website.adminOverrideUntil !== null && website.adminOverrideUntil > now);
    const mustPause = (overWebsite || overAccount || overPool) && !shielded;
    if (mustPause && website.pausedBy === null && website.desiredStatus === 'online') {
      decisions.push(
        overWebsite
          ? { kind: 'pause', domain: website.domain, reason: 'website_limit', usage: website.usage, limit: websiteLimit as number }
          : overAccount
            ? { kind: 'pause', domain: website.domain, reason: 'account_limit', usage: accountUsage, limit: accountLimit as number }
            : { kind: 'pause', domain: website.domain, reason: 'reseller_limit', usage: pool?.usage ?? 0, limit: pool?.limit ?? 0 },
      );
    } else if (!mustPause && website.pausedBy === 'enforcement') {
      const rolledOver = website.enforcementPausedPeriod === null || website.enforcementPausedPeriod < account.period.start;
      decisions.push({
        kind: 'resume',
        domain: website.domain,
        reason: rolledOver ? 'period_rollover' : 'limit_raised',
        usage: website.usage,
        limit: websiteLimit,
      });
    }
    if (websiteLimit !== null && !website.limits.exempt && reachesWarning(website.usage, websiteLimit, website.limits.warningPercent)) {
      decisions.push({ kind: 'warning', domain: website.domain, reason: 'website_warning', usage: website.usage, limit: websiteLimit });
    }
  }
  if (accountLimit !== null && reachesWarning(accountUsage, accountLimit, account.limits.warningPercent)) {
    decisions.push({ kind: 'warning', domain: null, reason: 'account_warning', usage: accountUsage, limit: accountLimit });
  }
  // Each customer of the reseller is warned once per pool period; an exempt account is never paused, so never warned.
  if (pool?.limit != null && !account.limits.exempt && reachesWarning(pool.usage, pool.limit, pool.warningPercent)) {
    const { reseller, periodStart } = pool;
    decisions.push({
      kind: 'warning',
      domain: null,
      reason: 'reseller_warning',
      usage: pool.usage,
      limit: pool.limit,
      pool: { reseller, periodStart },
    });
  }
  return decisions;
}
