/**
 * What a tick of the adaptive sync plans to read (src/core/services.ts, tickBudget): its seconds
 * at the rate the server's pacer has learned from the provider, so a server that shares its key
 * with others does not plan a backlog it cannot send within its minute.
 */
import { describe, expect, it } from 'vitest';
import { tickBudget } from '../../src/core/services.js';

describe('a tick’s budget', () => {
  it('is its seconds at the learned rate, not at WPP_SYNC_RATE, once the pacer has learned a lower one', () => {
    expect(tickBudget({ concurrency: 16, ratePerSecond: 40, learnedRate: () => 2.5 }, 55)).toBe(137);
  });

  it('is its seconds at WPP_SYNC_RATE before anything was learned, and never above it', () => {
    expect(tickBudget({ concurrency: 16, ratePerSecond: 40 }, 55)).toBe(2200);
    expect(tickBudget({ concurrency: 16, ratePerSecond: 40, learnedRate: () => 400 }, 55)).toBe(2200);
  });

  it('plans at least one read at the lowest rate, and has no bound when WPP_SYNC_RATE=0 lifts the limit', () => {
    expect(tickBudget({ concurrency: 16, ratePerSecond: 40, learnedRate: () => 0.001 }, 55)).toBe(1);
    expect(tickBudget({ concurrency: 16, ratePerSecond: 0 }, 55)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
