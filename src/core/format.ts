/**
 * The one way numbers, days and times are written for people: the pages, the chart's labels,
 * CSV exports and e-mails all go through a Format made here, so "1 Dec" on a page is "1 Dec"
 * in the e-mail about it. Intl does the work, in the reader's locale and the panel's time zone
 * where known; without a time zone, times are in UTC and say so.
 *
 * Periods are stored half-open (start inclusive, end exclusive, as the provider counts them);
 * people read a period's last day, so `lastDay` turns an exclusive end into the inclusive date.
 */
import { DAY_MS } from '../time.js';

export interface FormatOptions {
  /** A BCP 47 tag such as `en`, `de-DE`; one Intl does not know falls back to `en`. */
  locale?: string | undefined;
  /** An IANA zone such as `Europe/Berlin`; absent or unknown: UTC, said in every time. */
  timeZone?: string | undefined;
}

export interface Format {
  readonly locale: string;
  readonly timeZone: string;
  /** Whether times are shown in UTC because the panel's zone is not known. */
  readonly utc: boolean;
  /** 1,234,567 (en), 1.234.567 (de). */
  number(n: number): string;
  /** "1 Dec": a day this year or near it (forecasts, resets). */
  day(at: number): string;
  /** "1 Dec 2026": a day with its year (period bounds, since when). */
  date(at: number): string;
  /** "1 Dec 2026, 14:05 UTC" (or the zone's name): a moment a person may compare with a log. */
  dateTime(at: number): string;
  /** "1 Dec, 14:05 UTC": a moment of these days (a forecast's hour, an attack's start), the year understood. */
  dayTime(at: number): string;
  /** A period's first day: periods are counted in UTC days, so it is read in UTC, whatever the zone. */
  periodDay(start: number): string;
  /** The last day of a half-open period ending at `endExclusive` (UTC days, as `periodDay`). */
  lastDay(endExclusive: number): string;
  /** "2026-12-01": a day in the panel's zone, for CSV cells and machine-sorted columns. */
  isoDay(at: number): string;
  /** "5 minutes ago", "vor 5 Minuten", "in 3 days": `at` seen from `now`, in whole minutes, hours or days. */
  ago(at: number, now: number): string;
  /** "350 ms", "40 s", "2 min 5 s", "1 h 3 min": how long a run took. */
  duration(ms: number): string;
  /** "2026-12-01": a period's first day for CSV cells (UTC days, as `periodDay`). */
  isoPeriodDay(start: number): string;
  /** "2026-12-31": the last day of a half-open period for CSV cells (UTC days, as `lastDay`). */
  isoLastDay(endExclusive: number): string;
}

const isKnownLocale = (locale: string) => {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([locale]).length > 0;
  } catch {
    return false;
  }
};

const isKnownTimeZone = (timeZone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
};

/**
 * Plain `en` writes dates the American way ("Dec 1"); the panels serve the world, and British
 * English ("1 Dec", 24-hour times) is what the pages have always shown.
 */
const dateLocaleFor = (locale: string) => (locale === 'en' ? 'en-GB' : locale);

export function createFormat(options: FormatOptions = {}): Format {
  const locale = options.locale && isKnownLocale(options.locale) ? options.locale : 'en';
  const dateLocale = dateLocaleFor(locale);
  const utc = !options.timeZone || !isKnownTimeZone(options.timeZone);
  const timeZone = utc ? 'UTC' : (options.timeZone as string);
  const numbers = new Intl.NumberFormat(locale);
  const days = new Intl.DateTimeFormat(dateLocale, { day: 'numeric', month: 'short', timeZone });
  const dates = new Intl.DateTimeFormat(dateLocale, { day: 'numeric', month: 'short', year: 'numeric', timeZone });
  const periodDates = new Intl.DateTimeFormat(dateLocale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  const times = new Intl.DateTimeFormat(dateLocale, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  });
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const units = Object.fromEntries(
    (['millisecond', 'second', 'minute', 'hour'] as const).map((unit) => [unit, new Intl.NumberFormat(locale, { style: 'unit', unit })]),
  ) as Record<'millisecond' | 'second' | 'minute' | 'hour', Intl.NumberFormat>;
  const dayTimes = new Intl.DateTimeFormat(dateLocale, {
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  });
  // en-CA writes ISO dates (yyyy-mm-dd) in any zone.
  const iso = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone });
  const isoUtc = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone: 'UTC' });
  return {
    locale,
    timeZone,
    utc,
    number: (n) => numbers.format(n),
    day: (at) => days.format(at),
    date: (at) => dates.format(at),
    dateTime: (at) => times.format(at),
    dayTime: (at) => dayTimes.format(at),
    periodDay: (start) => periodDates.format(start),
    lastDay: (endExclusive) => periodDates.format(endExclusive - 1),
    isoDay: (at) => iso.format(at),
    ago: (at, now) => agoIn(relative, at, now),
    duration: (ms) => durationIn(units, ms),
    isoPeriodDay: (start) => isoUtc.format(start),
    isoLastDay: (endExclusive) => isoUtc.format(endExclusive - 1),
  };
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Whole minutes, hours or days between `at` and `now` ("just now" under a minute: `now` in Intl's words). */
function agoIn(relative: Intl.RelativeTimeFormat, at: number, now: number): string {
  const diff = at - now;
  const size = Math.abs(diff);
  const sign = diff < 0 ? -1 : 1;
  if (size < MINUTE_MS) return relative.format(0, 'second');
  if (size < HOUR_MS) return relative.format(sign * Math.floor(size / MINUTE_MS), 'minute');
  if (size < DAY_MS) return relative.format(sign * Math.floor(size / HOUR_MS), 'hour');
  return relative.format(sign * Math.floor(size / DAY_MS), 'day');
}

/** The two largest units of a duration, each written by Intl ("2 min 5 s"; "2 Min. 5 s" in German). */
function durationIn(units: Record<'millisecond' | 'second' | 'minute' | 'hour', Intl.NumberFormat>, ms: number): string {
  if (ms < 1000) return units.millisecond.format(Math.round(ms));
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return units.second.format(seconds);
  const [big, bigUnit, small, smallUnit] =
    seconds < 3600
      ? [Math.floor(seconds / 60), units.minute, seconds % 60, units.second]
      : [Math.floor(seconds / 3600), units.hour, Math.floor((seconds % 3600) / 60), units.minute];
  return small ? `${bigUnit.format(big)} ${smallUnit.format(small)}` : bigUnit.format(big);
}
