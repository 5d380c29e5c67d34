import { describe, expect, it } from 'vitest';
import { forecastLimitReached } from '../../src/core/forecast.js';

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
