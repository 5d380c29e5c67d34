/**
 * The one retry policy of the plugin and its sandbox, in the shape of got's
 * calculate-retry-delay: exponential backoff with a cap and jitter, and for calls retried on
 * the spot a retry limit and the provider's `Retry-After`. Pure (randomness is a parameter),
 * and free of imports so that every layer may use it: the job worker, both transports of the
 * provider client, and the sandbox's callback delivery.
 */

export interface BackoffPolicy {
  /** Delay around the first retry, in ms; it doubles per attempt. */
  baseMs: number;
  /** Cap of one delay, in ms. */
  maxMs: number;
  /**
   * `equal` (default): a random point in the upper half of the nominal delay, so that callers
   * failing together do not all come back in the same instant, while a retry never comes
   * sooner than half the nominal delay. `none`: the nominal delay, for a schedule that is
   * documented as fixed (the sandbox's callbacks).
   */
  jitter?: 'equal' | 'none';
}

export interface RetryPolicy extends BackoffPolicy {
  /** Retries after the first attempt; a later failure gives up. */
  limit: number;
  /** A `Retry-After` longer than this gives up instead of waiting. */
  maxRetryAfterMs: number;
}

/**
 * Delay before the next try after `attempt` failed tries (1 = the first one failed):
 * base * 2^(attempt - 1), capped at maxMs, then jittered. `random` returns a number in [0, 1).
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const baseMs = Math.max(0, policy.baseMs);
  const maxMs = Math.max(0, policy.maxMs);
  // A fractional, zero or absurd attempt number still gives a delay within [0, maxMs].
  const exponent = Number.isFinite(attempt) ? Math.min(Math.max(Math.floor(attempt), 1) - 1, 62) : 62;
  const nominal = Math.min(maxMs, baseMs * 2 ** exponent);
  if (policy.jitter === 'none') return nominal;
  const jitter = Math.min(Math.max(random(), 0), 1);
  return Math.round(nominal / 2 + (nominal / 2) * jitter);
}

/**
 * For a call that may be retried now: the delay before the retry after failed attempt
 * `attempt`, or undefined to give up (past the limit, or a `Retry-After` above
 * maxRetryAfterMs). A `Retry-After` replaces the backoff. Never less than 1 ms: got reads 0 as
 * "do not retry", and a `Retry-After` of 0 still yields to the event loop.
 */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfterMs?: number, random?: () => number): number | undefined {
  if (attempt > policy.limit) return undefined;
  if (retryAfterMs !== undefined) return retryAfterMs > policy.maxRetryAfterMs ? undefined : Math.max(1, retryAfterMs);
  return Math.max(1, backoffDelay(attempt, policy, random));
}
