/**
 * Provisioning's share of accounts that move between panel servers (issue 23, docs/fleet.md
 * "Accounts that move"): adopting a website another server serves or let go, and sending a
 * status with the check before a pause. The decisions are core/serving-server.ts's; this is
 * their use of the provider and the plugin's rows.
 */
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { PanelEvent } from '../panel/events.js';
import { isProviderError, type ProviderClient, type ProviderWebsite } from '../provider/index.js';
import { callbackTokenFor, hashToken } from './identity.js';
import {
  adoptedStatus,
  adoptedTags,
  adoptionOf,
  claimedTags,
  createServingCheck,
  releasedTags,
  servedElsewhereFact,
  standingOf,
} from './serving-server.js';
import type { Account, DesiredStatus, PausedBy, Website } from './types.js';

/** What sending a status answers when another server serves the website: nothing was sent, nothing is saved. */
export const LEFT_ALONE = Symbol('left alone');

/** The pauses that let a website go because the panel removed it here: written with the released-by tag. */
const REMOVAL_PAUSES: ReadonlySet<PausedBy | null> = new Set<PausedBy | null>(['domain_removed', 'account_deleted']);

export interface AccountMovesDeps {
  provider: Pick<ProviderClient, 'lookupWebsite' | 'updateWebsite' | 'setWebsiteStatus'>;
  accounts: Pick<AccountsRepo, 'getWebsite' | 'saveWebsite' | 'setFact' | 'markProvisioned'>;
  logger: Logger;
  now: () => number;
  autoProtect: () => boolean;
  /** The callback key, and this server: its id (absent: a server that does not tell itself apart, nothing is adopted or checked). */
  settings: { callbackKey: string; server: { id?: string | undefined } };
}

/** Provisioning's own ways of naming a website: this server's tags for a plan, and the website's callback address. */
export interface ProvisioningNames {
  tagsFor: (plan: string) => string[];
  callbackUrlFor: (domain: string) => string;
}

export function createAccountMoves(deps: AccountMovesDeps, names: ProvisioningNames) {
  const { provider, accounts, logger } = deps;
  const serverId = deps.settings.server.id;
  // Before every delete or pause: a website another server serves now is left alone.
  const servingCheck = serverId
    ? createServingCheck({ serverId, lookupWebsite: (domain) => provider.lookupWebsite(domain), accounts, logger })
    : null;

  /**
   * Sends a status; a pause is checked at the provider first: another server's website is left
   * alone (LEFT_ALONE), a removal's pause is written with the released-by tag, and a website
   * without a server tag gets this server's with the pause.
   */
  async function sendStatus(website: Website, desiredStatus: DesiredStatus, pausedBy: PausedBy | null) {
    if (desiredStatus === 'paused' && servingCheck && serverId) {
      const checked = await servingCheck.check(website);
      if ('servedBy' in checked) return LEFT_ALONE;
      if (checked.remote === null) return null;
      const tag = REMOVAL_PAUSES.has(pausedBy)
        ? releasedTags(checked.remote.tag, serverId)
        : standingOf(checked.remote.tag, serverId).kind === 'untagged'
          ? claimedTags(checked.remote.tag, serverId)
          : null;
      if (tag) return (await provider.updateWebsite(website.domain, { status: 'paused', tag })).status ?? null;
    }
    return (await provider.setWebsiteStatus(website.domain, desiredStatus)).status ?? null;
  }

  /**
   * A website the provider already has for this account's provider user, which another server
   * serves or let go (an account moved here from another panel server): adopted as it is at the
   * provider, its settings, rules and subdomains kept, its pause kept unless the other server's
   * removal made it, and tagged as this server's. False: nothing to adopt (set it up as usual).
   */
  async function adoptWebsite(event: PanelEvent & { domain: string }, account: Account, planName: string, originIps: string[]) {
    if (!serverId) return false;
    let remote: ProviderWebsite;
    try {
      remote = await provider.lookupWebsite(event.domain);
    } catch (error) {
      if (isProviderError(error, 'PROVIDER_NOT_FOUND')) return false;
      throw error;
    }
    const adoption = adoptionOf(remote, account.providerUserId, serverId);
    if (!adoption) return false;
    const { desiredStatus, pausedBy } = adoptedStatus(remote, adoption.released, account.state, deps.autoProtect());
    const answer = await provider.updateWebsite(event.domain, {
      ip: originIps,
      callbackUrl: names.callbackUrlFor(event.domain),
      tag: adoptedTags(remote.tag, names.tagsFor(planName)),
      ...(desiredStatus !== (remote.requested_status ?? remote.status) ? { status: desiredStatus } : {}),
    });
    accounts.setFact(servedElsewhereFact(event.domain), '');
    accounts.saveWebsite({
      domain: event.domain,
      account: event.account,
      subdomains: remote.subdomain,
      originIps,
      state: 'active',
      desiredStatus,
      pausedBy,
      providerStatus: answer.status ?? null,
      providerCheckedAt: deps.now(),
      callbackTokenHash: hashToken(callbackTokenFor(deps.settings.callbackKey, event.domain)),
    });
    accounts.markProvisioned(event.domain);
    logger.info(
      { account: event.account, domain: event.domain, from: adoption.from, released: adoption.released, status: desiredStatus },
      `website adopted from server ${adoption.from}`,
    );
    return true;
  }

  return {
    /** The check before a delete or pause at the provider (null: this server has no id). */
    servingCheck,
    sendStatus,
    adoptWebsite,
    /** Checked before a write that would change another server's website (its subdomains, settings, tags): true when left alone. */
    servedElsewhere: async (website: Website): Promise<boolean> =>
      servingCheck !== null && 'servedBy' in (await servingCheck.check(website)),
  };
}
