import { describe, expect, it } from 'vitest';
import {
  isAtRisk,
  readRisk,
  DEFAULT_RULES,
  DEFAULT_SPIKE_RULES,
  lateness,
  limitReachedAt,
  mostAtRisk,
  nextSpikeState,
  planningRate,
  readInterval,
  rulesFor,
  smoothRate,
  type ScheduleRules,
} from '../../src/core/read-schedule.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const rules: ScheduleRules = { maxAgeMs: 60 * MINUTE, minIntervalMs: MINUTE, leadShare: 0.5, unmeasuredMs: 15 * MINUTE };

describe('readInterval', () => {
  it('reads a website without a limit, or with no traffic far from its limit, every max age', () => {
    expect(readInterval([], rules)).toBe(60 * MINUTE);
    expect(readInterval([{ usage: 5000, limit: null, ratePerSecond: 100 }], rules)).toBe(60 * MINUTE);
    expect(readInterval([{ usage: 0, limit: 100_000, ratePerSecond: 0 }], rules)).toBe(60 * MINUTE);
  });

  it('reads a busy website again at half the time left to its limit', () => {
    // 36,000 hits left at 40 a second: 15 minutes left, read again in 7.5.
    expect(readInterval([{ usage: 64_000, limit: 100_000, ratePerSecond: 40 }], rules)).toBe(7.5 * MINUTE);
    // At 10 a second an hour is left; the unused share (36%) allows 21.6 minutes: that is the gap.
    expect(readInterval([{ usage: 64_000, limit: 100_000, ratePerSecond: 10 }], rules)).toBe(21.6 * MINUTE);
  });

  it('reads a quiet website more often the nearer it is to its limit (less room for a surge)', () => {
    expect(readInterval([{ usage: 50_000, limit: 100_000, ratePerSecond: 0 }], rules)).toBe(30 * MINUTE);
    expect(readInterval([{ usage: 90_000, limit: 100_000, ratePerSecond: 0 }], rules)).toBe(6 * MINUTE);
  });

  it('never reads more often than the shortest gap, however near the limit or fast the traffic', () => {
    expect(readInterval([{ usage: 99_999, limit: 100_000, ratePerSecond: 1000 }], rules)).toBe(MINUTE);
  });

  it('leaves a website past its limit (enforcement acts on it) to the max age', () => {
    expect(readInterval([{ usage: 100_000, limit: 100_000, ratePerSecond: 50 }], rules)).toBe(60 * MINUTE);
    expect(readInterval([{ usage: 120_000, limit: 100_000, ratePerSecond: 50 }], rules)).toBe(60 * MINUTE);
  });

  it('takes the nearer of the website limit and the account aggregate', () => {
    const website = { usage: 1000, limit: 100_000, ratePerSecond: 1 };
    const account = { usage: 800_000, limit: 1_000_000, ratePerSecond: 500 };
    // The account has 200,000 hits left at 500 a second: 400 s, read again in 200 s.
    expect(readInterval([website, account], rules)).toBe(200_000);
    expect(readInterval([website], rules)).toBe(rules.maxAgeMs * 0.99);
  });

  it('reads a website again soon after a read that could not measure its rate (its first)', () => {
    expect(readInterval([{ usage: 0, limit: 100_000, ratePerSecond: 0 }], rules, false)).toBe(15 * MINUTE);
    expect(readInterval([{ usage: 95_000, limit: 100_000, ratePerSecond: 0 }], rules, false)).toBe(3 * MINUTE);
  });

  it('follows the configured max age, the other gaps staying within it', () => {
    expect(readInterval([], rulesFor(15))).toBe(15 * MINUTE);
    expect(rulesFor(5)).toMatchObject({ maxAgeMs: 5 * MINUTE, unmeasuredMs: 5 * MINUTE, minIntervalMs: MINUTE });
    expect(readInterval([], rulesFor(60))).toBe(DEFAULT_RULES.maxAgeMs);
  });
});

describe('smoothRate and planningRate', () => {
  it('starts at the first measurement and moves toward new ones by the weight of the interval', () => {
    expect(smoothRate(null, 10, 60_000, 30 * MINUTE)).toBe(10);
    const short = smoothRate(10, 110, MINUTE, 30 * MINUTE);
    const long = smoothRate(10, 110, 3 * HOUR, 30 * MINUTE);
    expect(short).toBeGreaterThan(10);
    expect(short).toBeLessThan(20);
    expect(long).toBeGreaterThan(109);
    expect(smoothRate(10, 110, 0, 30 * MINUTE)).toBe(10);
  });

  it('plans a website that just sped up at its new speed, one that slowed down at its smoothed one', () => {
    expect(planningRate(5, 50)).toBe(50);
    expect(planningRate(5, 0)).toBe(5);
  });
});

