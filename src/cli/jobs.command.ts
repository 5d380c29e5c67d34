import { z } from 'zod';
import { JOB_STATES, createJobsRepo } from '../db/jobs.repo.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import { configFromEnv, parseOptions, UsageError } from './shared.js';

export const jobsUsage = `  jobs [--state S] [--limit N]   list jobs (newest first) and the count per state
  jobs retry <id> | --dead        run a dead job again (or every dead job)`;

export async function runJobs(args: string[]): Promise<void> {
  const db = openPluginDatabase(configFromEnv());
  try {
    const jobs = createJobsRepo(db);
    if (args[0] === 'retry') {
      const target = args[1];
      if (target === '--dead') {
        console.log(`${jobs.retryAllDead()} dead jobs queued again`);
        return;
      }
      const id = Number(target);
      if (!Number.isInteger(id) || id <= 0) throw new UsageError('jobs retry takes a job id or --dead');
      const job = jobs.retry(id);
      if (!job) throw new UsageError(`No job ${id} to retry (it must exist and be dead)`);
      console.log(`job ${id} queued again`);
      return;
    }
    const options = parseOptions(z.object({ state: z.enum(JOB_STATES as [string, ...string[]]).optional(), limit: z.coerce.number().int().min(1).max(10_000).default(20) }), args);
    console.log(JSON.stringify(jobs.counts()));
    for (const job of jobs.list({ ...(options.state ? { state: options.state as (typeof JOB_STATES)[number] } : {}), limit: options.limit })) {
      // domain.added jobs are account-wide for ordering; their domain is in the event.
      const domain = job.domain ?? (job.payload as { domain?: string } | null)?.domain ?? '-';
      console.log(`${job.id}\t${job.state}\t${job.kind}\t${job.account ?? '-'}\t${domain}\tattempts=${job.attempts}\t${job.lastError ?? ''}`);
    }
  } finally {
    db.close();
  }
}
