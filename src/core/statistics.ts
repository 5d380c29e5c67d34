/**
 * Statistics sync: read every managed website's cumulative counters from the provider,
 * store the sample and roll the hits since the previous one into hourly buckets and the
 * account's current period. Bounded concurrency and rate; one failing website is recorded
 * and read again next run, never stopping this one; only one sync runs at a time; a stop
 * signal drops the reads not yet started and abandons those in flight, storing what was read.
 */
import type { Logger } from 'pino';
import { retryWhileBusy } from '../db/busy.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { ReadScheduleRepo } from '../db/read-schedule.repo.js';
import type { LockHolder, StatisticsRepo } from '../db/statistics.repo.js';
import { describeError } from '../errors.js';
import type { ProviderClient } from '../provider/index.js';
import { recheckHeld } from './host-pause.js';
import { acquireJobLock, recordSkipped } from './job-lock.js';
import { createLimitResolver } from './limits.js';
import { learnFromReads, type SpikeNotice } from './read-learning.js';
import { DEFAULT_RULES, type ScheduleRules } from './read-schedule.js';
import { createStatsReader, type PageResult } from './stats-reader.js';
import { counterDelta, type Counters } from './quota.js';

/** The lock a sync holds (one sync at a time across processes), and the name of its job_runs rows. */
export const SYNC_LOCK = 'sync-stats';

export interface SyncOptions {
  /** Statistics requests in flight at once. */
  concurrency: number;
  /** Websites read per page (and stored per transaction). Default 1000. */
  pageSize?: number;
  /** Samples older than this are pruned (hourly buckets stay). Default 7 days. */
  sampleRetentionMs?: number;
  onProgress?: (done: number, total: number) => void;
  /**
   * Stops the sync (the plugin is shutting down, the command got SIGTERM): reads not yet
   * started are dropped, those in flight abandoned; what was read is stored.
   */
  signal?: AbortSignal;
}

export interface SyncResult {
  /** Another sync held the lock: this one did nothing. */
  skipped: boolean;
  /** Who held the lock, when skipped. */
  holder?: LockHolder;
  /** Stopped by its signal before reading every website; the next run reads them all again. */
  stopped: boolean;
  /** Active websites when the sync started. */
  total: number;
  read: number;
  failed: number;
  /** One failed read's error ("CODE: message"), when any failed. */
  firstError: string | null;
  seconds: number;
  runId: number;
}

export interface StatisticsDeps {
  stats: StatisticsRepo;
  accounts: AccountsRepo;
  provider: ProviderClient;
  logger: Logger;
  now: () => number;
  /** The adaptive schedule, told what each page taught; absent: the sync only stores the reads. */
  schedule?: ReadScheduleRepo;
  rules?: ScheduleRules;
  onSpike?: (
    notice: SpikeNotice,
  ) => void; /** Re-reads these websites at the provider now: the host holds them paused, yet a read counted visits (host-pause.ts). */
  recheck?: (websites: { domain: string; account: string }[]) => void;
}

