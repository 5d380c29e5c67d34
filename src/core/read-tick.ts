/**
 * The adaptive statistics sync. Each tick reads the websites whose next read time has come,
 * at most `budget` of them (the request budget of the tick), the most at risk first when more
 * are due; stores each page of reads, learns from it (rates, forecasts, attack spikes, the
 * next read time: read-schedule.ts) and enforces the limits of the accounts just read, so a
 * website that crossed its limit is paused minutes after the read that saw it, not after a
 * full pass.
 */
import type { Logger } from 'pino';
import { retryWhileBusy } from '../db/busy.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { ReadScheduleRepo } from '../db/read-schedule.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import { describeError } from '../errors.js';
import type { ProviderClient } from '../provider/index.js';
import { recheckHeld } from './host-pause.js';
import { acquireJobLock, recordSkipped } from './job-lock.js';
import { createLimitResolver, type LimitResolver } from './limits.js';
import { counterDelta } from './quota.js';
import { learnFromReads, type SpikeNotice } from './read-learning.js';
import { DEFAULT_RULES, isAtRisk, mostAtRisk, type ScheduleRules, type SpikeRules } from './read-schedule.js';
import { createStatsReader, type ManagedWebsite, type PageResult } from './stats-reader.js';
import { SYNC_LOCK } from './statistics.js';

export interface ReadTickDeps {
  stats: StatisticsRepo;
  accounts: AccountsRepo;
  schedule: ReadScheduleRepo;
  provider: ProviderClient;
  /** Reads of websites at risk go through this client: urgent tokens of the server's request budget. Default `provider`. */
  urgentProvider?: ProviderClient;
  logger: Logger;
  now: () => number;
  /**
   * Enforces the limits of these accounts on what was just read. `skipped`: another process
   * holds enforcement's lock; their websites are read (and enforced) again next tick.
   */
  enforceAccounts(accounts: string[]): Promise<{ skipped: boolean; paused: number; failed: number }>;
  /** An attack spike newly noticed (for the notification URL). */
  onSpike?: (
    notice: SpikeNotice,
  ) => void; /** Re-reads these websites at the provider now: the host holds them paused, yet a read counted visits (host-pause.ts). */
  recheck?: (websites: { domain: string; account: string }[]) => void;
}

export interface ReadTickOptions {
  /** The most websites this tick reads: its share of the request budget. */
  budget: number;
  concurrency: number;
  rules?: ScheduleRules;
  spikeRules?: SpikeRules;
  /**
   * Also reads the websites due within this long: those falling due while the tick reads
   * (a tick takes most of the minute) are read now rather than a tick late. Default 0.
   */
  lookaheadMs?: number;
  /** Websites per page (stored, learned from and enforced together). Default 200. */
  pageSize?: number;
  /** Read these instead of the due ones (the benchmark's round-robin). */
  websites?: ManagedWebsite[];
  signal?: AbortSignal;
}

export interface ReadTickResult {
  skipped: boolean;
  stopped: boolean;
  /** Websites due when the tick began (beyond the budget they wait for the next tick). */
  due: number;
  read: number;
  failed: number;
  paused: number;
  spikes: number;
  firstError: string | null;
  /** How long the tick took (0 when skipped). */
  seconds: number;
  runId: number | null;
}

/** How long the sync's job_runs rows (a tick a minute makes 10,080 a week) and samples are kept. */
const RETENTION_MS = 7 * 86_400_000;

interface TickContext {
  deps: ReadTickDeps;
  limits: LimitResolver;
  rules: ScheduleRules;
  spikeRules: SpikeRules | undefined;
  /** What the tick has done so far: each page adds to it. */
  result: ReadTickResult;
}

/**
 * A page of reads, as it arrives: stored (one transaction, tried again while another process
 * holds the write lock), learned from, and its accounts enforced. A failed read is tried again
 * after the shortest gap; reads another process's enforcement kept us from acting on are read
 * (and acted on) at the next tick.
 */
async function actOnPage({ deps, limits, rules, spikeRules, result }: TickContext, page: PageResult): Promise<void> {
  const { stats, schedule, logger } = deps;
  const at = deps.now();
  const recorded = await retryWhileBusy(() => stats.recordReads(page.reads, at, counterDelta));
  recheckHeld(deps, recorded);
  if (page.failures.length > 0) {
    const failed = page.failures.map((failure) => failure.domain);
    await retryWhileBusy(() => stats.recordFailures(page.failures, at));
    await retryWhileBusy(() => schedule.readAt(failed, at + rules.minIntervalMs));
    result.firstError ??= page.failures[0]?.error ?? null;
    for (const failure of page.failures.slice(0, 3))
      logger.warn({ domain: failure.domain, error: failure.error }, 'statistics read failed; read again soon');
  }
  result.read += page.reads.length;
  result.failed += page.failures.length;
  const learning = { schedule, stats, limits, rules, ...(spikeRules ? { spikeRules } : {}) };
  const spikes = await retryWhileBusy(() => learnFromReads(learning, recorded, at));
  for (const spike of spikes) {
    logger.warn({ domain: spike.domain, blockedPerHour: spike.blockedPerHour, baselinePerHour: spike.baselinePerHour }, 'attack spike');
    deps.onSpike?.(spike);
  }
  result.spikes += spikes.length;
  const touched = [...new Set(page.reads.map((read) => read.account))];
  if (touched.length === 0) return;
  const enforced = await deps.enforceAccounts(touched);
  result.paused += enforced.paused;
  if (enforced.skipped) {
    const read = page.reads.map((website) => website.domain);
    await retryWhileBusy(() => schedule.markDue(read, at));
  }
}

