/**
 * When the provider last answered this plugin, for the admin overview. Statistics samples show
 * it only once websites are read; a new server with no website yet has still reached the
 * provider (its registration), and a panel admin's first look should say so. Every process
 * (serve, workers, one-shot commands) records it, so it is kept in the database.
 */
import type { ProviderAttempt } from '../provider/index.js';

/** At most one write a minute per process: a full sync answers thousands of times a minute. */
const RECORD_EVERY_MS = 60_000;

export interface ProviderContactDeps {
  now: () => number;
  /** Stores the time of an answer (kept in the database, read by the overview). */
  recordAnsweredAt: (at: number) => void;
}

/**
 * An observer of the provider client's attempts. Only answers the plugin could use count: a
 * refused key (401/403) or a failing provider (5xx) is an answer, but not a working provider.
 */
export function createProviderContactRecorder(deps: ProviderContactDeps): (attempt: ProviderAttempt) => void {
  let lastRecorded = -Infinity;
  return (attempt) => {
    if (!('status' in attempt) || attempt.status >= 400) return;
    const at = deps.now();
    if (at - lastRecorded < RECORD_EVERY_MS) return;
    lastRecorded = at;
    deps.recordAnsweredAt(at);
  };
}
