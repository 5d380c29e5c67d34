/**
 * Protection per hosting package (issue 22): the panel says, with account.created and
 * plan.changed (and `wpp import`'s listings), whether the account's package includes web
 * protection, set where hosts set everything else about a package (cPanel's Feature Manager,
 * a Plesk service-plan permission, a DirectAdmin package item, a Virtualmin feature of each server chosen by its plan:
 * docs/panels/*.md). An account whose package lacks it gets no website at the provider; a
 * package change that adds it protects the account's websites as if they were just added; one
 * that removes it releases them: paused at once (paused_by 'package'), removed at the provider
 * when the admin's grace period has passed, unless the package gets it back before (then they
 * are resumed). The panel saying nothing (null) reads as included, so installs and panels that
 * never say keep working.
 */
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { PackagesRepo } from '../db/packages.repo.js';
import type { PanelEvent } from '../panel/events.js';
import { isProviderError, type ProviderClient } from '../provider/index.js';
import { isMonitoring } from './monitoring.js';
import type { ServingCheck } from './serving-server.js';
import type { DesiredStatus, PausedBy, Website } from './types.js';

/** The grace period before an admin sets one: two weeks to put the package right or tell the customer. */
export const DEFAULT_PACKAGE_GRACE_DAYS = 14;

export interface PackageProtectionDeps {
  accounts: Pick<AccountsRepo, 'websitesOf' | 'saveWebsite' | 'getAccount' | 'getWebsite'>;
  packages: PackagesRepo;
  provider: Pick<ProviderClient, 'deleteWebsite'>;
  /** Checked before each removal at the provider: a website another server serves now is left alone (core/serving-server.ts). */
  servingCheck?: Pick<ServingCheck, 'check'> | null;
  logger: Logger;
  now: () => number;
  /** The admin's grace period in ms, read at every use (a runtime setting). */
  graceMs: () => number;
  /** Queues the release job of an account for `runAt` (durable: a package.release job). */
  scheduleRelease: (account: string, runAt: number) => void;
  /** Sends a status and records who paused (provisioning's applyStatus). */
  applyStatus: (website: Website, desiredStatus: DesiredStatus, pausedBy: PausedBy | null) => Promise<void>;
  /** Sets a website up at the provider as domain.added does (provisioning's). */
  provision: (event: PanelEvent & { domain: string }) => Promise<void>;
  /** Back to monitoring while its days are still to come, else protected (as after a suspension). */
  resume: (website: Website) => Promise<void>;
  /** Whether the auto-protect setting is on (a website provisioned again starts online, else in setup). */
  autoProtect: () => boolean;
}

/** Pauses that are someone's own decision: a release keeps their owner, so giving protection back leaves them as they were. */
const KEPT_PAUSES: ReadonlySet<PausedBy | null> = new Set<PausedBy | null>(['customer', 'admin', 'reseller', 'suspension', 'external']);

