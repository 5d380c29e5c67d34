import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';

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
  return {
    start(): void {
      tasks = jobs.map((job) =>
        cron.schedule(
          job.schedule,
          async () => {
            const started = Date.now();
            try {
              const result = await job.run();
              logger.debug({ job: job.name, ms: Date.now() - started, ...result }, 'scheduled job ran');
            } catch (error) {
              logger.error({ job: job.name, err: error }, 'scheduled job failed');
            }
          },
          { name: job.name, noOverlap: true },
        ),
      );
    },
    async stop(): Promise<void> {
      await Promise.all(tasks.map((task) => task.destroy()));
      tasks = [];
    },
  };
}
