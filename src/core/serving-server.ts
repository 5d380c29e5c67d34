/**
 * Which panel server serves a website, as the provider's record of it says (issue 23, "Accounts
 * that move", docs/fleet.md). A hosting account moved from one panel server to another (a WHM
 * transfer, a Plesk migration, a restore) keeps its provider user and websites: both servers
 * run on one partner key and name the account's provider user alike. What tells them which of
 * them serves a website is a tag on the website at the provider, `served-by:<server id>`,
 * written by the server that creates, adopts or writes it. The provider's tag is the truth for
 * every server, with or without the fleet database: a server's own rows can be stale (the other
 * server adopted the website since), the provider's record cannot.
 *
 * A server that lets a website go because the panel removed it (the account deleted, the domain
 * removed) writes `released-by:<server id>` instead: the website is paused by that removal, and a
 * server that receives the account later knows the pause is no customer's choice and protects
 * it again. A website with neither tag was made before servers told themselves apart: it
 * belongs to whichever server has it, and is tagged at its next write.
 */
import { isProviderError, type ProviderWebsite } from '../provider/index.js';
import type { AccountState, DesiredStatus, PausedBy, Website } from './types.js';

const SERVED_BY = 'served-by:';
const RELEASED_BY = 'released-by:';
/** The plugin's other tags that name a plan or a server: rewritten by the server that adopts a website. */
const SERVER_WRITTEN = ['plan:', 'server:', SERVED_BY, RELEASED_BY];

/**
 * A tag read from the provider that a write can carry back: the list is sent whole (a PUT
 * replaces it), and a tag the client refuses (a comma: form-encoded lists are comma-joined; over
 * 100 characters) would refuse the whole write, so such a tag is left out rather than block it.
 */
const writable = (tag: string): boolean => tag.trim().length > 0 && tag.length <= 100 && !tag.includes(',');

/** The tag that says this server serves the website (also the tag of its registration with `POST /v1.0/server`). */
export const servedByTag = (serverId: string): string => `${SERVED_BY}${serverId}`;

const taggedServer = (tags: readonly string[], prefix: string): string | null => {
  const tag = tags.find((candidate) => candidate.startsWith(prefix) && candidate.length > prefix.length);
  return tag === undefined ? null : tag.slice(prefix.length);
};

/**
 * Where a website stands for this server, from its tags at the provider:
 * - `ours`: tagged for this server;
 * - `elsewhere`: another server serves it now (this one leaves it alone);
 * - `released`: a server let it go when the panel removed it there (paused by that removal);
 * - `untagged`: made before servers told themselves apart: whoever has it serves it.
 */
export type Standing =
  { kind: 'ours' } | { kind: 'elsewhere'; serverId: string } | { kind: 'released'; serverId: string } | { kind: 'untagged' };

/** The tags of a website without a server tag (made before servers told themselves apart), with this server's added. */
export function claimedTags(tags: readonly string[], ownServerId: string): string[] {
  return [...tags.filter(writable), servedByTag(ownServerId)];
}

export function standingOf(tags: readonly string[], ownServerId: string): Standing {
  const servedBy = taggedServer(tags, SERVED_BY);
  if (servedBy !== null) return servedBy === ownServerId ? { kind: 'ours' } : { kind: 'elsewhere', serverId: servedBy };
  const releasedBy = taggedServer(tags, RELEASED_BY);
  if (releasedBy !== null) return { kind: 'released', serverId: releasedBy };
  return { kind: 'untagged' };
}

/** The tags a server writes when it lets a website go for a removal in its panel: its served-by tag becomes released-by. */
export function releasedTags(tags: readonly string[], ownServerId: string): string[] {
  const kept = tags.filter((tag) => writable(tag) && !tag.startsWith(SERVED_BY) && !tag.startsWith(RELEASED_BY));
  return [...kept, `${RELEASED_BY}${ownServerId}`];
}

/**
 * The tags of a website this server adopts: its own (plan, server name, served-by, the
 * operator's WPP_SERVER_TAG) and every tag at the provider that is not one another server wrote
 * of a plan or a server (the other server's operator tag stays: this server cannot tell it from one of the provider's own).
 */
export function adoptedTags(remote: readonly string[], own: readonly string[]): string[] {
  const kept = remote.filter((tag) => writable(tag) && !SERVER_WRITTEN.some((prefix) => tag.startsWith(prefix)));
  return [...new Set([...own, ...kept])];
}

