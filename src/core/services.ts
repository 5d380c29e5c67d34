/**
 * The plugin's services on one set of repositories and one provider client: provisioning,
 * the statistics sync and enforcement. Syncs and passes are tracked, so closing the plugin
 * stops them and waits for them before the database closes.
 */
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import type { ReadScheduleRepo } from '../db/read-schedule.repo.js';
import type { ProviderClient } from '../provider/index.js';
import { createEnforcement } from './enforcement.js';
import type { JobQueue } from './job-queue.js';
import { createProtection, type ProtectionDeps } from './protection.js';
import { createBulkProtect } from './bulk-protect.js';
import type { MonitoringRepo } from '../db/monitoring.repo.js';
import { createMonitoring } from './monitoring.js';
import { DAY_MS } from '../time.js';
import type { JobsRepo } from '../db/jobs.repo.js';
import type { PackagesRepo } from '../db/packages.repo.js';
import type { SettingsRepo } from '../db/settings.repo.js';
import type { UnprotectedRepo } from '../db/unprotected.repo.js';
import { accountLimitsOf } from './limits.js';
import type { EnforcementNotice } from './notifications.js';
import { createProvisioning, DEFAULT_PLAN, type Provisioning, type ProvisioningSettings } from './provisioning.js';
import { syncStatistics, type SyncOptions, type SyncResult } from './statistics.js';
import type { SpikeNotice } from './read-learning.js';
import { rulesFor, type ScheduleRules } from './read-schedule.js';
import { readTick, type ReadTickResult } from './read-tick.js';
import type { EnforcementAction } from './types.js';

/** What the services report as they work: the metrics' share (src/metrics.ts). */
export interface ServicesObserver {
  /** A sync ended, whatever it found (skipped, stopped, some reads failed). */
  syncFinished(result: SyncResult): void;
  /** A sync threw before it could end. */
  syncFailed(): void;
  /** An adaptive tick ended. */
  tickFinished?(result: ReadTickResult): void;
  /** An enforcement action newly recorded (a repeated pass records nothing twice). */
  enforcementAction(action: Pick<EnforcementAction, 'action' | 'reason'>): void;
}

export interface ServicesDeps {
  accounts: AccountsRepo;
  stats: StatisticsRepo;
  provider: ProviderClient;
  logger: Logger;
  now: () => number;
  settings: ProvisioningSettings;
  /** The effective auto-protect setting (core/plugin-settings.ts), read per panel event. */
  autoProtect: () => boolean;
  /** WPP_SYNC_CONCURRENCY and WPP_SYNC_RATE: the sync's and enforcement's share of the provider; WPP_SYNC_MAX_AGE_MINUTES. */
  sync: {
    concurrency: number;
    ratePerSecond: number;
    maxAgeMinutes?: number;
    /** The rate the server's pacer has learned (at most ratePerSecond): what a tick can spend now. */
    learnedRate?: () => number;
  };
  /** The adaptive sync's schedule, rates and forecasts. */
  schedule: ReadScheduleRepo;
  /** Receives every enforcement action newly recorded, when notifications are on. */
  notify: ((action: EnforcementNotice) => void) | undefined;
  /** Receives every attack spike newly noticed, when notifications are on. */
  notifySpike?: ((notice: SpikeNotice) => void) | undefined;
  /** Aborted when the plugin closes: a sync in progress stops. */
  signal: AbortSignal;
  /** Lets the plugin's close wait for a sync or pass in progress. */
  track<T>(pass: Promise<T>): Promise<T>;
  /** The job queue: an admin's re-provision, bulk protect, re-reads of host-paused websites that counted visits. */
  queue: Pick<JobQueue, 'ingestEvents' | 'protectWebsites' | 'refreshWebsites' | 'releasePackage'>;
  /** What bulk protect reads and changes besides the queue. */
  jobs: Pick<JobsRepo, 'retry' | 'list'>;
  unprotected: UnprotectedRepo;
  audit: Pick<SettingsRepo, 'recordChange'>;
  /** When each website's monitoring ends (monitoring first, then protecting). */
  monitoring: MonitoringRepo;
  /** Told of syncs and enforcement actions (the metrics). Default: nobody. */
  observer?: ServicesObserver;
  /** Told of each website the scheduled switch made protecting (the customer's mail). */
  onMonitoringSwitched?: ((website: { domain: string; account: string }) => void) | undefined;
  /** Ends the page sessions of a customer whose account was suspended or deleted. */
  endCustomerSessions?: (account: string) => void;
  /** Protection per hosting package: its records and the admin's grace period in days (core/package-protection.ts). */
  packages?: { repo: PackagesRepo; graceDays: () => number };
}

