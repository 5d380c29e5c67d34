/**
 * The scheduler: jobs that run every N minutes, at even gaps, without overlapping.
 *
 * A cron step cannot express most intervals: `*\/45` fires at :00 and :45 (gaps of 45 and
 * 15 minutes) and an hourly step rounds 90 minutes to 2 hours. So node-cron only gives a
 * heartbeat at the start of every minute, and a job runs on the first beat of each new
 * slot: slots are the multiples of its interval counted from the Unix epoch. Every interval
 * from 1 minute to 24 hours thus fires at even gaps, on round times where the interval
 * divides the hour or the day, and a late beat (a busy event loop) still lands in its slot.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { describeError } from '../errors.js';

export interface ScheduledJob {
  name: string;
  /** Minutes between runs, 1 to 1440. */
  everyMinutes: number;
  run(): Promise<Record<string, unknown> | void>;
}

export interface SchedulerOptions {
  logger: Logger;
  jobs: ScheduledJob[];
  /** The clock slots are read from. Default Date.now. */
  now?: () => number;
}

const MINUTE_MS = 60_000;

/** The slot `at` falls in, for a job every `everyMinutes` minutes: runs happen once per slot. */
function slotOf(at: number, everyMinutes: number): number {
  return Math.floor(at / (everyMinutes * MINUTE_MS));
}

/** When the slot after the one `at` falls in begins: the job's next regular run. */
export function nextRunAt(at: number, everyMinutes: number): number {
  return (slotOf(at, everyMinutes) + 1) * everyMinutes * MINUTE_MS;
}

export function createScheduler(options: SchedulerOptions) {
  const { logger, jobs } = options;
  const now = options.now ?? Date.now;
  for (const job of jobs) {
    if (!Number.isInteger(job.everyMinutes) || job.everyMinutes < 1 || job.everyMinutes > 1440) {
      throw new RangeError(`scheduled job ${job.name}: everyMinutes must be a whole number from 1 to 1440, got ${job.everyMinutes}`);
    }
  }
  // The slot each job last ran in (or was started in): it runs again in the next one.
  const lastSlot = new Map(jobs.map((job) => [job.name, slotOf(now(), job.everyMinutes)]));
  const running = new Map<string, Promise<void>>();
  let heartbeat: ScheduledTask | undefined;

  const run = (job: ScheduledJob): void => {
    // A run still going when the next slot begins is not overlapped: that slot is skipped.
    if (running.has(job.name)) return;
    const started = now();
    const done = Promise.resolve()
      .then(() => job.run())
      .then(
        (result) => logger.debug({ job: job.name, ms: now() - started, ...result }, 'scheduled job ran'),
        (error: unknown) => logger.error({ job: job.name, error: describeError(error) }, 'scheduled job failed'),
      )
      .finally(() => running.delete(job.name));
    running.set(job.name, done);
  };

  /** One heartbeat: runs every job whose next slot has begun. */
  const tick = (): void => {
    const at = now();
    for (const job of jobs) {
      const slot = slotOf(at, job.everyMinutes);
      if (slot <= (lastSlot.get(job.name) ?? slot)) continue;
      lastSlot.set(job.name, slot);
      run(job);
    }
  };

  return {
    tick,
    /** Runs a job now, in the background, unless it is already running (the catch-up after downtime). */
    runNow(name: string): void {
      const job = jobs.find((candidate) => candidate.name === name);
      if (job) run(job);
    },
    /** Starts the heartbeat at the start of every minute. */
    start(): void {
      heartbeat ??= cron.schedule('* * * * *', tick, { name: 'wpp-scheduler' });
    },
    /** Stops the heartbeat and waits for runs in progress, rather than close the database under them. */
    async stop(): Promise<void> {
      await heartbeat?.destroy();
      heartbeat = undefined;
      await Promise.allSettled([...running.values()]);
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
