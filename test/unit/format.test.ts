import { describe, expect, it } from 'vitest';
import { createFormat } from '../../src/core/format.js';

const DEC_1_1405 = Date.UTC(2026, 11, 1, 14, 5);
const JAN_1 = Date.UTC(2027, 0, 1);

describe('the one formatter of numbers, days and times', () => {
  it('writes English days the way the pages always have, and says UTC when no zone is known', () => {
    const format = createFormat();
    expect(format.number(1234567)).toBe('1,234,567');
    expect(format.day(DEC_1_1405)).toBe('1 Dec');
    expect(format.date(DEC_1_1405)).toBe('1 Dec 2026');
    expect(format.dateTime(DEC_1_1405)).toBe('1 Dec 2026, 14:05 UTC');
    expect(format.utc).toBe(true);
  });

  it("writes in the reader's locale and the panel's time zone", () => {
    const format = createFormat({ locale: 'de', timeZone: 'Europe/Berlin' });
    expect(format.number(1234567)).toBe('1.234.567');
    expect(format.date(DEC_1_1405)).toBe('1. Dez. 2026');
    expect(format.dateTime(DEC_1_1405)).toMatch(/^1\. Dez\. 2026, 15:05 (MEZ|GMT\+1)$/);
    expect(format.utc).toBe(false);
  });

  it('gives a period its inclusive last day, in UTC days whatever the zone', () => {
    for (const timeZone of [undefined, 'Europe/Madrid', 'America/Los_Angeles']) {
      const format = createFormat({ locale: 'es', timeZone });
      expect(format.periodDay(Date.UTC(2026, 11, 1))).toBe('1 dic 2026');
      expect(format.lastDay(JAN_1)).toBe('31 dic 2026');
    }
  });

  it('falls back to English and UTC for a locale or zone Intl does not know, rather than failing a page', () => {
    const format = createFormat({ locale: 'not a locale!', timeZone: 'Mars/Olympus' });
    expect([format.locale, format.timeZone]).toEqual(['en', 'UTC']);
    expect(format.isoDay(DEC_1_1405)).toBe('2026-12-01');
  });
});

describe('the formatter for short moments and machine-read days', () => {
  it('writes a day and time without the year, in the panel zone, saying the zone', () => {
    expect(createFormat().dayTime(DEC_1_1405)).toBe('1 Dec, 14:05 UTC');
    expect(createFormat({ timeZone: 'Europe/Berlin' }).dayTime(DEC_1_1405)).toMatch(/^1 Dec, 15:05 (CET|GMT\+1)$/);
  });

  it('writes a period first and last day as ISO days for CSV cells, in UTC days as periods are counted', () => {
    const format = createFormat({ timeZone: 'America/Los_Angeles' });
    expect(format.isoPeriodDay(Date.UTC(2026, 11, 1))).toBe('2026-12-01');
    expect(format.isoLastDay(JAN_1)).toBe('2026-12-31');
  });
});
