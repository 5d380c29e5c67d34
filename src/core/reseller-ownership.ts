/**
 * Which reseller owns which account, as the panel says (issue 22): the reseller an
 * account.created names gets its row, and account.transferred hands the account to another
 * reseller (null: to the host itself). The provider knows nothing of resellers: only the
 * plugin's record changes.
 */
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { PanelEvent } from '../panel/events.js';

type OwnershipRepo = Pick<AccountsRepo, 'getAccount' | 'saveReseller' | 'setAccountReseller'>;

/** A reseller the panel named gets its row (the e-mail comes from the panel's listing: `wpp import`). */
export function recordReseller(accounts: OwnershipRepo, reseller: string | null | undefined): void {
  if (reseller) accounts.saveReseller({ name: reseller, email: null });
}

/** An account the plugin does not know yet is left alone: its creation (a hook, or `wpp import`) brings the owner with it. */
export function transferAccount(accounts: OwnershipRepo, logger: Logger, event: PanelEvent): void {
  const reseller = event.reseller ?? null;
  const before = accounts.getAccount(event.account);
  if (!before) {
    logger.info({ account: event.account, reseller }, 'transfer of an account the plugin does not know: nothing to do');
    return;
  }
  recordReseller(accounts, reseller);
  accounts.setAccountReseller(event.account, reseller);
  logger.info({ account: event.account, from: before.reseller ?? null, to: reseller }, 'account transferred to another reseller');
}
