/**
 * Protect, pause and resume a website by hand: a customer from their pages, or an admin.
 * Each goes straight to the provider (the person is waiting for the answer) and saves the
 * local record only when the provider accepted: a refusal changes nothing here. An admin's
 * resume of a website the hit limit paused goes through enforcement's adminResume, so the
 * override is recorded; a re-provision re-queues the website's domain.added, as does a
 * customer's Try again of a website the provider refused.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import { AppError } from '../errors.js';
import { panelEventSchema, type PanelEvent } from '../panel/events.js';
import { isProviderError, type ProviderClient } from '../provider/index.js';
import type { IngestResult } from './ingest.js';
import type { ServingCheck } from './serving-server.js';
import type { DesiredStatus, PausedBy, Website } from './types.js';
import { isMonitoring } from './monitoring.js';
import { customerActions, describeWebsite, type CustomerAction } from './website-state.js';

/** Who acts: a customer on their own website, an admin on any, a reseller on their customers' (the reseller pages check whose first). */
export type Actor = { kind: 'customer'; account: string } | { kind: 'admin'; admin: string } | { kind: 'reseller'; reseller: string };

/** As an action is recorded and logged: `admin:root`, `reseller:res1`, `customer`. */
export const actorLabel = (actor: Actor) =>
  actor.kind === 'admin' ? `admin:${actor.admin}` : actor.kind === 'reseller' ? `reseller:${actor.reseller}` : 'customer';

/** Who acts from the host's side: an admin on any website, a reseller on their customers'. */
export type HostActor = Exclude<Actor, { kind: 'customer' }>;

export interface ProtectionDeps {
  accounts: Pick<AccountsRepo, 'getWebsite' | 'saveWebsite' | 'clearProvisioningFailure'>;
  provider: Pick<ProviderClient, 'setWebsiteStatus'>;
  /** Enforcement's admin resume (core/enforcement.ts): records the admin's override for the period. */
  adminResume: (domain: string, admin: string) => Promise<Website>;
  /** The job queue's ingest, for a re-provision. */
  ingestEvents?: (events: PanelEvent[]) => IngestResult[];
  logger: Logger;
  now: () => number;
  /** Ends a website's monitoring (core/monitoring.ts) once it is protected by hand. */
  endMonitoring?: (domain: string) => void;
  /** Checked before a pause: a website another server serves now is left alone (core/serving-server.ts). */
  servingCheck?: Pick<ServingCheck, 'check'> | null;
}

/** A provider refusal or outage in plain words; nothing was changed locally. */
export function providerFailure(error: unknown, domain: string): AppError {
  if (!isProviderError(error)) return error instanceof AppError ? error : new AppError('INTERNAL', 'Internal error', [], { cause: error });
  const nothing = 'Nothing was changed.';
  switch (error.code) {
    case 'PROVIDER_UNAVAILABLE':
    case 'PROVIDER_RATE_LIMITED':
    case 'PROVIDER_BAD_RESPONSE':
      return new AppError('UNAVAILABLE', `The protection service did not answer properly. ${nothing} Try again in a minute.`, [], {
        cause: error,
        retryAfterSeconds: 30,
      });
    case 'PROVIDER_NOT_FOUND':
      return new AppError(
        'CONFLICT',
        `The protection service no longer knows ${domain}. ${nothing} Ask your host to set it up again.`,
        [],
        {
          cause: error,
        },
      );
    case 'PROVIDER_LIMIT_REACHED':
      return new AppError('LIMIT_REACHED', `The protection service refused: the domain limit is reached. ${nothing}`, [], { cause: error });
    default:
      return new AppError(
        'BAD_REQUEST',
        `The protection service refused this change${error.providerMessage ? `: ${error.providerMessage}` : ''}. ${nothing}`,
        [],
        {
          cause: error,
        },
      );
  }
}

/** Paused because of the account in the panel: only the panel undoes these, or the plugin and the panel would disagree. */
const PANEL_PAUSES: ReadonlySet<PausedBy> = new Set(['suspension', 'account_deleted', 'domain_removed', 'package']);