describe('limitReachedAt', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  const periodEnd = Date.parse('2026-12-01T00:00:00Z');

  it('extrapolates the current rate', () => {
    expect(limitReachedAt({ usage: 64_000, limit: 100_000, ratePerSecond: 10 }, now, periodEnd)).toBe(now + HOUR);
  });

  it('is null without a limit or traffic, or when the period ends first; now when already reached', () => {
    expect(limitReachedAt({ usage: 64_000, limit: null, ratePerSecond: 10 }, now, periodEnd)).toBeNull();
    expect(limitReachedAt({ usage: 64_000, limit: 100_000, ratePerSecond: 0 }, now, periodEnd)).toBeNull();
    expect(limitReachedAt({ usage: 0, limit: 100_000_000, ratePerSecond: 1 }, now, periodEnd)).toBeNull();
    expect(limitReachedAt({ usage: 100_000, limit: 100_000, ratePerSecond: 0 }, now, periodEnd)).toBe(now);
  });
});

describe('nextSpikeState', () => {
  const at = Date.parse('2026-11-25T10:00:00Z');
  const perHour = (n: number) => n / 3600;

  it('learns a baseline, then notices blocked hits far above it once, and ends the spike when they fall back', () => {
    let state = nextSpikeState(null, perHour(100), 5 * MINUTE, at);
    expect(state).toMatchObject({ since: null, started: false });
    for (let i = 1; i <= 24; i++) state = nextSpikeState(state, perHour(100), HOUR, at + i * HOUR);
    expect(state.baseline * 3600).toBeCloseTo(100, 0);

    // An attack: 20,000 blocked an hour, 200 times the normal.
    const attackStart = at + 25 * HOUR;
    state = nextSpikeState(state, perHour(20_000), 15 * MINUTE, attackStart);
    expect(state.started).toBe(true);
    expect(state.since).toBe(attackStart);
    state = nextSpikeState(state, perHour(20_000), 15 * MINUTE, attackStart + 15 * MINUTE);
    expect(state.started).toBe(false);
    expect(state.since).toBe(attackStart);
    // The attack did not become the normal.
    expect(state.baseline * 3600).toBeCloseTo(100, 0);

    state = nextSpikeState(state, perHour(100), 3 * HOUR, attackStart + 3 * HOUR);
    expect(state.ended).toBe(true);
    expect(state.since).toBeNull();
  });

  it('does not call a few blocked hits a spike, whatever the baseline', () => {
    let state = nextSpikeState(null, 0, HOUR, at);
    state = nextSpikeState(state, perHour(DEFAULT_SPIKE_RULES.minBlockedPerHour - 100), 2 * HOUR, at + 2 * HOUR);
    expect(state.started).toBe(false);
  });
});

describe('mostAtRisk', () => {
  const now = Date.parse('2026-11-25T10:00:00Z');
  const due = (domain: string, plannedGapMinutes: number | null, lateMinutes: number) => ({
    domain,
    account: 'a',
    nextReadAt: now - lateMinutes * MINUTE,
    lastReadAt: plannedGapMinutes === null ? null : now - (lateMinutes + plannedGapMinutes) * MINUTE,
  });

  it('measures lateness against the gap the read was planned with', () => {
    expect(lateness(due('near.example', 1, 1), now)).toBe(1);
    expect(lateness(due('quiet.example', 60, 5), now)).toBeCloseTo(5 / 60);
    expect(lateness(due('new.example', null, 0), now)).toBe(Number.POSITIVE_INFINITY);
  });

  it('when more are due than the budget, reads the never read and the most late for their gap first', () => {
    const candidates = [due('quiet.example', 60, 5), due('near.example', 1, 1), due('new.example', null, 0), due('calm.example', 30, 2)];
    expect(mostAtRisk(candidates, now, 2).map((website) => website.domain)).toEqual(['new.example', 'near.example']);
    // Within the budget, all of them, in the order given (the earliest due first).
    expect(mostAtRisk(candidates, now, 4)).toBe(candidates);
  });
});

describe('readRisk and isAtRisk', () => {
  const at = (lastReadAt: number | null, gapMs: number) => ({
    domain: 'x.example',
    account: 'x',
    lastReadAt,
    nextReadAt: (lastReadAt ?? 0) + gapMs,
  });

  it('measure how near a limit the schedule found a website by the gap it planned its read with', () => {
    expect(readRisk(at(0, 60 * MINUTE))).toBe(0);
    expect(readRisk(at(0, MINUTE))).toBe(1);
    expect(readRisk(at(0, 30 * MINUTE))).toBeCloseTo(30 / 59);
    // Nothing known of a website never read: not at risk (an import's new websites are not all urgent).
    expect(readRisk(at(null, MINUTE))).toBe(0);
    expect(isAtRisk(at(null, MINUTE))).toBe(false);
  });

  it('make a read urgent when it was planned within five shortest gaps of the last one', () => {
    expect(isAtRisk(at(0, 5 * MINUTE))).toBe(true);
    expect(isAtRisk(at(0, 5 * MINUTE + 1))).toBe(false);
    // Every website read every few minutes anyway (WPP_SYNC_MAX_AGE_MINUTES 3): a short gap says nothing.
    expect(isAtRisk(at(0, 3 * MINUTE), rulesFor(3))).toBe(false);
    expect(isAtRisk(at(0, 2 * MINUTE), rulesFor(3))).toBe(true);
  });
});