/** Monitoring first (core/monitoring.ts) on the services' repositories and provider. */
const monitoringOf = (deps: ServicesDeps) =>
  createMonitoring({
    repo: deps.monitoring,
    accounts: deps.accounts,
    provider: deps.provider,
    logger: deps.logger.child({ component: 'monitoring' }),
    now: deps.now,
    defaultPlan: DEFAULT_PLAN,
    onSwitched: deps.onMonitoringSwitched,
  });

/** Protect, pause and resume by hand (core/protection.ts) on the services' repositories, with the parts built beside it. */
const protectionOf = (
  deps: ServicesDeps,
  parts: Pick<ProtectionDeps, 'provider' | 'adminResume' | 'servingCheck'> & { monitoring: { end: (domain: string) => void } },
) =>
  createProtection({
    accounts: deps.accounts,
    provider: parts.provider,
    adminResume: parts.adminResume,
    ingestEvents: (events) => deps.queue.ingestEvents(events),
    logger: deps.logger.child({ component: 'protection' }),
    now: deps.now,
    endMonitoring: parts.monitoring.end,
    servingCheck: parts.servingCheck,
  });

/** Provisioning's share of protection per package: the grace in ms and its durable release job. */
const packagesOf = (deps: ServicesDeps, packages: NonNullable<ServicesDeps['packages']>) => ({
  repo: packages.repo,
  graceMs: () => packages.graceDays() * DAY_MS,
  scheduleRelease: (account: string, runAt: number) => deps.queue.releasePackage(account, runAt),
});

/**
 * The reads a tick may plan: its seconds at the rate the pacer has learned, not at the ceiling.
 * Planned at the ceiling on a key the pacer has learned is slower, a tick would queue more reads
 * than it can send in its minute and hold the sync lock past the next ticks, while websites
 * about to cross their limits wait behind that backlog.
 */
export function tickBudget(sync: ServicesDeps['sync'], seconds: number): number {
  if (sync.ratePerSecond <= 0) return Number.MAX_SAFE_INTEGER;
  const rate = Math.min(sync.ratePerSecond, sync.learnedRate?.() ?? sync.ratePerSecond);
  return Math.max(1, Math.floor(rate * seconds));
}

