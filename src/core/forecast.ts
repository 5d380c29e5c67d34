/**
 * When a website will reach its hit limit if traffic goes on at this period's average rate:
 * "the limit will be reached on ..." on the customer's page. Pure.
 */

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
