/**
 * Usage and its consequences in words and dates, for the customer's pages: the account's
 * hits against its limit, the day the period resets and the forecast; the sentence that says
 * a limit is near (not only an amber bar); and, for a website the hit limit paused, since
 * when, until which day, and what to do (the host's upgrade page, or "contact your host").
 * Pure: every day and number is written by the one formatter (core/format.ts), every sentence
 * comes from the catalogs through `t` (customers.*), in the page's language.
 */
import { upgradeUrl } from '../config.js';
import type { Format } from './format.js';
import type { Translate } from './i18n.js';
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
  t: Translate,
  whose: 'website' | 'account' = 'website',
): string | null {
  const { usage, limit, warningPercent } = side;
  if (limit === null || usage >= limit || usage * 100 < limit * warningPercent) return null;
  const values = { limit: format.number(limit), count: limit };
  return whose === 'website' ? t('customers.usage.nearWebsite', values) : t('customers.usage.nearAccount', values);
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
export function accountHeader(input: AccountHeaderInput, format: Words, t: Translate): AccountHeader {
  const { hits, limit, period, forecastAt, now } = input;
  const reachedNow = limit !== null && hits >= limit;
  // Periods are counted in UTC days: the reset day is the next period's first day, read as such.
  const resetDay = format.periodDay(period.end);
  return {
    usage:
      limit === null
        ? t('customers.header.usageNoLimit', { hits: format.number(hits), count: hits })
        : t('customers.header.usage', { hits: format.number(hits), limit: format.number(limit), count: limit }),
    resets: t('customers.header.resets', { day: resetDay }),
    forecast:
      limit === null || reachedNow || (forecastAt !== null && forecastAt <= now)
        ? null
        : forecastAt === null
          ? t('customers.header.forecastNone')
          : t('customers.header.forecastOn', { day: format.day(forecastAt) }),
    near: nearLimitSentence({ usage: hits, limit, warningPercent: input.warningPercent }, format, t, 'account'),
    reached: reachedNow ? t('customers.header.reached', { day: resetDay }) : null,
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
export function pausedByLimit(input: PausedByLimitInput, format: Words, t: Translate): PausedByLimit {
  return {
    since: input.since === null ? null : t('customers.pausedByLimit.since', { time: format.dateTime(input.since) }),
    until: t('customers.pausedByLimit.until', { day: format.periodDay(input.period.end) }),
    nextStep: input.upgradeUrl
      ? { href: upgradeUrl(input.upgradeUrl, input), text: t('customers.pausedByLimit.raise') }
      : { href: null, text: t('customers.pausedByLimit.contact') },
  };
}
