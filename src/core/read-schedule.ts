/**
 * The adaptive read schedule: when each website's statistics are read next, from what the
 * last reads said about it. A read costs one provider request and the budget is fixed, so
 * websites that could reach a limit soon are read often and the others rarely (but at
 * least every `maxAgeMs`, so charts stay current). Pure functions over rates, headroom and
 * ages; src/core/read-tick.ts applies them.
 */

export interface ScheduleRules {
  /** The longest a website goes unread (WPP_SYNC_MAX_AGE_MINUTES). */
  maxAgeMs: number;
  /** The shortest gap between two reads of one website: a read costs a request, and hits arrive between reads anyway. */
  minIntervalMs: number;
  /**
   * The share of the time left to a limit, at the current rate, after which the website is
   * read again: 0.5 reads it at half the time left, then half of what is left then, ... so a
   * steady website is read a few times as it nears its limit and soon after crossing it.
   */
  leadShare: number;
  /** The gap after a read that could not measure a rate yet (a website's first read): its rate is known soon. */
  unmeasuredMs: number;
}

export const DEFAULT_RULES: ScheduleRules = { maxAgeMs: 60 * 60_000, minIntervalMs: 60_000, leadShare: 0.5, unmeasuredMs: 15 * 60_000 };

/** The rules for a given WPP_SYNC_MAX_AGE_MINUTES: the other gaps stay within it. */
export function rulesFor(maxAgeMinutes: number): ScheduleRules {
  const maxAgeMs = maxAgeMinutes * 60_000;
  return {
    ...DEFAULT_RULES,
    maxAgeMs,
    minIntervalMs: Math.min(DEFAULT_RULES.minIntervalMs, maxAgeMs),
    unmeasuredMs: Math.min(DEFAULT_RULES.unmeasuredMs, maxAgeMs),
  };
}

/** Hits used against one limit: the website's own, or its account's aggregate. */
export interface LimitStanding {
  usage: number;
  /** The limit; null: none (or exempt). */
  limit: number | null;
  /** Hits per second used against it (the website's rate, or the sum over the account's websites). */
  ratePerSecond: number;
}

/**
 * How long until the website is read again. For each limit that applies and is not yet
 * reached, two bounds: the time left at the current rate times `leadShare` (a busy website
 * nearing its limit is read again before it gets there), and `maxAgeMs` times the share of
 * the limit still unused (a quiet website near its limit has little room for a surge).
 * Without a limit, or past one (enforcement has acted on it), only `maxAgeMs` applies; before
 * a rate could be measured (`rateMeasured` false), `unmeasuredMs`.
 */
export function readInterval(standings: LimitStanding[], rules: ScheduleRules = DEFAULT_RULES, rateMeasured = true): number {
  let interval = rateMeasured ? rules.maxAgeMs : rules.unmeasuredMs;
  for (const { usage, limit, ratePerSecond } of standings) {
    if (limit === null || limit <= 0) continue;
    const headroom = limit - usage;
    if (headroom <= 0) continue;
    interval = Math.min(interval, rules.maxAgeMs * (headroom / limit));
    if (ratePerSecond > 0) interval = Math.min(interval, (rules.leadShare * headroom * 1000) / ratePerSecond);
  }
  return Math.max(rules.minIntervalMs, Math.min(rules.maxAgeMs, interval));
}

/**
 * An exponentially smoothed rate: `previous` moved toward the rate measured over the last
 * `elapsedMs` by the weight that interval carries for a time constant `tauMs` (a reading
 * after a long gap replaces the old value almost entirely; one after a short gap nudges it).
 * No previous value (a first reading): the measured rate itself.
 */
export function smoothRate(previous: number | null, measured: number, elapsedMs: number, tauMs: number): number {
  if (previous === null || !(elapsedMs > 0)) return previous ?? measured;
  const weight = 1 - Math.exp(-elapsedMs / tauMs);
  return previous + weight * (measured - previous);
}

/** The time constant of the hit rate the schedule and the forecast use: about the last half hour. */
export const HIT_RATE_TAU_MS = 30 * 60_000;

/**
 * The rate a website is planned with: the smoothed rate, or the rate of the last interval
 * when that is higher (a website that just sped up is planned at its new speed at once; one
 * that slowed down keeps its smoothed rate a while, in case the lull is brief).
 */
export const planningRate = (smoothed: number, lastInterval: number): number => Math.max(smoothed, lastInterval);

/**
 * When the limit is reached at `ratePerSecond` from `now`: null when there is no limit, no
 * traffic, or the time falls at or after the end of the period (the usage starts again then).
 * A limit already reached gives `now`.
 */
export function limitReachedAt(standing: LimitStanding, now: number, periodEnd: number): number | null {
  const { usage, limit, ratePerSecond } = standing;
  if (limit === null) return null;
  if (usage >= limit) return now;
  if (!(ratePerSecond > 0)) return null;
  const at = now + Math.ceil(((limit - usage) * 1000) / ratePerSecond);
  return at < periodEnd ? at : null;
}

export interface SpikeRules {
  /** Blocked hits per hour below which no spike is ever noticed, whatever the baseline (a quiet website's few blocks). */
  minBlockedPerHour: number;
  /** How many times its baseline the last hour's blocked hits must be. */
  factor: number;
  /** The time constant of the "last hour" blocked rate. */
  recentTauMs: number;
  /** The time constant of the baseline: about a day of normal traffic. */
  baselineTauMs: number;
}

