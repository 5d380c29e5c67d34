import { describe, expect, it } from 'vitest';
import { createFormat } from '../../src/core/format.js';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const MINUTE = 60_000;

describe("the formatter's relative times and durations, in the reader's language", () => {
  it('says how long ago (or how soon) in whole minutes, hours or days', () => {
    const en = createFormat({ locale: 'en' });
    expect(en.ago(NOW - 10_000, NOW)).toBe('now');
    expect(en.ago(NOW - 5 * MINUTE, NOW)).toBe('5 minutes ago');
    expect(en.ago(NOW - 3 * 60 * MINUTE, NOW)).toBe('3 hours ago');
    expect(en.ago(NOW + 3 * 24 * 60 * MINUTE, NOW)).toBe('in 3 days');
    expect(createFormat({ locale: 'de' }).ago(NOW - 5 * MINUTE, NOW)).toBe('vor 5 Minuten');
    expect(createFormat({ locale: 'es' }).ago(NOW - 2 * 24 * 60 * MINUTE, NOW)).toBe('anteayer');
  });

  it('writes a duration in its two largest units', () => {
    const en = createFormat({ locale: 'en' });
    expect([350, 40_000, 125_000, 63 * MINUTE, 60 * MINUTE].map((ms) => en.duration(ms))).toEqual([
      '350 ms',
      '40 sec',
      '2 min 5 sec',
      '1 hr 3 min',
      '1 hr',
    ]);
    expect(createFormat({ locale: 'de' }).duration(125_000)).toBe('2 Min. 5 Sek.');
  });
});
