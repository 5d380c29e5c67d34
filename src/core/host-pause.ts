/**
 * Pauses the host decided, checked against what the provider shows. The customer holds their
 * own provider API key (the provider's embedded rules editor needs it in its address), and with
 * it can set `status=online` at the provider on a website the host paused. Whenever the plugin
 * reads a website (a callback's re-read, the reconcile pass), a host pause the provider no
 * longer shows is applied again. A pause the customer made, in the plugin or in the provider's
 * dashboard, is theirs to end: it is not a host pause.
 */
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { RecordedRead } from '../db/statistics.repo.js';
import type { ProviderWebsite } from '../provider/index.js';
import type { PausedBy, Website } from './types.js';

/**
 * Pauses the host made, which the customer may not end: the account suspended or removed in the
 * panel, the domain removed there, an admin's or a reseller's pause, the hit limit, a package without protection.
 */
export const HOST_PAUSES: ReadonlySet<PausedBy> = new Set<PausedBy>([
  'suspension',
  'admin',
  // A reseller's pause of their customer's website: the customer's host, as far as the customer is concerned.
  'reseller',
  'enforcement',
  'account_deleted',
  'domain_removed',
  // The account's hosting package no longer includes web protection (core/package-protection.ts).
  'package',
]);

/** The host pauses the reconcile pass re-reads every interval (only active websites are reconciled). */
export const RECONCILED_HOST_PAUSES = ['suspension', 'admin', 'reseller', 'enforcement', 'package'] as const satisfies readonly PausedBy[];

/** A host pause found undone at the provider, about to be applied again. */
export interface HostPauseUndone {
  website: Website;
  pausedBy: PausedBy;
  /** The status the provider was asked for instead (online, setup). */
  shownStatus: string;
  /** Names this undo (the provider's time of the change): the same undo read twice is one. */
  undoneAt: string;
}

/** The pause the host holds on the website, or null when it holds none. */
export function hostPauseOf(website: Pick<Website, 'desiredStatus' | 'pausedBy'>): PausedBy | null {
  return website.desiredStatus === 'paused' && website.pausedBy !== null && HOST_PAUSES.has(website.pausedBy) ? website.pausedBy : null;
}

/**
 * The status the provider was asked for, when it is one that undoes a pause (`online`, or
 * `setup`); null otherwise. The requested status, not the shown one: a website waiting for DNS
 * shows `pending_dns` whatever was asked. A provider that reports no requested status is judged
 * on its shown status, and an ambiguous one (pending_dns) is not taken for an undo.
 */
export function unpausedAtProvider(remote: Pick<ProviderWebsite, 'status' | 'requested_status'>): string | null {
  const asked = remote.requested_status ?? remote.status;
  return asked === 'online' || asked === 'setup' ? asked : null;
}

/** Who undid a host pause at the provider: the owner's key is the only one besides the host's own partner key that may. */
export const undoneBy = (website: Pick<Website, 'account'>): string => `customer:${website.account}`;

/** The `reason` of the repause record: which of the host's pauses was undone. */
export const undoneReason = (pausedBy: PausedBy): string => `${pausedBy}_undone`;

/**
 * The websites the host holds paused that a statistics read found counting visits. A paused
 * website's visitors reach it directly, so the provider counts nothing for it: traffic means
 * it is online again (or was until the pause, when the read spans it). Such a website is
 * re-read now rather than at the next reconcile pass.
 */
export function trafficWhileHeld(accounts: Pick<AccountsRepo, 'pausedAmong'>, reads: readonly RecordedRead[]) {
  const counted = reads.filter((read) => read.delta.total > 0).map((read) => read.domain);
  return accounts.pausedAmong(counted, RECONCILED_HOST_PAUSES);
}

/** Re-reads now the websites of `reads` the host holds paused that counted visits (a customer may have put them online). */
export function recheckHeld(
  deps: { accounts: Pick<AccountsRepo, 'pausedAmong'>; recheck?: ((websites: { domain: string; account: string }[]) => void) | undefined },
  reads: readonly RecordedRead[],
): void {
  if (!deps.recheck) return;
  const held = trafficWhileHeld(deps.accounts, reads);
  if (held.length > 0) deps.recheck(held);
}
