import { z } from 'zod';

export const faultSchema = z.strictObject({
  mode: z.enum(['none', 'down', 'slow', 'error', 'ratelimit']),
  /** `slow`: how long to wait before answering. */
  delayMs: z.number().int().min(0).max(600_000).default(2000),
  /** `ratelimit` (and `down`): the Retry-After seconds to announce. */
  retryAfter: z.number().int().min(0).max(3600).optional(),
  /** Only the next N /v1.0 requests, then back to `none`. */
  times: z.number().int().min(1).optional(),
  /** `down`: drop the connection instead of answering 503. */
  reset: z.boolean().default(false),
});
export type Fault = z.output<typeof faultSchema>;

/** The fault currently injected into /v1.0, counting down `times` as requests consume it. */
export function createFaultState() {
  let fault: Fault = faultSchema.parse({ mode: 'none' });
  let remaining: number | null = null;
  return {
    set(next: Fault): void {
      fault = next;
      remaining = next.times ?? null;
    },
    current: () => ({ ...fault, remaining }),
    /** The fault to apply to one request, consuming one of `times`. */
    consume(): Fault | null {
      if (fault.mode === 'none') return null;
      const applied = fault;
      if (remaining !== null && --remaining <= 0) {
        fault = faultSchema.parse({ mode: 'none' });
        remaining = null;
      }
      return applied;
    },
  };
}
export type FaultState = ReturnType<typeof createFaultState>;