/**
 * The pauses a reseller may end on their customers' websites: their own, the customer's, one made
 * in the provider's dashboard, and monitoring (their own roll-out). Never the host's: the admin's
 * pause, the hit limit's (the host's limits and the reseller's pool alike: resuming would record
 * an override of the host's limits for the period), or the panel's.
 */
const RESELLER_RESUMABLE: ReadonlySet<PausedBy | null> = new Set<PausedBy | null>([null, 'reseller', 'customer', 'external']);

/** Whether `actor` may resume a website paused by `pausedBy` (the pages offer Resume only then). */
export const mayResume = (actor: HostActor, pausedBy: PausedBy | null): boolean =>
  actor.kind === 'admin' ? pausedBy === null || !PANEL_PAUSES.has(pausedBy) : RESELLER_RESUMABLE.has(pausedBy);

/** Why a reseller may not resume a pause that is not theirs to end (the host's), in plain words. */
function notTheResellers(domain: string, pausedBy: PausedBy | null): AppError {
  const why =
    pausedBy === 'enforcement'
      ? 'the hit limit paused it: it resumes when the limit is raised or the period ends, and only your host can resume it before'
      : 'your host paused it: only your host can resume it';
  return new AppError('FORBIDDEN', `${domain} cannot be resumed: ${why}. Nothing was changed.`);
}

/** No words, only the state's kind: core has no page language (the words are the pages', in theirs). */
const KIND_ONLY = (key: string) => key;

const ACTION_WORDS: Record<CustomerAction, string> = { protect: 'protected', pause: 'paused', resume: 'resumed', retry: 'tried again' };

