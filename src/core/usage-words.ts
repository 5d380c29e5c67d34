/**
 * Usage and its consequences in words and dates, for the customer's pages: the account's
 * hits against its limit, the day the period resets and the forecast; the sentence that says
 * a limit is near (not only an amber bar); and, for a website the hit limit paused, since
 * when, until which day, and what to do (the host's upgrade page, or "contact your host").
 * Pure: every day and number is written by the one formatter (core/format.ts).
 */
import { upgradeUrl } from '../config.js';
import type { Format } from './format.js';
import type { Period } from './quota.js';

type Words = Pick<Format, 'number' | 'day' | 'dateTime' | 'periodDay'>;

export interface LimitSide {
  usage: number;
  /** null: no limit (or exempt). */
  limit: number | null;
  warningPercent: number;
}

/**
 * "Close to your limit: protection pauses at 1,100 hits." once the usage reaches the warning
 * threshold and until the limit itself (then the page says it is paused instead).
 */
export function nearLimitSentence(
  side: LimitSide,
  format: Pick<Format, 'number'>,
  whose: 'website' | 'account' = 'website',
): string | null {
  const { usage, limit, warningPercent } = side;
  if (limit === null || usage >= limit || usage * 100 < limit * warningPercent) return null;
  return whose === 'website'
    ? `Close to your limit: protection pauses at ${format.number(limit)} hits.`
    : `Close to your account’s limit: protection of all your domains pauses at ${format.number(limit)} hits.`;
}

export interface AccountHeaderInput {
  hits: number;
  limit: number | null;
  warningPercent: number;
  period: Period;
  /** When the account's limit is reached at this rate (core/forecast.ts); null: not this period. */
  forecastAt: number | null;
  now: number;
}

export interface AccountHeader {
  usage: string;
  resets: string;
  /** null without a limit, or once it is reached. */
  forecast: string | null;
  near: string | null;
  reached: string | null;
}

/** The account header of My domains: hits against the account's limit, the reset day, the forecast. */
export function accountHeader(input: AccountHeaderInput, format: Words): AccountHeader {
  const { hits, limit, period, forecastAt, now } = input;
  const reachedNow = limit !== null && hits >= limit;
  return {
    usage:
      limit === null
        ? `${format.number(hits)} hits this period (no limit)`
        : `${format.number(hits)} of ${format.number(limit)} hits this period`,
    // Periods are counted in UTC days: the reset day is the next period's first day, read as such.
    resets: `The period resets on ${format.periodDay(period.end)}.`,
    forecast:
      limit === null || reachedNow || (forecastAt !== null && forecastAt <= now)
        ? null
        : forecastAt === null
          ? 'At this rate, the limit is not reached this period.'
          : `At this rate, the limit is reached on ${format.day(forecastAt)}.`,
    near: nearLimitSentence({ usage: hits, limit, warningPercent: input.warningPercent }, format, 'account'),
    reached: reachedNow
      ? `Your account’s limit is reached: protection of your domains is paused until ${format.periodDay(period.end)}.`
      : null,
  };
}

export interface PausedByLimitInput {
  /** When enforcement paused it (its latest pause action); null: not recorded. */
  since: number | null;
  /** The current period: protection resumes when the next one starts. */
  period: Period;
  account: string;
  domain: string;
  /** WPP_UPGRADE_URL; undefined: the host set none. */
  upgradeUrl: string | undefined;
}

export interface PausedByLimit {
  since: string | null;
  until: string;
  /** A link to the host's upgrade page, or (href null) the words to contact the host. */
  nextStep: { href: string | null; text: string };
}

/** A website the hit limit paused: since when, until which day, and the host's next step. */
export function pausedByLimit(input: PausedByLimitInput, format: Words): PausedByLimit {
  return {
    since: input.since === null ? null : `Paused since ${format.dateTime(input.since)}.`,
    until: `Protection resumes on ${format.periodDay(input.period.end)}, when the next period starts.`,
    nextStep: input.upgradeUrl
      ? { href: upgradeUrl(input.upgradeUrl, input), text: 'Raise your limit' }
      : { href: null, text: 'To resume sooner, contact your host.' },
  };
}