export const DEFAULT_SPIKE_RULES: SpikeRules = {
  minBlockedPerHour: 500,
  factor: 10,
  recentTauMs: 60 * 60_000,
  baselineTauMs: 24 * 3_600_000,
};

export interface SpikeState {
  /** Blocked hits per second, smoothed over about the last hour. */
  recent: number;
  /** Blocked hits per second in normal times, smoothed over about a day (not moved during a spike). */
  baseline: number;
  /** When the current spike began; null: none. */
  since: number | null;
}

/**
 * The spike state after a read that measured `blockedPerSecond` over the last `elapsedMs`.
 * A spike starts when the last hour's blocked hits reach `factor` times the baseline (and
 * at least `minBlockedPerHour`), and ends when they fall below half that: one notice per
 * spike, not one per read while it lasts. The baseline learns only outside spikes, so an
 * attack does not become the new normal.
 */
export function nextSpikeState(
  previous: SpikeState | null,
  blockedPerSecond: number,
  elapsedMs: number,
  at: number,
  rules: SpikeRules = DEFAULT_SPIKE_RULES,
): SpikeState & { started: boolean; ended: boolean } {
  if (previous === null) return { recent: blockedPerSecond, baseline: blockedPerSecond, since: null, started: false, ended: false };
  const recent = smoothRate(previous.recent, blockedPerSecond, elapsedMs, rules.recentTauMs);
  const threshold = Math.max(rules.minBlockedPerHour / 3600, rules.factor * previous.baseline);
  if (previous.since === null) {
    if (recent >= threshold) return { recent, baseline: previous.baseline, since: at, started: true, ended: false };
    const baseline = smoothRate(previous.baseline, blockedPerSecond, elapsedMs, rules.baselineTauMs);
    return { recent, baseline, since: null, started: false, ended: false };
  }
  if (recent < threshold / 2) return { recent, baseline: previous.baseline, since: null, started: false, ended: true };
  return { recent, baseline: previous.baseline, since: previous.since, started: false, ended: false };
}

/** A website due for a read, as the schedule planned it. */
export interface DueWebsite {
  domain: string;
  account: string;
  nextReadAt: number;
  /** Null: never read. */
  lastReadAt: number | null;
}

/**
 * How late a due read is, relative to the gap it was planned with: a website planned a minute
 * after its last read (near its limit) and a minute late is as late as one planned an hour out
 * and an hour late. Never read: the most urgent of all.
 */
export function lateness(website: DueWebsite, now: number): number {
  if (website.lastReadAt === null) return Number.POSITIVE_INFINITY;
  const planned = Math.max(1, website.nextReadAt - website.lastReadAt);
  return (now - website.nextReadAt) / planned;
}

/**
 * The `budget` websites to read now, the most at risk first: by lateness relative to the gap
 * each was planned with (ties: the earlier due). Only matters when more are due than the
 * budget allows; then a website read every minute because it is about to cross its limit goes
 * before a quiet one a few minutes past its hourly read.
 */
export function mostAtRisk<T extends DueWebsite>(due: T[], now: number, budget: number): T[] {
  if (due.length <= budget) return due;
  return due
    .map((website) => ({ website, late: lateness(website, now) }))
    .sort((a, b) => b.late - a.late || a.website.nextReadAt - b.website.nextReadAt)
    .slice(0, budget)
    .map(({ website }) => website);
}

/**
 * How at risk a due website is, 0 to 1, from the gap the schedule planned its read with: the
 * schedule plans the read of a website nearing a limit (little headroom, or a rate that reaches
 * it soon) at a short gap and a quiet one at `maxAgeMs`, so the planned gap already weighs
 * everything the last reads said. 1: planned at the shortest gap; 0: at the longest, or never
 * read (nothing known yet: an import's thousand new websites are not all at risk). Comparable
 * across servers with the same WPP_SYNC_MAX_AGE_MINUTES: the fleet budget orders servers by it.
 */
export function readRisk(website: DueWebsite, rules: ScheduleRules = DEFAULT_RULES): number {
  if (website.lastReadAt === null) return 0;
  const planned = website.nextReadAt - website.lastReadAt;
  const span = rules.maxAgeMs - rules.minIntervalMs;
  if (!(span > 0)) return 0;
  return Math.min(1, Math.max(0, (rules.maxAgeMs - planned) / span));
}

/** Planned within this many shortest gaps (5 minutes by default): the website is near a limit, and its read is urgent. */
export const AT_RISK_GAPS = 5;

/**
 * Whether a due website's read takes urgent tokens (docs/fleet.md): its read was planned within
 * AT_RISK_GAPS shortest gaps, and sooner than the longest (with WPP_SYNC_MAX_AGE_MINUTES of a few
 * minutes every website is read that often: that says nothing about a limit).
 */
export function isAtRisk(website: DueWebsite, rules: ScheduleRules = DEFAULT_RULES): boolean {
  if (website.lastReadAt === null) return false;
  const planned = website.nextReadAt - website.lastReadAt;
  return planned <= AT_RISK_GAPS * rules.minIntervalMs && planned < rules.maxAgeMs;
}