export async function syncStatistics(deps: StatisticsDeps, options: SyncOptions): Promise<SyncResult> {
  const { stats, accounts, logger, now } = deps;
  const started = now();
  const pageSize = options.pageSize ?? 1000;
  const lock = acquireJobLock(stats, SYNC_LOCK, logger);
  if (!lock.taken) {
    const runId = recordSkipped(stats, SYNC_LOCK, started, lock.holder);
    logger.info({ holder: lock.holder }, 'statistics sync skipped: another one is running');
    return { skipped: true, holder: lock.holder, stopped: false, total: 0, read: 0, failed: 0, firstError: null, seconds: 0, runId };
  }
  const runId = stats.startRun(SYNC_LOCK, started);
  const limits = createLimitResolver(stats, accounts);
  const reader = createStatsReader({ provider: deps.provider, now, limits }, options);
  const total = stats.managedCount();
  let read = 0;
  let failed = 0;
  let firstError: string | null = null;

  // Each page is one transaction, tried again while another process holds the write lock (a read is never lost or counted twice).
  const store = async (page: PageResult) => {
    const at = now();
    const recorded = await retryWhileBusy(() => stats.recordReads(page.reads, at, counterDelta));
    recheckHeld(deps, recorded);
    // What the adaptive schedule learns from these reads (rates, forecasts): a full sync keeps it current too.
    if (deps.schedule) {
      const learning = { schedule: deps.schedule, stats, limits, rules: deps.rules ?? DEFAULT_RULES };
      const spikes = await retryWhileBusy(() => learnFromReads(learning, recorded, at));
      for (const spike of spikes) deps.onSpike?.(spike);
    }
    if (page.failures.length > 0) {
      await retryWhileBusy(() => stats.recordFailures(page.failures, at));
      firstError ??= page.failures[0]?.error ?? null;
      for (const failure of page.failures.slice(0, 5))
        logger.warn({ domain: failure.domain, error: failure.error }, 'statistics read failed; read again next run');
    }
    read += page.reads.length;
    failed += page.failures.length;
    options.onProgress?.(read + failed, total);
  };

  stats.deferCheckpoints();
  try {
    // Two pages in flight: the next page is read from the provider while this one is stored.
    let after = '';
    let pending: Promise<PageResult> | null = null;
    for (;;) {
      const page = reader.stopped ? [] : stats.managedPage(after, pageSize);
      const next = page.length > 0 ? reader.fetchPage(page) : null;
      if (pending) await store(await pending);
      if (!next) break;
      after = (page[page.length - 1] as { domain: string }).domain;
      pending = next;
    }
    const retention = options.sampleRetentionMs ?? 7 * 86_400_000;
    const pruned = stats.pruneSamples(now() - retention);
    const seconds = (now() - started) / 1000;
    const stopped = reader.stopped && read + failed < total;
    // Not one website read: the run did not succeed (and does not count as the last successful sync).
    const allFailed = !stopped && failed > 0 && read === 0;
    const status = stopped ? 'stopped' : allFailed ? 'failed' : 'ok';
    stats.finishRun(runId, now(), {
      status,
      read,
      failed,
      details: { seconds, pruned, total, ...(allFailed ? { error: `every read failed: ${firstError}` } : {}) },
    });
    logger.info(
      { read, failed, total, seconds, stopped },
      stopped
        ? 'statistics sync stopped before the end'
        : allFailed
          ? 'statistics sync failed: every read failed'
          : 'statistics sync finished',
    );
    return { skipped: false, stopped, total, read, failed, firstError, seconds, runId };
  } catch (error) {
    stats.finishRun(runId, now(), { status: 'failed', read, failed, details: { error: describeError(error) } });
    throw error;
  } finally {
    reader.close();
    stats.checkpoint();
    lock.release();
  }
}

export type Bucket = 'hour' | 'day';

/** Hits over time for a website or an account, in hour or day buckets (UTC), permitted versus blocked. */
export function hitsOverTime(
  stats: StatisticsRepo,
  subject: { domain: string } | { account: string },
  range: { from: number; to: number },
  bucket: Bucket,
) {
  const rows = stats.hourlyHits(subject, Math.floor(range.from / 3_600_000), Math.ceil(range.to / 3_600_000));
  const size = bucket === 'hour' ? 3_600_000 : 86_400_000;
  const buckets = new Map<number, Counters>();
  for (const row of rows) {
    const key = Math.floor((row.hour * 3_600_000) / size) * size;
    const into = buckets.get(key) ?? { total: 0, permitted: 0, blocked: 0, mitigated: 0 };
    into.total += row.total;
    into.permitted += row.permitted;
    into.blocked += row.blocked;
    into.mitigated += row.mitigated;
    buckets.set(key, into);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, counters]) => ({ start: new Date(start).toISOString(), ...counters }));
}

/** Usage against limits in the current period: per website of the account, and the account total. */
export function usageReport(deps: Pick<StatisticsDeps, 'stats' | 'accounts'>, account: string, now: number) {
  const limits = createLimitResolver(deps.stats, deps.accounts);
  const period = limits.periodOf(account, now);
  const usage = new Map(deps.stats.accountUsage(account, period.start).map((row) => [row.domain, row]));
  const websites = deps.accounts
    .websitesOf(account)
    .filter((w) => w.state === 'active')
    .map((website) => {
      const own = limits.forWebsite(website.domain, account);
      const row = usage.get(website.domain);
      return {
        domain: website.domain,
        hits: row?.hits ?? 0,
        permitted: row?.permitted ?? 0,
        blocked: row?.blocked ?? 0,
        limit: own.exempt ? null : own.websiteHits,
        exempt: own.exempt,
        status: website.desiredStatus,
        pausedBy: website.pausedBy,
      };
    });
  const accountLimits = limits.forAccount(account);
  return {
    account,
    period: { kind: period.kind, start: new Date(period.start).toISOString(), end: new Date(period.end).toISOString() },
    hits: websites.reduce((sum, w) => sum + w.hits, 0),
    limit: accountLimits.accountHits,
    domains: { used: websites.length, limit: accountLimits.domainLimit },
    websites,
  };
}
