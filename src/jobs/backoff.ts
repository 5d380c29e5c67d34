export interface BackoffOptions {
  /** Delay around the first retry, in ms. Default 1000. */
  baseMs?: number;
  /** Cap of one delay, in ms. Default 300000 (5 minutes). */
  maxMs?: number;
  /** Source of jitter in [0, 1). Default Math.random. */
  random?: () => number;
}

/**
 * Delay before the next run after `attempt` failed runs (1 = the first run failed):
 * base * 2^(attempt - 1), capped at maxMs, with "equal jitter" (a random point in the upper
 * half) so that jobs failing together do not all come back in the same instant, while a
 * retry never comes sooner than half the nominal delay.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const baseMs = Math.max(0, options.baseMs ?? 1000);
  const maxMs = Math.max(0, options.maxMs ?? 300_000);
  const random = options.random ?? Math.random;
  const exponent = Number.isFinite(attempt) ? Math.min(Math.max(Math.floor(attempt), 1) - 1, 62) : 62;
  const nominal = Math.min(maxMs, baseMs * 2 ** exponent);
  const jitter = Math.min(Math.max(random(), 0), 1);
  return Math.round(nominal / 2 + (nominal / 2) * jitter);
}