export function createServices(deps: ServicesDeps) {
  const { accounts, stats, provider, logger, now, sync, observer } = deps;
  // Urgent first in the server's request budget (docs/fleet.md): enforcement, a click, a new domain.
  const urgent = provider.withPriority('urgent');
  const monitoring = monitoringOf(deps);
  // The same provisioning twice, on one budget: the panel's own events urgent, an import's (a background job) not.
  const provisioningWith = (eventProvider: ProviderClient) =>
    createProvisioning({
      accounts,
      provider: eventProvider,
      refreshProvider: provider,
      logger,
      settings: deps.settings,
      autoProtect: deps.autoProtect,
      domainLimitFor: (account) => accountLimitsOf(stats, accounts, account).domainLimit,
      now,
      // Enforcement is created below; it records the undo when a refresh finds one.
      onHostPauseUndone: (undone) => void enforcement.recordRepause(undone),
      endCustomerSessions: deps.endCustomerSessions,
      monitoring,
      ...(deps.packages ? { packages: packagesOf(deps, deps.packages) } : {}),
    });
  const ownEvents = provisioningWith(urgent);
  const backgroundEvents = provisioningWith(provider);
  const provisioning: Provisioning = {
    ...ownEvents,
    /** `background`: a background job's event (an import's): its provider calls take background tokens. */
    handle: (event, options = {}) => (options.background ? backgroundEvents : ownEvents).handle(event, options),
  };
  const enforcement = createEnforcement({
    stats,
    accounts,
    provider: urgent,
    logger: logger.child({ component: 'enforcement' }),
    now,
    concurrency: sync.concurrency,
    forecastOf: (account, domain, periodEnd) => forecastOf(deps.schedule, account, domain, periodEnd),
    servingCheck: provisioning.servingCheck,
    notify:
      observer || deps.notify
        ? (action) => {
            observer?.enforcementAction(action);
            deps.notify?.(action);
          }
        : undefined,
  });
  const adminResume = (domain: string, admin: string) => enforcement.adminResume(domain, admin);
  const protectionWith = (protectionProvider: ProviderClient) =>
    protectionOf(deps, { provider: protectionProvider, adminResume, monitoring, servingCheck: provisioning.servingCheck });
  // A customer's or an admin's click is urgent; bulk protect's queued jobs are background work.
  const protection = protectionWith(urgent);
  const bulkProtect = createBulkProtect({
    unprotected: deps.unprotected,
    accounts,
    jobs: deps.jobs,
    protectWebsites: (websites, admin) => deps.queue.protectWebsites(websites, admin),
    protection: protectionWith(provider),
    audit: deps.audit,
    monitoring,
  });
  /** The two handlers of a sync's or a tick's promise: the observer hears how it ended, the caller gets it as it was. */
  const reported = <T>(finished: (result: T) => void) =>
    [
      (result: T): T => {
        finished(result);
        return result;
      },
      (error: unknown): never => {
        observer?.syncFailed();
        throw error;
      },
    ] as const;
  const rules: ScheduleRules = rulesFor(sync.maxAgeMinutes ?? 60);
  const onSpike = deps.notifySpike;
  const syncLogger = logger.child({ component: 'sync' });
  const syncDeps = {
    stats,
    accounts,
    provider,
    logger: syncLogger,
    now,
    schedule: deps.schedule,
    rules,
    ...(onSpike ? { onSpike } : {}),
    recheck: (websites: { domain: string; account: string }[]) => deps.queue.refreshWebsites(websites),
  };
  // Reads of websites at risk take urgent tokens (docs/fleet.md, "The fleet budget").
  const tickDeps = { ...syncDeps, urgentProvider: urgent, enforceAccounts: (list: string[]) => enforcement.enforceAccounts(list) };
  return {
    provisioning,
    /** One statistics sync; stopped by the plugin's close and by the caller's own signal (a one-shot command's SIGTERM). */
    syncStatistics: (overrides: Partial<SyncOptions> = {}) =>
      deps.track(
        syncStatistics(syncDeps, {
          concurrency: sync.concurrency,
          ...overrides,
          signal: overrides.signal ? AbortSignal.any([deps.signal, overrides.signal]) : deps.signal,
        }).then(...reported<SyncResult>((result) => observer?.syncFinished(result))),
      ),
    enforceLimits: () => deps.track(enforcement.enforceLimits()),
    /**
     * One tick of the adaptive sync: reads at most `seconds` of the request budget's worth of
     * the websites due, and enforces what it read. Stopped by the plugin's close.
     */
    readTick: (seconds: number, signal?: AbortSignal): Promise<ReadTickResult> =>
      deps.track(
        readTick(tickDeps, {
          budget: tickBudget(sync, seconds),
          concurrency: sync.concurrency,
          rules,
          lookaheadMs: seconds * 1000,
          signal: signal ? AbortSignal.any([deps.signal, signal]) : deps.signal,
        }).then(...reported<ReadTickResult>((result) => observer?.tickFinished?.(result))),
      ),
    adminResume,
    /** Protect, pause, resume by a customer or an admin, and an admin's re-provision. */
    protection,
    /** Every known domain not yet protected, protected in one admin action. */
    bulkProtect,
    /** Monitoring first: the days chosen, and the scheduled switch to protecting. */
    monitoring,
    /** The scheduled switch of websites whose monitoring is over (every few minutes in wpp serve). */
    switchMonitoring: () => deps.track(monitoring.switchDue()),
  };
}

export type Services = ReturnType<typeof createServices>;

/**
 * When a limit will be reached at the current rate, from the adaptive sync's last reads: the
 * website's own (`domain`), or the account's aggregate (`domain` null). Null when none is
 * forecast, or the forecast is about a period that has ended.
 */
export function forecastOf(schedule: ReadScheduleRepo, account: string, domain: string | null, periodEnd: number): number | null {
  const row = domain === null ? schedule.accountForecast(account) : schedule.get(domain);
  return row?.periodEnd === periodEnd ? row.limitReachedAt : null;
}
