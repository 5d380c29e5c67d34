import { createTranslations, loadCatalogs } from '../../src/core/i18n.js';
import { paths } from '../../src/paths.js';
import { describe, expect, it } from 'vitest';
import { createFormat } from '../../src/core/format.js';
import { currentForecast, forecastLimitReached, forecastWords } from '../../src/core/forecast.js';

/** The English messages (locales/en.json), as the pages pass them. */
const t = createTranslations(loadCatalogs(paths.locales)).en;

const DAY = 86_400_000;
const start = Date.parse('2026-11-01T00:00:00Z');
const end = start + 30 * DAY;

describe('forecastLimitReached', () => {
  it('extrapolates the average rate of the period so far', () => {
    // 1000 hits in 10 days: 100 a day, so 2000 is reached after 20 days.
    expect(forecastLimitReached({ usage: 1000, periodStart: start, periodEnd: end, now: start + 10 * DAY, limit: 2000 })).toBe(
      start + 20 * DAY,
    );
  });

  it('is null when the limit would be reached only at or after the end of the period', () => {
    expect(forecastLimitReached({ usage: 1000, periodStart: start, periodEnd: end, now: start + 10 * DAY, limit: 3000 })).toBeNull();
    expect(forecastLimitReached({ usage: 1000, periodStart: start, periodEnd: end, now: start + 10 * DAY, limit: 2999 })).toBe(
      start + Math.ceil((2999 * 10 * DAY) / 1000),
    );
  });

  it('is null without a limit, without usage, or before any time has elapsed', () => {
    expect(forecastLimitReached({ usage: 1000, periodStart: start, periodEnd: end, now: start + DAY, limit: null })).toBeNull();
    expect(forecastLimitReached({ usage: 0, periodStart: start, periodEnd: end, now: start + DAY, limit: 10 })).toBeNull();
    expect(forecastLimitReached({ usage: 5, periodStart: start, periodEnd: end, now: start, limit: 10 })).toBeNull();
    expect(forecastLimitReached({ usage: 5, periodStart: start, periodEnd: end, now: start - DAY, limit: 10 })).toBeNull();
  });

  it('gives an already reached limit the estimated time it was reached, never after now', () => {
    // 3000 hits in 10 days: 300 a day, so 1500 was reached after 5 days.
    expect(forecastLimitReached({ usage: 3000, periodStart: start, periodEnd: end, now: start + 10 * DAY, limit: 1500 })).toBe(
      start + 5 * DAY,
    );
    const now = start + 10 * DAY;
    expect(forecastLimitReached({ usage: 1500, periodStart: start, periodEnd: end, now, limit: 1500 })).toBe(now);
    expect(forecastLimitReached({ usage: 7, periodStart: start, periodEnd: end, now, limit: 0 })).toBe(start);
  });

  it('exactly at the end of the period: only a limit already reached has a time', () => {
    expect(forecastLimitReached({ usage: 1000, periodStart: start, periodEnd: end, now: end, limit: 1001 })).toBeNull();
    expect(forecastLimitReached({ usage: 1000, periodStart: start, periodEnd: end, now: end, limit: 1000 })).toBe(end);
    expect(forecastLimitReached({ usage: 1000, periodStart: start, periodEnd: end, now: end + DAY, limit: 500 })).toBe(start + 15 * DAY);
  });
});

describe('currentForecast', () => {
  const now = start + 10 * DAY;
  // 1000 hits in 10 days: the period average reaches 2000 after 20 days.
  const base = { now, periodEnd: end, counted: { start, end } };
  const side = (stored: { limitReachedAt: number | null; periodEnd: number | null; hitRate: number | null } | null) => ({
    usage: 1000,
    limit: 2000,
    stored,
  });

  it('uses the stored forecasts once the sync has measured the website this period', () => {
    const stored = { limitReachedAt: now + 3 * 3_600_000, periodEnd: end, hitRate: 0.05 };
    const account = { limitReachedAt: now + 5 * 3_600_000, periodEnd: end, hitRate: 0.1 };
    expect(currentForecast({ ...base, website: side(stored), account: side(account) })).toEqual({
      website: now + 3 * 3_600_000,
      account: now + 5 * 3_600_000,
      basis: 'recent_rate',
    });
    // A stored "not this period" is an answer too, not a gap to fill.
    expect(currentForecast({ ...base, website: side({ ...stored, limitReachedAt: null }), account: side(null) })).toEqual({
      website: null,
      account: start + 20 * DAY,
      basis: 'recent_rate',
    });
  });

  it('falls back to the period average when nothing is stored for this period', () => {
    const average = { website: start + 20 * DAY, account: start + 20 * DAY, basis: 'period_average' };
    const account = { limitReachedAt: now + DAY, periodEnd: end, hitRate: 0.1 };
    expect(currentForecast({ ...base, website: side(null), account: side(account) })).toEqual(average);
    // Read once: no rate measured yet.
    expect(
      currentForecast({ ...base, website: side({ limitReachedAt: null, periodEnd: end, hitRate: null }), account: side(account) }),
    ).toEqual(average);
    // About the last period.
    expect(
      currentForecast({ ...base, website: side({ limitReachedAt: now + DAY, periodEnd: start, hitRate: 1 }), account: side(null) }),
    ).toEqual(average);
  });

  it('forecasts nothing for a limit that no longer applies, whatever was stored', () => {
    const stored = { limitReachedAt: now + DAY, periodEnd: end, hitRate: 1 };
    const forecast = currentForecast({ ...base, website: { ...side(stored), limit: null }, account: { ...side(stored), limit: null } });
    expect(forecast).toEqual({ website: null, account: null, basis: 'recent_rate' });
  });
});

describe('forecastWords', () => {
  const utc = createFormat();
  const now = Date.parse('2026-11-20T10:30:00Z');
  it('names the UTC day and hour, "reached" once that time has come, "not this period" for none', () => {
    expect(forecastWords(Date.parse('2026-11-27T14:59:59Z'), now, utc, t)).toBe('27 Nov, 14:00 UTC');
    expect(forecastWords(Date.parse('2026-11-21T03:00:00Z'), now, utc, t)).toBe('21 Nov, 03:00 UTC');
    expect(forecastWords(now, now, utc, t)).toBe('reached');
    expect(forecastWords(now - DAY, now, utc, t)).toBe('reached');
    expect(forecastWords(null, now, utc, t)).toBe('not this period');
  });

  it("names the hour in the panel's time zone when it is known", () => {
    const berlin = createFormat({ timeZone: 'Europe/Berlin' });
    expect(forecastWords(Date.parse('2026-11-27T14:59:59Z'), now, berlin, t)).toMatch(/^27 Nov, 15:00 (CET|GMT\+1)$/);
  });
});