export function createPackageProtection(deps: PackageProtectionDeps) {
  const { accounts, packages, logger, now } = deps;

  /** Whether the account's package includes protection: what the panel said last; unknown counts as yes. */
  const includes = (account: string): boolean => packages.protectionOf(account).included !== false;

  /** Pauses the account's websites for the package, and queues their removal at the end of the grace. */
  async function release(account: string): Promise<void> {
    let atProvider = 0;
    for (const website of accounts.websitesOf(account)) {
      if (website.state !== 'active') continue;
      if (website.provisionedAt !== null) atProvider++;
      if (website.pausedBy === 'package') continue;
      if (website.provisionedAt === null) {
        // Never at the provider: nothing to pause there, only the reason to show.
        accounts.saveWebsite({ ...website, desiredStatus: 'paused', pausedBy: 'package' });
      } else if (website.desiredStatus !== 'paused' || website.pausedBy === 'enforcement' || isMonitoring(website)) {
        await deps.applyStatus(website, 'paused', 'package');
      } else if (!KEPT_PAUSES.has(website.pausedBy)) {
        accounts.saveWebsite({ ...website, pausedBy: 'package' });
      }
    }
    const removedAt = packages.protectionOf(account).removedAt ?? now();
    if (atProvider > 0) deps.scheduleRelease(account, removedAt + deps.graceMs());
    logger.info({ account }, "the account's package no longer includes web protection: its websites are paused");
  }

  /** Protects again what the package took away: resumed while still at the provider, set up again otherwise. */
  async function restore(account: string): Promise<void> {
    for (const website of accounts.websitesOf(account)) {
      if (website.state !== 'active' || website.pausedBy !== 'package') continue;
      if (website.provisionedAt === null) {
        // A fresh set-up, as if the domain were just added (provisioning keeps a pause it finds, so it is cleared first).
        accounts.saveWebsite({ ...website, desiredStatus: deps.autoProtect() ? 'online' : 'setup', pausedBy: null });
        await deps.provision({ ...syntheticEvent(website), domain: website.domain });
      } else {
        await deps.resume(website);
      }
    }
    logger.info({ account }, "the account's package includes web protection again: its websites are protected");
  }

  return {
    includes,

    /** A domain.added of an account whose package lacks protection: recorded, shown with the reason, never sent to the provider. */
    keepOut(domain: string): void {
      const website = accounts.getWebsite(domain);
      if (website && website.provisionedAt === null && website.state === 'active')
        accounts.saveWebsite({ ...website, desiredStatus: 'paused', pausedBy: 'package' });
      logger.info({ domain }, "not set up at the provider: the account's hosting package does not include web protection");
    },

    /**
     * What an account.created or plan.changed says of the package: stored (the package too, for
     * the Settings page), and a change acted on. An event that does not say changes nothing.
     */
    async packageSays(event: PanelEvent): Promise<void> {
      if (event.protection === undefined || !accounts.getAccount(event.account)) return;
      const at = now();
      if (event.plan) packages.savePackage(event.plan, event.protection, at);
      const before = includes(event.account);
      packages.setProtection(event.account, event.protection, at);
      if (before === event.protection) return;
      await (event.protection ? restore(event.account) : release(event.account));
    },

    /**
     * The package.release job: once the grace has passed, the websites still released are
     * removed at the provider (their rows stay, not provisioned, so the package getting
     * protection back sets them up again). The package got it back meanwhile: nothing. A grace
     * the admin lengthened meanwhile: queued again for its new end.
     */
    async releaseDue(account: string): Promise<void> {
      const { included, removedAt } = packages.protectionOf(account);
      if (included !== false || removedAt === null) return;
      const dueAt = removedAt + deps.graceMs();
      if (dueAt > now()) {
        deps.scheduleRelease(account, dueAt);
        return;
      }
      for (const website of accounts.websitesOf(account)) {
        if (website.state !== 'active' || website.provisionedAt === null) continue;
        if (deps.servingCheck && 'servedBy' in (await deps.servingCheck.check(website))) continue;
        try {
          await deps.provider.deleteWebsite(website.domain);
        } catch (error) {
          if (!isProviderError(error, 'PROVIDER_NOT_FOUND')) throw error;
        }
        // A pause of the customer's or the admin's ends with the website: what is left is the package's.
        accounts.saveWebsite({ ...website, desiredStatus: 'paused', pausedBy: 'package' });
        packages.markUnprovisioned(website.domain, now());
        logger.info({ account, domain: website.domain }, 'grace period over: website removed at the provider (package without protection)');
      }
    },
  };
}

/** A domain.added of a website the plugin already has, to set it up again. */
const syntheticEvent = (website: Website): PanelEvent => ({
  id: `package:${website.domain}`,
  type: 'domain.added',
  occurredAt: new Date(website.updatedAt).toISOString(),
  account: website.account,
  domain: website.domain,
});

export type PackageProtection = ReturnType<typeof createPackageProtection>;