/**
 * Whether this server adopts the website it is about to provision, which the provider already
 * has for the same provider user: yes when another server serves it (a restore or transfer in
 * the order "restore first") or let it go (the order "removal first"); null when it is this
 * server's own, or untagged (then set up as before: the plan's settings converge on it), or
 * another user's (the conflict provisioning reports).
 */
export function adoptionOf(
  remote: Pick<ProviderWebsite, 'tag' | 'user_id'>,
  providerUserId: string,
  ownServerId: string,
): { from: string; released: boolean } | null {
  if (remote.user_id !== undefined && remote.user_id !== providerUserId) return null;
  const standing = standingOf(remote.tag, ownServerId);
  if (standing.kind === 'elsewhere') return { from: standing.serverId, released: false };
  if (standing.kind === 'released' && standing.serverId !== ownServerId) return { from: standing.serverId, released: true };
  return null;
}

/**
 * The status an adopted website keeps: as it is at the provider (a pause there is kept, as one
 * made outside this server, which the customer may end), unless the other server's removal
 * paused it (protected again, as a new website would be) or the account is not active here.
 */
export function adoptedStatus(
  remote: Pick<ProviderWebsite, 'status' | 'requested_status'>,
  released: boolean,
  accountState: AccountState,
  autoProtect: boolean,
): { desiredStatus: DesiredStatus; pausedBy: PausedBy | null } {
  if (accountState !== 'active')
    return { desiredStatus: 'paused', pausedBy: accountState === 'suspended' ? 'suspension' : 'account_deleted' };
  if (released) return { desiredStatus: autoProtect ? 'online' : 'setup', pausedBy: null };
  const asked = remote.requested_status ?? remote.status;
  if (asked === 'paused') return { desiredStatus: 'paused', pausedBy: 'external' };
  return { desiredStatus: asked === 'setup' ? 'setup' : 'online', pausedBy: null };
}

/** The fact that names the server that took a website this server let go of (the row stays, `removed`, for its history). */
export const servedElsewhereFact = (domain: string): string => `website_served_by:${domain}`;

/** The server that took a website this server let go of, or null (the pages say so on the website's page). */
export const servedElsewhereOf = (facts: { getFact(key: string): string | null }, domain: string): string | null =>
  facts.getFact(servedElsewhereFact(domain)) || null;

/** What the check reads and writes: the provider's record, this server's rows and facts. */
export interface ServingCheckDeps {
  serverId: string;
  lookupWebsite: (domain: string) => Promise<ProviderWebsite>;
  accounts: {
    getWebsite(domain: string): Website | null;
    saveWebsite(website: Website): void;
    setFact(key: string, value: string): void;
  };
  logger: { info(obj: object, msg: string): void };
}

/**
 * The check every delete or pause at the provider makes first. A website another server serves
 * now is not touched at the provider; this server stops managing it (its row becomes `removed`,
 * with a fact naming the server that took it), so its statistics sync, enforcement and
 * reconcile skip it. A look-up that fails throws: the caller's job fails and is tried again,
 * rather than deleting or pausing what it could not check.
 */
export function createServingCheck(deps: ServingCheckDeps) {
  function leave(website: Website, serverId: string): void {
    const current = deps.accounts.getWebsite(website.domain) ?? website;
    deps.accounts.setFact(servedElsewhereFact(website.domain), serverId);
    deps.accounts.saveWebsite({ ...current, state: 'removed' });
    deps.logger.info(
      { domain: website.domain, account: website.account, servedBy: serverId },
      `website now served by server ${serverId}: left alone`,
    );
  }

  /** Judged on a record the caller already read: the other server's id (the website left alone), or null. */
  function servedElsewhereBy(website: Website, remote: Pick<ProviderWebsite, 'tag'>): string | null {
    const standing = standingOf(remote.tag, deps.serverId);
    if (standing.kind !== 'elsewhere') return null;
    leave(website, standing.serverId);
    return standing.serverId;
  }

  return {
    servedElsewhereBy,
    /**
     * Reads the website at the provider: the other server's id when another server serves it
     * (left alone), else null with the record read (null too when the provider has no such website).
     */
    async check(website: Website): Promise<{ servedBy: string } | { remote: ProviderWebsite | null }> {
      let remote: ProviderWebsite;
      try {
        remote = await deps.lookupWebsite(website.domain);
      } catch (error) {
        if (isProviderError(error, 'PROVIDER_NOT_FOUND')) return { remote: null };
        throw error;
      }
      const servedBy = servedElsewhereBy(website, remote);
      return servedBy === null ? { remote } : { servedBy };
    },
  };
}

export type ServingCheck = ReturnType<typeof createServingCheck>;
