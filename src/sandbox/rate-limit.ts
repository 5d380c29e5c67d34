/**
 * Per-key token buckets: `perSecond` requests a second with a burst of the same size.
 * `take` answers how long the caller must wait, 0 when the request may go ahead.
 */
export function createRateLimiter(perSecond: number, now: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key: string): number {
      if (perSecond <= 0) return 0;
      const t = now();
      const bucket = buckets.get(key) ?? { tokens: perSecond, at: t };
      bucket.tokens = Math.min(perSecond, bucket.tokens + ((t - bucket.at) / 1000) * perSecond);
      bucket.at = t;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.ceil(((1 - bucket.tokens) / perSecond) * 1000);
    },
    reset: () => buckets.clear(),
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
