import { describe, expect, it } from 'vitest';
import { backoffDelay, retryDelay, type RetryPolicy } from '../../src/retry.js';

const policy = { baseMs: 1000, maxMs: 300_000 };

describe('backoffDelay', () => {
  it('doubles from the base per attempt up to the cap, with equal jitter in the upper half', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, policy, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, policy, () => 0.999_999))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(3000);
    expect(backoffDelay(10, policy, () => 0)).toBe(150_000);
    expect(backoffDelay(10, policy, () => 0.999_999)).toBe(300_000);
  });

  it('rounds to whole milliseconds', () => {
    expect(backoffDelay(1, { baseMs: 3, maxMs: 100 }, () => 0.5)).toBe(2);
    expect(Number.isInteger(backoffDelay(2, { baseMs: 7, maxMs: 100 }, () => 0.123))).toBe(true);
  });

  it('gives the nominal delay without jitter, never asking for a random number', () => {
    const random = () => {
      throw new Error('no jitter means no randomness');
    };
    expect([1, 2, 3, 9, 10].map((attempt) => backoffDelay(attempt, { ...policy, jitter: 'none' }, random))).toEqual([
      1000, 2000, 4000, 256_000, 300_000,
    ]);
  });

  it('stays within [0, cap] for odd attempt numbers, odd settings and a random source out of range', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(500);
    expect(backoffDelay(-3, policy, () => 0)).toBe(500);
    expect(backoffDelay(2.9, policy, () => 0)).toBe(1000);
    expect(backoffDelay(Number.NaN, policy, () => 0)).toBe(150_000);
    expect(backoffDelay(Number.POSITIVE_INFINITY, policy, () => 0)).toBe(150_000);
    expect(backoffDelay(10_000, policy, () => 1)).toBe(300_000);
    expect(backoffDelay(1, policy, () => -5)).toBe(500);
    expect(backoffDelay(1, policy, () => 7)).toBe(1000);
    expect(backoffDelay(3, { baseMs: -10, maxMs: 100 }, () => 0.5)).toBe(0);
    expect(backoffDelay(3, { baseMs: 10, maxMs: -1 }, () => 0.5)).toBe(0);
  });

  it('uses Math.random when no source is given', () => {
    for (let i = 0; i < 50; i++) {
      const delay = backoffDelay(4, policy);
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(8000);
    }
  });
});

describe('retryDelay', () => {
  const transport: RetryPolicy = { baseMs: 250, maxMs: 30_000, limit: 4, maxRetryAfterMs: 60_000 };

  it('backs off until the limit, then gives up', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelay(attempt, transport, undefined, () => 0))).toEqual([125, 250, 500, 1000, undefined]);
  });

  it("follows the provider's Retry-After instead of the backoff, and gives up when it is too long", () => {
    expect(retryDelay(1, transport, 5000, () => 0)).toBe(5000);
    expect(retryDelay(1, transport, 60_000, () => 0)).toBe(60_000);
    expect(retryDelay(1, transport, 60_001, () => 0)).toBeUndefined();
    expect(retryDelay(5, transport, 10, () => 0)).toBeUndefined();
  });

  it('never answers 0, which got reads as "do not retry"', () => {
    expect(retryDelay(1, transport, 0, () => 0)).toBe(1);
    expect(retryDelay(1, { ...transport, baseMs: 0 }, undefined, () => 0)).toBe(1);
    expect(retryDelay(1, { ...transport, baseMs: 1 }, undefined, () => 0)).toBe(1);
  });

  it('retries nothing with a limit of 0', () => {
    expect(retryDelay(1, { ...transport, limit: 0 }, undefined, () => 0)).toBeUndefined();
  });
});
