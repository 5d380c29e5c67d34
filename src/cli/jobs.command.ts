import { Command, Option } from 'commander';
import { z } from 'zod';
import { JOB_STATES, createJobsRepo } from '../db/jobs.repo.js';
import type { Db } from '../db/open.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import { configFromEnv, optionValues, UsageError, validateOptions } from './shared.js';

const listOptions = z.object({
  state: z.enum(JOB_STATES as [string, ...string[]]).optional(),
  limit: z.coerce.number().int().min(1).max(10_000),
});

function withDatabase<T>(fn: (db: Db) => T): T {
  const db = openPluginDatabase(configFromEnv());
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function runJobs(options: z.output<typeof listOptions>): void {
  withDatabase((db) => {
    const jobs = createJobsRepo(db);
    console.log(JSON.stringify(jobs.counts()));
    for (const job of jobs.list({
      ...(options.state ? { state: options.state as (typeof JOB_STATES)[number] } : {}),
      limit: options.limit,
    })) {
      // domain.added jobs are account-wide for ordering; their domain is in the event.
      const domain = job.domain ?? (job.payload as { domain?: string } | null)?.domain ?? '-';
      console.log(
        `${job.id}\t${job.state}\t${job.kind}\t${job.account ?? '-'}\t${domain}\tattempts=${job.attempts}\t${job.lastError ?? ''}`,
      );
    }
  });
}

function runJobsRetry(target: string | undefined, options: { dead?: boolean }): void {
  if (options.dead) {
    if (target !== undefined) throw new UsageError('jobs retry takes a job id or --dead, not both');
    withDatabase((db) => console.log(`${createJobsRepo(db).retryAllDead()} dead jobs queued again`));
    return;
  }
  const id = Number(target);
  if (!Number.isInteger(id) || id <= 0) throw new UsageError('jobs retry takes a job id or --dead');
  withDatabase((db) => {
    if (!createJobsRepo(db).retry(id)) throw new UsageError(`No job ${id} to retry (it must exist and be dead)`);
  });
  console.log(`job ${id} queued again`);
}

export const jobsCommand = () => {
  const jobs = new Command('jobs')
    .description('list jobs (newest first) and the count per state')
    .option('--state <state>', `only the jobs in this state: ${JOB_STATES.join(', ')}`)
    .addOption(new Option('--limit <n>', 'how many jobs to list, 1-10000').default(20))
    .enablePositionalOptions()
    .action((_options, command: Command) => runJobs(validateOptions(listOptions, optionValues(command))));
  jobs
    .command('retry')
    .description('run a dead job again, or every dead job')
    .argument('[id]', 'the dead job to run again')
    .option('--dead', 'every dead job')
    .action(runJobsRetry);
  return jobs;
};
