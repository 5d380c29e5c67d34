/**
 * Runs jobs from the jobs table: claims due jobs (the repository decides order and leases),
 * runs each kind's handler, and records the outcome. Several workers, in one process or in
 * several, may share one database file.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Job, JobsRepo } from '../db/jobs.repo.js';
import { retryWhileBusy } from '../db/busy.js';
import { describeError, isDatabaseBusy } from '../errors.js';
import { backoffDelay } from '../retry.js';

export type JobHandler = (job: Job) => Promise<void>;

export interface WorkerOptions {
  jobs: JobsRepo;
  /** One handler per job kind; a job of any other kind goes dead (UNKNOWN_JOB_KIND). */
  handlers: Record<string, JobHandler>;
  logger: Logger;
  /** Most jobs this worker runs at once. */
  concurrency: number;
  /** How long a claim holds a job before another worker may take it over. Default 120000 ms; renewed every leaseMs/3 while the handler runs. */
  leaseMs?: number;
  /** Longest sleep between looks at the table (other processes enqueue without waking us). Default 500 ms. */
  pollMs?: number;
  /** Recorded as locked_by. Default `<hostname>:<pid>:<random>`. */
  workerId?: string;
  /** Retry delays (see backoffDelay in src/retry.ts); defaults 1000 ms base, 300000 ms cap. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** true when retrying cannot help (the job goes dead at once). Default: never. */
  isPermanent?: (error: unknown) => boolean;
  /** Clock for sleep computations. Default Date.now. */
  now?: () => number;
  /**
   * Aborted when the process closes. A job that fails with its reason was stopped, not failed
   * (a provider call waiting for a token of the request budget): pending again, attempt kept.
   */
  stopSignal?: AbortSignal;
}

export interface WorkerCounts {
  /** Jobs that completed. */
  done: number;
  /** Failed runs that were scheduled for another attempt. */
  failed: number;
  /** Jobs that went dead (permanent error, out of attempts, unknown kind). */
  dead: number;
}

/** Between claims while another process holds the write lock. */
const BUSY_CLAIM_DELAY_MS = 1000;

