import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { describeError } from '../errors.js';
import { backoffDelay } from '../retry.js';
import type { SandboxStore, StoredCallback } from './store.js';

export interface CallbackDispatcherOptions {
  store: SandboxStore;
  now: () => number;
  logger: Logger;
  /** First retry delay; doubles per attempt. Default 1000 ms. */
  retryBaseMs?: number;
  /** Longest wait between two attempts. Default 5 minutes. */
  retryMaxDelayMs?: number;
  /** How long after the change the sandbox keeps trying. Default one hour. */
  retryWindowMs?: number;
  /** Per-attempt timeout. Default 5000 ms. */
  timeoutMs?: number;
  /** Deliveries in flight at once. Default 16. */
  concurrency?: number;
}

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes, keyed with the owning user's API key. */
export function signCallbackBody(body: string, apiKey: string): string {
  return `sha256=${createHmac('sha256', apiKey).update(body).digest('hex')}`;
}

/**
 * Delivers queued callbacks (status and certificate changes) in the background. Deliveries live in the callbacks
 * table, so a restart resumes them; an API response never waits for one.
 */
export function createCallbackDispatcher(options: CallbackDispatcherOptions) {
  const { store, now, logger } = options;
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const retryMaxDelayMs = options.retryMaxDelayMs ?? 300_000;
  const retryWindowMs = options.retryWindowMs ?? 3_600_000;
  const timeoutMs = options.timeoutMs ?? 5000;
  const concurrency = options.concurrency ?? 16;

  const inFlight = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const pending = new Set<Promise<void>>();

  const deliver = async (callback: StoredCallback): Promise<void> => {
    const owner = store.getUser(callback.userId);
    const at = () => now();
    if (!owner) {
      store.markCallbackFailed(callback.id, { status: null, error: 'owner no longer exists', nextAttemptAt: null, gaveUpAt: at() });
      return;
    }
    let status: number | null = null;
    let error: string;
    try {
      const response = await fetch(callback.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'wpp-sandbox-callback/1',
          'x-signature': signCallbackBody(callback.body, owner.apiKey),
        },
        body: callback.body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      });
      status = response.status;
      await response.body?.cancel();
      if (status >= 200 && status < 300) {
        store.markCallbackDelivered(callback.id, status, at());
        return;
      }
      error = `receiver answered ${status}`;
    } catch (cause) {
      error = describeError(cause);
    }
    const attempts = callback.attempts + 1;
    // No jitter: the documented schedule is 1 s doubling, at most 5 minutes apart.
    const delay = backoffDelay(attempts, { baseMs: retryBaseMs, maxMs: retryMaxDelayMs, jitter: 'none' });
    const nextAttemptAt = at() + delay;
    const givingUp = nextAttemptAt - callback.createdAt > retryWindowMs;
    store.markCallbackFailed(callback.id, {
      status,
      error,
      nextAttemptAt: givingUp ? null : nextAttemptAt,
      gaveUpAt: givingUp ? at() : null,
    });
    logger.warn({ callback: callback.id, domain: callback.domain, attempts, status, error, givingUp }, 'callback failed');
  };

  const schedule = () => {
    if (stopped) return;
    clearTimeout(timer);
    const next = store.nextCallbackAt();
    if (next === null) return;
    timer = setTimeout(pump, Math.max(0, Math.min(next - now(), 1000)));
    timer.unref();
  };

  function pump(): void {
    // Runs to completion without awaiting, so it is never re-entered.
    if (stopped) return;
    const free = concurrency - inFlight.size;
    if (free > 0) {
      for (const callback of store.dueCallbacks(now(), free + inFlight.size)) {
        if (inFlight.has(callback.id) || inFlight.size >= concurrency) continue;
        inFlight.add(callback.id);
        const delivery = deliver(callback)
          .catch((error: unknown) => logger.error({ err: error, callback: callback.id }, 'callback delivery crashed'))
          .finally(() => {
            inFlight.delete(callback.id);
            pending.delete(delivery);
            setImmediate(pump);
          });
        pending.add(delivery);
      }
    }
    schedule();
  }

  return {
    /** Something was queued: look now rather than at the next timer. */
    wake: () => setImmediate(pump),
    start: () => {
      stopped = false;
      pump();
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await Promise.allSettled([...pending]);
    },
  };
}

export type CallbackDispatcher = ReturnType<typeof createCallbackDispatcher>;
