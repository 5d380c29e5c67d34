import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { describeError } from '../errors.js';

export interface ScheduledJob {
  name: string;
  /** A cron expression (node-cron, seconds optional). */
  schedule: string;
  run(): Promise<Record<string, unknown> | void>;
}

/**
 * The registry of scheduled jobs: start and stop them together; a run still going when the
 * next is due is skipped rather than overlapped.
 */
export function createScheduler(logger: Logger, jobs: ScheduledJob[]) {
  let tasks: ScheduledTask[] = [];
  const running = new Set<string>();
  const run = async (job: ScheduledJob) => {
    // node-cron's noOverlap covers its own ticks; this also covers runNow.
    if (running.has(job.name)) return;
    running.add(job.name);
    const started = Date.now();
    try {
      const result = await job.run();
      logger.debug({ job: job.name, ms: Date.now() - started, ...result }, 'scheduled job ran');
    } catch (error) {
      logger.error({ job: job.name, error: describeError(error) }, 'scheduled job failed');
    } finally {
      running.delete(job.name);
    }
  };
  return {
    /** Runs a job now, in the background, unless it is already running. */
    runNow(name: string): void {
      const job = jobs.find((candidate) => candidate.name === name);
      if (job) void run(job);
    },
    start(): void {
      tasks = jobs.map((job) =>
        cron.schedule(job.schedule, () => run(job), { name: job.name, noOverlap: true }),
      );
    },
    async stop(): Promise<void> {
      await Promise.all(tasks.map((task) => task.destroy()));
      tasks = [];
      // Let a run in progress finish its transaction rather than close the database under it.
      while (running.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
