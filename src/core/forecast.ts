/**
 * When a website will reach its hit limit if traffic goes on at this period's average rate:
 * "the limit will be reached on ..." on the customer's page. Pure.
 */
import type { Format } from './format.js';
import type { Translate } from './i18n.js';

export interface ForecastInput {
  /** Hits so far in the period. */
  usage: number;
  periodStart: number;
  /** End of the period, exclusive (epoch ms). */
  periodEnd: number;
  now: number;
  /** The hit limit; null: none. */
  limit: number | null;
}

/**
 * The time (epoch ms) the limit is reached at the average rate of this period so far
 * (usage / elapsed time). Null when there is no limit, no usage, no time elapsed yet to
 * measure a rate, or when that time falls at or after the end of the period. A limit already
 * reached gives the estimated time it was reached (at or before `now`).
 */
export function forecastLimitReached(input: ForecastInput): number | null {
  const { usage, periodStart, periodEnd, now, limit } = input;
  if (limit === null || usage <= 0) return null;
  const elapsed = Math.min(now, periodEnd) - periodStart;
  if (elapsed <= 0) return null;
  const measuredUntil = periodStart + elapsed;
  const reachedAt = periodStart + Math.ceil((limit * elapsed) / usage);
  if (usage >= limit) return Math.min(reachedAt, measuredUntil);
  return reachedAt < periodEnd ? reachedAt : null;
}

/** A forecast the adaptive sync stored (ReadScheduleRepo.get / accountForecast): only the fields that say which applies. */
export interface StoredForecast {
  limitReachedAt: number | null;
  /** The end of the period the forecast is about. */
  periodEnd: number | null;
  /** The smoothed hit rate it was made with; null: not measured yet (read fewer than two times). */
  hitRate: number | null;
}

export interface LimitForecastInput {
  /** Hits counted in `counted`. */
  usage: number;
  /** The hit limit that applies now; null: none (or exempt). */
  limit: number | null;
  stored: StoredForecast | null;
}

export interface CurrentForecastInput {
  now: number;
  /** The end of the current period (limits.periodOf(account, now).end): a stored forecast about another period is stale. */
  periodEnd: number;
  /** The period the usage was counted in, for the period-average fallback. */
  counted: { start: number; end: number };
  website: LimitForecastInput;
  account: LimitForecastInput;
}

export interface CurrentForecast {
  /** When each limit is reached (epoch ms); null: not this period, or no limit. */
  website: number | null;
  account: number | null;
  /** What the forecast extrapolates: the adaptive sync's recent rate, or this period's average. */
  basis: 'recent_rate' | 'period_average';
}

const storedFor = (stored: StoredForecast | null, periodEnd: number) =>
  stored !== null && stored.periodEnd === periodEnd && stored.hitRate !== null ? stored : null;

/**
 * The forecast a page shows: the adaptive sync's, made at the rate of about the last half
 * hour, once it has measured the website this period; until then (read fewer than two times,
 * or a new period begun) the period-average forecast, which is better than none. The account's
 * stored forecast is used under the same rule. A limit that no longer applies forecasts
 * nothing, whatever was stored before it was lifted.
 */
export function currentForecast(input: CurrentForecastInput): CurrentForecast {
  const { now, periodEnd, counted } = input;
  const average = (side: LimitForecastInput) =>
    forecastLimitReached({ usage: side.usage, limit: side.limit, periodStart: counted.start, periodEnd: counted.end, now });
  const website = storedFor(input.website.stored, periodEnd);
  if (website === null) return { website: average(input.website), account: average(input.account), basis: 'period_average' };
  const account = storedFor(input.account.stored, periodEnd);
  return {
    website: input.website.limit === null ? null : website.limitReachedAt,
    account: input.account.limit === null ? null : account ? account.limitReachedAt : average(input.account),
    basis: 'recent_rate',
  };
}

const HOUR_MS = 3_600_000;

/**
 * A forecast in words: the day and hour it falls in ("27 Nov, 14:00 UTC", in the panel's zone
 * through the one formatter; a forecast is no more precise than the hour), "reached" once that
 * time has come, "not this period" when there is none (both in the language of `t`).
 */
export const forecastWords = (at: number | null, now: number, format: Pick<Format, 'dayTime'>, t: Translate): string =>
  at === null
    ? t('customers.forecast.none')
    : at <= now
      ? t('customers.forecast.reached')
      : format.dayTime(Math.floor(at / HOUR_MS) * HOUR_MS);
