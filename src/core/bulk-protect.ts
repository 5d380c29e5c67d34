/**
 * Bulk protect: every domain the plugin knows but does not protect yet, protected in one
 * admin action. Websites in `setup` get a `website.protect` job each (the worker asks the
 * provider, with retries; a double click queues nothing twice), and domains whose provisioning
 * died get that job retried. The preview shows what will change before anything does.
 */
import type { JobsRepo } from '../db/jobs.repo.js';
import type { SettingsRepo } from '../db/settings.repo.js';
import type { FailedDomainAdd, SetupWebsite, UnprotectedRepo } from '../db/unprotected.repo.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { Monitoring } from './monitoring.js';
import { actorLabel, type HostActor, type Protection } from './protection.js';

export interface BulkProtectDeps {
  unprotected: UnprotectedRepo;
  accounts: Pick<AccountsRepo, 'getWebsite'>;
  /** Retries a dead set-up; bulk protect's retries are background work, like its website.protect jobs. */
  jobs: Pick<JobsRepo, 'retry' | 'list'>;
  /** Queues `website.protect` jobs (core/job-queue.ts); returns how many were new (one waits per website). */
  protectWebsites(websites: { domain: string; account: string }[], admin: string): number;
  protection: Pick<Protection, 'protect' | 'monitor'>;
  audit: Pick<SettingsRepo, 'recordChange'>;
  /** Monitoring first (core/monitoring.ts): records the run's choice per website, and reads it when the job runs. */
  monitoring: Pick<Monitoring, 'choose' | 'untilOf'>;
}

export interface BulkProtectPreview {
  setup: SetupWebsite[];
  setupCount: number;
  failed: FailedDomainAdd[];
  failedCount: number;
}

/**
 * The name a `website.protect` job carries (its payload's `admin`, kept as jobs queued before
 * resellers carry it): an admin's name, or `reseller:<name>` (reseller names are account names,
 * without a colon), read back by `queuedActor`.
 */
const queuedBy = (by: HostActor) => (by.kind === 'admin' ? by.admin : actorLabel(by));
const RESELLER_PREFIX = 'reseller:';
const queuedActor = (admin: string): HostActor =>
  admin.startsWith(RESELLER_PREFIX) ? { kind: 'reseller', reseller: admin.slice(RESELLER_PREFIX.length) } : { kind: 'admin', admin };

/** Websites queued per transaction: a bulk run over any number holds the write lock briefly each time. */
const BATCH = 500;

/** Running jobs are as many as the workers' slots: a short list. */
const RUNNING_LIMIT = 1000;

export function createBulkProtect(deps: BulkProtectDeps) {
  /** The domains a `website.protect` job is protecting right now. */
  const protectsRunning = () =>
    new Set(
      deps.jobs
        .list({ state: 'running', limit: RUNNING_LIMIT })
        .filter((job) => job.kind === 'website.protect')
        .map((job) => (job.payload as { domain?: string }).domain),
    );
  const domainsOf = (reseller: string | undefined) => (reseller === undefined ? deps.unprotected : deps.unprotected.ofReseller(reseller));
  return {
    /** What a run would change now: the first `limit` of each kind, and how many in all; with `reseller`, of their accounts only. */
    preview(limit = 200, reseller?: string): BulkProtectPreview {
      const unprotected = domainsOf(reseller);
      return {
        setup: unprotected.setupWebsites('', limit),
        setupCount: unprotected.setupCount(),
        failed: unprotected.failedDomainAdds(limit),
        failedCount: unprotected.failedDomainAddCount(),
      };
    },

    /**
     * Queues protection of every website in setup and retries every failed provisioning;
     * recorded with the admin's name (a reseller's: of their accounts only, with theirs). Counts
     * what it newly queued: a second click while the first run's jobs wait or run changes and
     * records nothing. `monitorDays`: the days each spends monitoring first (0: none), or null for each
     * website's plan's days. `by`: an admin, over every unprotected domain, or a reseller, over
     * their own customers' only (accounts.reseller; the reseller pages).
     */
    run(by: HostActor, monitorDays: number | null = null): { protecting: number; retried: number } {
      const unprotected = domainsOf(by.kind === 'reseller' ? by.reseller : undefined);
      const admin = queuedBy(by);
      const chosenBy = `bulk:${admin}`;
      let protecting = 0;
      // A website whose protect job is running is still in setup until it ends: not queued again (a waiting one is not either: its pending key).
      const running = protectsRunning();
      for (let page = unprotected.setupWebsites('', BATCH); page.length > 0;) {
        const toQueue = page.filter((website) => !running.has(website.domain));
        deps.monitoring.choose(toQueue, monitorDays, chosenBy);
        protecting += deps.protectWebsites(toQueue, admin);
        page = unprotected.setupWebsites((page[page.length - 1] as SetupWebsite).domain, BATCH);
      }
      let retried = 0;
      for (const failed of unprotected.failedDomainAdds(Number.MAX_SAFE_INTEGER)) {
        if (!deps.jobs.retry(failed.jobId, { background: true })) continue;
        retried++;
        deps.monitoring.choose([failed], monitorDays, chosenBy);
        // Runs after the retried set-up (an account's jobs run in id order behind its domain.added): with
        // auto-protect off that set-up leaves the website in setup, and this protects it.
        deps.protectWebsites([{ domain: failed.domain, account: failed.account }], admin);
      }
      if (protecting + retried > 0)
        deps.audit.recordChange(actorLabel(by), 'bulk_protect', null, { protecting, retried, monitorDays: monitorDays ?? 'plan' });
      return { protecting, retried };
    },

    /**
     * The `website.protect` job: protects the website if it still waits in setup (in monitoring
     * first while the run's days are to come); anything else has moved on and is left alone.
     */
    async protectQueued(domain: string, admin: string): Promise<void> {
      const website = deps.accounts.getWebsite(domain);
      if (!website || website.state !== 'active' || website.desiredStatus !== 'setup') return;
      const by = queuedActor(admin);
      if (deps.monitoring.untilOf(domain) !== null) await deps.protection.monitor(domain, by);
      else await deps.protection.protect(domain, by);
    },
  };
}

export type BulkProtect = ReturnType<typeof createBulkProtect>;