function retryAfterOf(error: unknown): number {
  if (typeof error !== 'object' || error === null) return 0;
  const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

export function createWorker(options: WorkerOptions) {
  const { jobs, handlers, logger } = options;
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
    throw new RangeError(`worker concurrency must be a positive integer, got ${options.concurrency}`);
  }
  const concurrency = options.concurrency;
  const leaseMs = options.leaseMs ?? 120_000;
  const pollMs = options.pollMs ?? 500;
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const isPermanent = options.isPermanent ?? (() => false);
  const now = options.now ?? Date.now;
  const log = logger.child({ workerId });
  const backoff = { baseMs: options.backoff?.baseMs ?? 1000, maxMs: options.backoff?.maxMs ?? 300_000 };
  const stoppedByClose = (error: unknown) => options.stopSignal?.aborted === true && error === options.stopSignal.reason;

  const inFlight = new Map<number, Promise<void>>();
  // The background jobs among them (JobsRepo's `background`): they never take the last slot.
  const backgroundInFlight = new Set<number>();
  const counts: WorkerCounts = { done: 0, failed: 0, dead: 0 };
  let stopping = false;
  let loop: Promise<void> | null = null;
  let draining = false;
  // Counts wake-ups, so a wake that comes between a look at the table and the sleep after
  // it is not lost; the loop and a drain() may both be sleeping.
  let wakeups = 0;
  const sleepers = new Set<() => void>();

  function wake(): void {
    wakeups++;
    for (const sleeper of [...sleepers]) sleeper();
  }

  /** Sleeps up to `ms`, or less on wake() (also called when a job finishes) since `seen`. */
  function sleep(ms: number, seen: number): Promise<void> {
    if (wakeups !== seen || stopping) {
      // setImmediate, not a resolved promise: a busy queue must still let timers and I/O run.
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done(): void {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      }
      sleepers.add(done);
    });
  }

  /** Until the next pending job is due, at most pollMs; pollMs when due jobs are held back by ordering. */
  function idleDelay(): number {
    const next = jobs.nextRunAt();
    if (next === null) return pollMs;
    const wait = next - now();
    return wait > 0 ? Math.min(wait, pollMs) : pollMs;
  }

  async function recordFailure(job: Job, error: unknown): Promise<void> {
    const message = describeError(error);
    let permanent = false;
    try {
      permanent = isPermanent(error);
    } catch (classifyError) {
      log.warn(
        { job: job.id, kind: job.kind, error: describeError(classifyError) },
        'isPermanent threw; treating the failure as retryable',
      );
    }
    const delayMs = Math.max(backoffDelay(job.attempts, backoff), retryAfterOf(error));
    const updated = await retryWhileBusy(() => jobs.fail(job.id, workerId, { error: message, delayMs, permanent }));
    if (!updated) {
      log.warn(
        { job: job.id, kind: job.kind, attempts: job.attempts, error: message },
        'job failed after its lease was lost; another worker owns it now',
      );
      return;
    }
    if (updated.state === 'dead') {
      counts.dead++;
      log.error(
        { job: job.id, kind: job.kind, attempts: job.attempts, permanent, error: message },
        permanent ? 'job failed permanently' : 'job failed on its last attempt',
      );
    } else {
      counts.failed++;
      log.warn({ job: job.id, kind: job.kind, attempts: job.attempts, delayMs, error: message }, 'job failed; will retry');
    }
  }

  async function run(job: Job): Promise<void> {
    const handler = Object.hasOwn(handlers, job.kind) ? handlers[job.kind] : undefined;
    if (!handler) {
      const error = `UNKNOWN_JOB_KIND: no handler for job kind "${job.kind}"`;
      if (jobs.fail(job.id, workerId, { error, delayMs: 0, permanent: true })) counts.dead++;
      log.error({ job: job.id, kind: job.kind, attempts: job.attempts, error }, 'job has no handler');
      return;
    }
    const renew = setInterval(
      () => {
        try {
          if (!jobs.extendLease(job.id, workerId, leaseMs)) {
            log.warn({ job: job.id, kind: job.kind }, 'job lease lost while running');
          }
        } catch (error) {
          log.warn({ job: job.id, kind: job.kind, error: describeError(error) }, 'job lease renewal failed');
        }
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    let outcome: { ok: true } | { ok: false; error: unknown };
    try {
      await handler(job);
      outcome = { ok: true };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      clearInterval(renew);
    }
    // Recorded even while another process holds the write lock for a while: retried, not lost.
    if (outcome.ok) {
      if (await retryWhileBusy(() => jobs.complete(job.id, workerId))) {
        counts.done++;
        log.debug({ job: job.id, kind: job.kind, attempts: job.attempts }, 'job done');
      } else {
        log.warn({ job: job.id, kind: job.kind }, 'job finished after its lease was lost; another worker owns it now');
      }
    } else if (stoppedByClose(outcome.error)) {
      if (await retryWhileBusy(() => jobs.release(job.id, workerId)))
        log.info({ job: job.id, kind: job.kind }, 'job stopped by the close; pending again for the next start');
    } else {
      await recordFailure(job, outcome.error);
    }
  }

  function launch(job: Job): void {
    const task = run(job)
      .catch((error: unknown) => {
        // Recording the outcome failed (database busy beyond the timeout, say): the lease
        // expires and the job runs again, which handlers must tolerate anyway.
        log.error({ job: job.id, kind: job.kind, error: describeError(error) }, 'could not record job outcome');
      })
      .finally(() => {
        inFlight.delete(job.id);
        backgroundInFlight.delete(job.id);
        wake();
      });
    inFlight.set(job.id, task);
    if (job.background) backgroundInFlight.add(job.id);
  }

  /**
   * Claims as many due jobs as there is room for and starts them; returns how many. Background
   * jobs (an import's, bulk protect's) fill at most all slots but one: a new domain from the
   * panel's hook finds a slot at once, however long the background's calls wait for tokens.
   */
  function fill(): number {
    const room = concurrency - inFlight.size;
    if (room <= 0 || stopping) return 0;
    const backgroundRoom = concurrency === 1 ? room : Math.max(0, concurrency - 1 - backgroundInFlight.size);
    const claimed = jobs.claim(workerId, room, leaseMs, backgroundRoom);
    // A lease renewal that stalled lets this worker re-claim its own job: it is still running here.
    for (const job of claimed) if (!inFlight.has(job.id)) launch(job);
    return claimed.length;
  }

  async function runLoop(): Promise<void> {
    // While another process holds the write lock, say so once, not at every poll.
    let busySince: number | null = null;
    while (!stopping) {
      const seen = wakeups;
      let delay = pollMs;
      try {
        const claimed = fill();
        if (busySince !== null) {
          log.info({ busyMs: now() - busySince }, 'the database is free again; claiming jobs');
          busySince = null;
        }
        if (claimed > 0 && inFlight.size < concurrency) continue;
        if (inFlight.size < concurrency) delay = idleDelay();
      } catch (error) {
        if (!isDatabaseBusy(error)) log.error({ error: describeError(error) }, 'claiming jobs failed; trying again');
        else {
          // Each try blocks the event loop for the busy timeout: try seldom, so the server answers meanwhile.
          delay = Math.max(pollMs, BUSY_CLAIM_DELAY_MS);
          if (busySince === null) {
            busySince = now();
            log.warn({ error: describeError(error) }, 'another process holds the database write lock; claiming jobs again shortly');
          }
        }
      }
      await sleep(delay, seen);
    }
  }

  async function waitForInFlight(): Promise<void> {
    while (inFlight.size > 0) await Promise.all([...inFlight.values()]);
  }

  return {
    /** Starts the claim-run-sleep loop; a second call does nothing. */
    start(): void {
      if (loop) return;
      stopping = false;
      loop = runLoop();
    },

    /** Stops claiming and waits for in-flight jobs, whose outcomes are recorded. */
    async stop(): Promise<void> {
      stopping = true;
      wake();
      await loop;
      loop = null;
      await waitForInFlight();
    },

    /** Something was enqueued in this process: look now instead of at the next poll. */
    wake,

    /**
     * Runs due jobs, at most `concurrency` at once, until none is claimable and none runs.
     * With `untilEmpty`, also waits for jobs scheduled later (retries) until no job is
     * pending or running. Returns what this worker did during the call (with the loop
     * started too, the loop's jobs count as well).
     */
    async drain(drainOptions: { untilEmpty?: boolean } = {}): Promise<WorkerCounts> {
      if (draining) throw new Error('worker is already draining');
      draining = true;
      if (!loop) stopping = false;
      const before = { ...counts };
      try {
        while (!stopping) {
          const seen = wakeups;
          const claimed = fill();
          if (claimed > 0 && inFlight.size < concurrency) continue;
          if (inFlight.size > 0) {
            await sleep(pollMs, seen);
            continue;
          }
          if (!drainOptions.untilEmpty) break;
          const open = jobs.counts();
          if (open.pending + open.running === 0) break;
          await sleep(idleDelay(), seen);
        }
      } finally {
        await waitForInFlight();
        draining = false;
      }
      return { done: counts.done - before.done, failed: counts.failed - before.failed, dead: counts.dead - before.dead };
    },

    stats(): { inFlight: number } & WorkerCounts {
      return { inFlight: inFlight.size, ...counts };
    },

    workerId,
  };
}

export type Worker = ReturnType<typeof createWorker>;