export function createProtection(deps: ProtectionDeps) {
  const { accounts, provider, logger, now } = deps;

  /** The website the actor may act on: a customer's own active website only, else NOT_FOUND like an unknown domain. */
  function websiteFor(domain: string, actor: Actor): Website {
    const website = accounts.getWebsite(domain);
    if (!website || website.state !== 'active' || (actor.kind === 'customer' && website.account !== actor.account)) {
      throw new AppError('NOT_FOUND', `${domain} is not one of ${actor.kind === 'customer' ? 'your' : 'the protected'} domains`);
    }
    return website;
  }

  async function send(website: Website, desiredStatus: DesiredStatus, pausedBy: PausedBy | null, actor: Actor): Promise<Website> {
    let providerStatus: string | null;
    if (desiredStatus === 'paused') await leaveIfServedElsewhere(website);
    try {
      providerStatus = (await provider.setWebsiteStatus(website.domain, desiredStatus)).status ?? null;
    } catch (error) {
      throw providerFailure(error, website.domain);
    }
    const at = now();
    const next = { ...website, desiredStatus, pausedBy, providerStatus, providerCheckedAt: at };
    accounts.saveWebsite(next);
    if (desiredStatus === 'online') deps.endMonitoring?.(website.domain);
    logger.info({ domain: website.domain, status: desiredStatus, by: actorLabel(actor) }, 'website status set by hand');
    return { ...next, updatedAt: at };
  }

  /** A pause of a website another server serves now: refused, nothing sent (the check stopped managing it here). */
  async function leaveIfServedElsewhere(website: Website): Promise<void> {
    let checked;
    try {
      checked = deps.servingCheck ? await deps.servingCheck.check(website) : null;
    } catch (error) {
      throw providerFailure(error, website.domain);
    }
    if (checked && 'servedBy' in checked) {
      throw new AppError('CONFLICT', `${website.domain} is now served by another panel server (${checked.servedBy}). Nothing was changed.`);
    }
  }

  /** A customer may only take the actions their page offers (a limit or host pause offers no resume). */
  function allowCustomer(website: Website, action: CustomerAction): void {
    if (customerActions(website).includes(action)) return;
    // The customer's pages refuse first, in the page's language with the state's words (panel.routes.ts); this is the guard for every caller.
    throw new AppError(
      'CONFLICT',
      `${website.domain} cannot be ${ACTION_WORDS[action]} now (its state: ${describeWebsite(website, KIND_ONLY).kind.replaceAll('_', ' ')}). Nothing was changed.`,
    );
  }

  function queueDomainAdded(website: Website, why: 'reprovision' | 'retry'): IngestResult {
    if (!deps.ingestEvents) throw new Error(`${why} needs the job queue`);
    const event = panelEventSchema.parse({
      id: `${why}:${website.domain}:${randomUUID()}`,
      type: 'domain.added',
      occurredAt: new Date(now()).toISOString(),
      account: website.account,
      // No ip: provisioning keeps the website's stored origin addresses, all of them.
      domain: website.domain,
    });
    const [result] = deps.ingestEvents([event]);
    // Right after the queueing, long before any worker hears back from the provider: a new refusal is never wiped.
    accounts.clearProvisioningFailure(website.domain);
    return result as IngestResult;
  }

  return {
    /** Puts a website in `setup` (auto-protect off), or in monitoring (Protect now), behind the provider. */
    async protect(domain: string, actor: Actor): Promise<Website> {
      const website = websiteFor(domain, actor);
      if (isMonitoring(website)) return send(website, 'online', null, actor);
      if (actor.kind === 'customer') allowCustomer(website, 'protect');
      else if (website.desiredStatus !== 'setup')
        throw new AppError('CONFLICT', `${domain} is already protected or paused: nothing was changed`);
      return send(website, 'online', null, actor);
    },

    /** Starts a website in `setup` in monitoring (bulk protect with days): at the provider `paused`, by nobody. */
    async monitor(domain: string, actor: HostActor): Promise<Website> {
      const website = websiteFor(domain, actor);
      if (website.desiredStatus !== 'setup')
        throw new AppError('CONFLICT', `${domain} is already protected or paused: nothing was changed`);
      return send(website, 'paused', null, actor);
    },

    async pause(domain: string, actor: Actor): Promise<Website> {
      const website = websiteFor(domain, actor);
      if (actor.kind === 'customer') allowCustomer(website, 'pause');
      // A website in monitoring is paused by nobody: an admin's pause makes it theirs, and the monitoring switch then leaves it alone.
      else if (website.desiredStatus === 'paused' && !isMonitoring(website))
        throw new AppError('CONFLICT', `${domain} is already paused: nothing was changed`);
      return send(website, 'paused', actor.kind, actor);
    },

    async resume(domain: string, actor: Actor): Promise<Website> {
      const website = websiteFor(domain, actor);
      if (actor.kind === 'customer') {
        allowCustomer(website, 'resume');
        return send(website, 'online', null, actor);
      }
      if (website.desiredStatus !== 'paused' && website.providerStatus !== 'paused') {
        throw new AppError('CONFLICT', `${domain} is not paused: nothing was changed`);
      }
      if (website.pausedBy && PANEL_PAUSES.has(website.pausedBy)) {
        throw new AppError(
          'CONFLICT',
          `${domain} is paused because of its account in the control panel: change it there. Nothing was changed.`,
        );
      }
      if (!mayResume(actor, website.pausedBy)) throw notTheResellers(domain, website.pausedBy);
      // Only an admin ends the hit limit's pause (mayResume): an override of the limits for the period.
      if (website.pausedBy !== 'enforcement' || actor.kind !== 'admin') return send(website, 'online', null, actor);
      try {
        return await deps.adminResume(domain, actor.admin);
      } catch (error) {
        throw providerFailure(error, domain);
      }
    },

    /**
     * Queues the website's domain.added again (a fresh event id, so it is not a replay): provisioning
     * converges it. A refusal the website holds is set aside: it is "setting up" until the provider answers.
     */
    reprovision(domain: string, actor: HostActor): IngestResult {
      const website = websiteFor(domain, actor);
      const result = queueDomainAdded(website, 'reprovision');
      logger.info({ domain, by: actorLabel(actor) }, 'website re-provision queued by an admin or a reseller');
      return result;
    },

    /** A customer's Try again of their own website the provider refused (core/website-state.ts offers it then only). */
    retry(domain: string, actor: Actor): IngestResult {
      const website = websiteFor(domain, actor);
      if (actor.kind === 'customer') allowCustomer(website, 'retry');
      const result = queueDomainAdded(website, 'retry');
      logger.info({ domain, by: actor.kind }, 'provisioning of a refused website tried again');
      return result;
    },
  };
}

export type Protection = ReturnType<typeof createProtection>;