/**
 * How many due websites a tick weighs against each other, per website it may read: enough to
 * find the most at risk in a backlog, few enough to read in milliseconds.
 */
const CANDIDATES_PER_READ = 5;

/**
 * The websites this tick reads: of the earliest due, the `budget` most at risk (read-schedule.ts
 * mostAtRisk); those at risk (isAtRisk: near a limit) marked urgent and read first, so they
 * take urgent tokens of the server's request budget and, with a fleet database, count in the
 * fleet's order (docs/fleet.md, "The fleet budget").
 */
export function dueNow(schedule: ReadScheduleRepo, at: number, budget: number, rules: ScheduleRules = DEFAULT_RULES): ManagedWebsite[] {
  const chosen = mostAtRisk(schedule.due(at, budget * CANDIDATES_PER_READ), at, budget);
  const urgent = chosen.filter((website) => isAtRisk(website, rules)).map((website) => ({ ...website, urgent: true }));
  return urgent.length === 0 ? chosen : [...urgent, ...chosen.filter((website) => !isAtRisk(website, rules))];
}

/** One tick of the adaptive sync; see the module comment. One sync or tick at a time (the sync lock). */
export async function readTick(deps: ReadTickDeps, options: ReadTickOptions): Promise<ReadTickResult> {
  const { stats, accounts, schedule, logger, now } = deps;
  const started = now();
  const result: ReadTickResult = {
    skipped: false,
    stopped: false,
    due: 0,
    read: 0,
    failed: 0,
    paused: 0,
    spikes: 0,
    firstError: null,
    seconds: 0,
    runId: null,
  };
  const lock = acquireJobLock(stats, SYNC_LOCK, logger);
  if (!lock.taken) {
    result.runId = recordSkipped(stats, SYNC_LOCK, started, lock.holder);
    return { ...result, skipped: true };
  }
  const limits = createLimitResolver(stats, accounts);
  const rules = options.rules ?? DEFAULT_RULES;
  const reader = createStatsReader({ provider: deps.provider, urgentProvider: deps.urgentProvider, now, limits }, options);
  const pageSize = options.pageSize ?? 200;
  try {
    // Every tick leaves a run, even one with nothing due: the last successful sync is how
    // the doctor, /metrics and the catch-up at start know the sync is alive.
    result.runId = stats.startRun(SYNC_LOCK, started);
    const websites =
      options.websites ?? dueNow(schedule, started + (options.lookaheadMs ?? 0), Math.max(0, Math.floor(options.budget)), rules);
    result.due = websites.length;

    const handle = (page: PageResult) => actOnPage({ deps, limits, rules, spikeRules: options.spikeRules, result }, page);

    // Two pages in flight: the next page is read while this one is stored and enforced.
    let pending: Promise<PageResult> | null = null;
    for (let from = 0; ; from += pageSize) {
      const next = from < websites.length && !reader.stopped ? reader.fetchPage(websites.slice(from, from + pageSize)) : null;
      if (pending) await handle(await pending);
      if (!next) break;
      pending = next;
    }
    result.stopped = reader.stopped && result.read + result.failed < websites.length;
    result.seconds = (now() - started) / 1000;
    // A run a minute: a week of them is kept, as of the samples (the full sync prunes those too).
    stats.pruneRuns(SYNC_LOCK, started - RETENTION_MS);
    stats.pruneSamples(started - RETENTION_MS);
    const allFailed = !result.stopped && result.failed > 0 && result.read === 0;
    stats.finishRun(result.runId, now(), {
      status: result.stopped ? 'stopped' : allFailed ? 'failed' : 'ok',
      read: result.read,
      failed: result.failed,
      details: { mode: 'adaptive', due: result.due, paused: result.paused, spikes: result.spikes, seconds: result.seconds },
    });
    return result;
  } catch (error) {
    if (result.runId !== null)
      stats.finishRun(result.runId, now(), {
        status: 'failed',
        read: result.read,
        failed: result.failed,
        details: { error: describeError(error) },
      });
    throw error;
  } finally {
    reader.close();
    lock.release();
  }
}
