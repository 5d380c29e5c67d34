/**
 * How close a website is to its hit limits, as the admin list and the customer's bar show it.
 * Pure: enforcement computes it with the usage and limits it has already resolved.
 */
import type { EffectiveLimits } from './quota.js';

export type QuotaLevel = 'none' | 'ok' | 'near' | 'over';

export interface QuotaLevelInput {
  usage: number;
  /** The website's own limits: its hit limit, exemption and warning threshold. */
  websiteLimits: Pick<EffectiveLimits, 'websiteHits' | 'warningPercent' | 'exempt'>;
  /** Hits of all active websites of the account this period. */
  accountUsage: number;
  /** The account's aggregate limit and its warning threshold. */
  accountLimits: Pick<EffectiveLimits, 'accountHits' | 'warningPercent'>;
}

export interface QuotaStanding {
  level: QuotaLevel;
  /** The warning threshold of the limit that is closest to being reached; null when no limit applies. */
  warningPercent: number | null;
}

/** How far along a limit is, 1 = reached; a zero limit is reached by any usage, none at all included. */
const fraction = (usage: number, limit: number) => (limit === 0 ? Infinity : usage / limit);

/**
 * 'over' at or above either limit, 'near' at or above the warning threshold of the closer one
 * (the website's own limit or the account's aggregate, whichever is further used), 'ok' below,
 * 'none' when no limit applies or the website is exempt.
 */
export function quotaStanding(input: QuotaLevelInput): QuotaStanding {
  const { websiteLimits, accountLimits } = input;
  if (websiteLimits.exempt) return { level: 'none', warningPercent: null };
  const candidates: { used: number; percent: number }[] = [];
  if (websiteLimits.websiteHits !== null) {
    candidates.push({ used: fraction(input.usage, websiteLimits.websiteHits), percent: websiteLimits.warningPercent });
  }
  if (accountLimits.accountHits !== null) {
    candidates.push({ used: fraction(input.accountUsage, accountLimits.accountHits), percent: accountLimits.warningPercent });
  }
  const closest = candidates.reduce<(typeof candidates)[number] | null>((best, c) => (best && best.used >= c.used ? best : c), null);
  if (!closest) return { level: 'none', warningPercent: null };
  const level = closest.used >= 1 ? 'over' : closest.used * 100 >= closest.percent ? 'near' : 'ok';
  return { level, warningPercent: closest.percent };
}

/** One website's quota as enforcement last saw it (table website_quota). */
export interface WebsiteQuota {
  domain: string;
  account: string;
  periodStart: number;
  periodEnd: number;
  usage: number;
  websiteLimit: number | null;
  accountUsage: number;
  accountLimit: number | null;
  warningPercent: number | null;
  level: QuotaLevel;
}
