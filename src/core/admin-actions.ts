/**
 * What an admin can do to one website from the admin pages: pause it, resume it, provision it
 * again. The provider is asked first and the local record saved only once it agreed, so a
 * provider failure leaves everything as it was. A stop-gap until core/protection.ts (the
 * customer's and the admin's pause, resume and re-provision in one place) lands.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import { AppError, describeError } from '../errors.js';
import { panelEventSchema, type PanelEvent } from '../panel/events.js';
import type { ProviderClient } from '../provider/index.js';
import type { IngestResult } from './ingest.js';
import type { Website } from './types.js';

export interface AdminActionsDeps {
  accounts: Pick<AccountsRepo, 'getWebsite' | 'saveWebsite'>;
  provider: Pick<ProviderClient, 'setWebsiteStatus'>;
  ingestEvents: (events: PanelEvent[]) => IngestResult[];
  /** Enforcement's admin override (core/enforcement.ts): resumes for the rest of the period and records it. */
  adminResume: (domain: string, admin: string) => Promise<Website>;
  now: () => number;
  logger: Logger;
}

/** Paused by the panel itself: only the panel can undo these, or the plugin and the panel would disagree. */
const PANEL_PAUSES = new Set(['suspension', 'account_deleted', 'domain_removed']);

export function createAdminActions(deps: AdminActionsDeps) {
  const { accounts, logger, now } = deps;

  const activeWebsite = (domain: string): Website => {
    const website = accounts.getWebsite(domain);
    if (!website || website.state !== 'active') throw new AppError('NOT_FOUND', `${domain} is not a website the plugin protects`);
    return website;
  };

  /** Sends the status to the provider; its refusal becomes a message that says nothing changed. */
  async function sendStatus(website: Website, status: 'online' | 'paused'): Promise<string | null> {
    try {
      return (await deps.provider.setWebsiteStatus(website.domain, status)).status ?? null;
    } catch (error) {
      const verb = status === 'paused' ? 'pause' : 'resume';
      throw new AppError(
        'UNAVAILABLE',
        `The provider did not ${verb} ${website.domain} (${describeError(error)}). Nothing was changed: try again.`,
        [],
        {
          cause: error,
        },
      );
    }
  }

  return {
    /** Pauses the website as the admin: only an admin resumes it (enforcement and the customer leave it paused). */
    async pause(domain: string, admin: string): Promise<Website> {
      const website = activeWebsite(domain);
      const providerStatus = await sendStatus(website, 'paused');
      const next: Website = { ...website, desiredStatus: 'paused', pausedBy: 'admin', providerStatus, providerCheckedAt: now() };
      accounts.saveWebsite(next);
      logger.info({ domain, admin, pausedBefore: website.pausedBy }, 'website paused by an admin');
      return next;
    },

    /**
     * Resumes the website: paused by enforcement, through enforcement's override (recorded,
     * and enforcement leaves it alone for the rest of the period); otherwise sets it online.
     */
    async resume(domain: string, admin: string): Promise<Website> {
      const website = activeWebsite(domain);
      if (website.pausedBy && PANEL_PAUSES.has(website.pausedBy)) {
        throw new AppError('CONFLICT', `${domain} is paused because of its account in the control panel: change it there.`);
      }
      if (website.pausedBy === 'enforcement') {
        try {
          return await deps.adminResume(domain, admin);
        } catch (error) {
          if (error instanceof AppError) throw error;
          throw new AppError('UNAVAILABLE', `The provider did not resume ${domain} (${describeError(error)}). Try again.`, [], {
            cause: error,
          });
        }
      }
      const providerStatus = await sendStatus(website, 'online');
      const next: Website = { ...website, desiredStatus: 'online', pausedBy: null, providerStatus, providerCheckedAt: now() };
      accounts.saveWebsite(next);
      logger.info({ domain, admin, pausedBefore: website.pausedBy }, 'website resumed by an admin');
      return next;
    },

    /**
     * Provisions the website again, as if the panel had added its domain now: a fresh event
     * through the job queue (so it runs in order with the account's other events, and is
     * retried like any of them). Provisioning converges, so a healthy website stays as it is.
     */
    reprovision(domain: string, admin: string): IngestResult {
      const website = activeWebsite(domain);
      const event = panelEventSchema.parse({
        id: `admin-reprovision:${domain}:${randomUUID()}`,
        type: 'domain.added',
        occurredAt: new Date(now()).toISOString(),
        account: website.account,
        domain,
      });
      const [result] = deps.ingestEvents([event]);
      if (!result) throw new Error('ingest returned no result for one event');
      logger.info({ domain, admin, jobId: result.jobId }, 'website queued for provisioning again by an admin');
      return result;
    },
  };
}

export type AdminActions = ReturnType<typeof createAdminActions>;
