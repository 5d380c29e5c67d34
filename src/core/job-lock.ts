/**
 * One run of a job at a time, across processes sharing the database (the scheduler of
 * `wpp serve`, `wpp sync-stats`, `wpp enforce`): the job's lock in the `locks` table,
 * renewed on a timer while the run lasts, so a killed process frees it when it expires, or at
 * once when the next run finds its pid gone on this host. The run that takes the lock marks
 * the job's runs left `running` as crashed.
 */
import type { Logger } from 'pino';
import type { LockHolder, StatisticsRepo } from '../db/statistics.repo.js';
import { describeError } from '../errors.js';
import { describeHolder } from '../locks.js';

/** How long a lock outlives its holder's last renewal. Renewed every quarter of it. */
export const JOB_LOCK_TTL_MS = 120_000;

/** Another process (or another run in this one) holds the job's lock: this run did nothing. */
export class LockHeldError extends Error {
  override readonly name = 'LockHeldError';
  constructor(
    readonly job: string,
    readonly holder: LockHolder,
  ) {
    super(`another ${job} run is in progress (${describeHolder(holder)})`);
  }
}

export type JobLock = { taken: true; release(): void } | { taken: false; holder: LockHolder };

/** Takes the job's lock and keeps it renewed until `release()`; marks the job's orphaned `running` runs crashed. */
export function acquireJobLock(stats: StatisticsRepo, name: string, logger: Logger, ttlMs = JOB_LOCK_TTL_MS): JobLock {
  const attempt = stats.takeLock(name, ttlMs);
  if (!attempt.taken) return attempt;
  if (attempt.tookOverFrom) logger.warn({ job: name, previous: attempt.tookOverFrom }, 'took over the lock of a run that is gone');
  const crashed = stats.markCrashedRuns(name);
  if (crashed > 0) logger.warn({ job: name, runs: crashed }, 'runs left running by a process that ended are marked crashed');
  let lost = false;
  const renewal = setInterval(
    () => {
      try {
        if (!attempt.lock.renew() && !lost) {
          lost = true;
          logger.warn({ job: name }, 'the job lock expired and was taken by another run');
        }
      } catch (error) {
        logger.warn({ job: name, error: describeError(error) }, 'could not renew the job lock');
      }
    },
    Math.max(1000, Math.floor(ttlMs / 4)),
  );
  renewal.unref();
  return {
    taken: true,
    release: () => {
      clearInterval(renewal);
      attempt.lock.release();
    },
  };
}

/**
 * Runs `fn` holding the job's lock. When another run holds it, records a `skipped` run and
 * throws LockHeldError naming the holder.
 */
export async function runExclusive<T>(
  stats: StatisticsRepo,
  name: string,
  logger: Logger,
  now: () => number,
  fn: () => Promise<T>,
): Promise<T> {
  const lock = acquireJobLock(stats, name, logger);
  if (!lock.taken) {
    recordSkipped(stats, name, now(), lock.holder);
    logger.info({ job: name, holder: lock.holder }, `${name} skipped: another run holds the lock`);
    throw new LockHeldError(name, lock.holder);
  }
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

/** A run that did nothing because another held the lock. */
export function recordSkipped(stats: StatisticsRepo, name: string, at: number, holder: LockHolder): number {
  const runId = stats.startRun(name, at);
  stats.finishRun(runId, at, { status: 'skipped', details: { reason: 'another run holds the lock', holder } });
  return runId;
}
