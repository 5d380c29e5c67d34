import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseBusy } from '../errors.js';

/** For a write an HTTP request waits on: about a second of tries, then the busy error (a 503). */
export const REQUEST_BUSY_RETRY = { attempts: 8, delayMs: 125 };

/**
 * Runs a write, and while another process holds the database's write lock tries it again
 * after a pause that lets the event loop run (the busy timeout itself blocks it). For
 * background work whose result must not be lost: a job's outcome, a page of statistics.
 * Other errors, and the last busy one, are thrown.
 */
export async function retryWhileBusy<T>(write: () => T, options: { attempts?: number; delayMs?: number } = {}): Promise<T> {
  const attempts = options.attempts ?? 30;
  const delayMs = options.delayMs ?? 250;
  for (let attempt = 1; ; attempt++) {
    try {
      return write();
    } catch (error) {
      if (!isDatabaseBusy(error) || attempt >= attempts) throw error;
      await sleep(delayMs);
    }
  }
}
