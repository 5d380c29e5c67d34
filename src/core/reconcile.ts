/**
 * Reconciliation: callbacks can be lost (the plugin was down, a proxy dropped them, or the
 * customer cleared the callback address with their own provider key), so websites still in a
 * non-final state, and websites the host holds paused, are looked up again on a schedule. The
 * re-read (provisioning's refreshWebsite) applies a host pause again that the provider no longer shows.
 */
import type { AccountsRepo } from '../db/accounts.repo.js';
import { RECONCILED_HOST_PAUSES } from './host-pause.js';

export interface ReconcileOptions {
  /** Look again at websites not read for this long. Default one minute. */
  staleAfterMs?: number;
  /** At most this many per run. Default 500. */
  limit?: number;
  /** The time now (epoch ms), from the plugin's clock. */
  now: number;
}

/** Queues a provider re-read for every active website whose status is unsettled, or host-paused, and stale. */
export function reconcileWebsites(
  accounts: AccountsRepo,
  /** Queues re-reads; one already waiting for a website is not doubled. */
  enqueueRefreshes: (refreshes: { domain: string; account: string }[]) => void,
  options: ReconcileOptions,
): { enqueued: number } {
  const stale = accounts.websitesToRecheck(options.now - (options.staleAfterMs ?? 60_000), options.limit ?? 500, RECONCILED_HOST_PAUSES);
  enqueueRefreshes(stale.map((website) => ({ domain: website.domain, account: website.account })));
  return { enqueued: stale.length };
}
