/**
 * Panel events kept until the panel names their owner (`panel.owner` jobs, see job-kinds.ts).
 * The serve's worker runs as the wpp user and may not run the panel's tools, which answer root
 * only; the root timer (`wpp import <panel>`) runs the kept events instead, through here.
 */
import type { JobsRepo } from '../db/jobs.repo.js';
import { describeError } from '../errors.js';
import { ownerLookupSchema, type OwnerLookup } from './job-kinds.js';

export interface KeptEventsOutcome {
  /** Kept events whose owner the panel named: queued as panel events, their jobs done. */
  resolved: number;
  /** Still waiting, each with why. */
  waiting: { job: number; domain: string; error: string }[];
}

/** Asks again for every kept event waiting or given up on (a dead one is as good as lost otherwise). */
export async function runKeptEvents(deps: {
  jobs: Pick<JobsRepo, 'list' | 'settle'>;
  /** Asks the panel for the owner and queues the event; throws while the panel cannot say. */
  resolve: (lookup: OwnerLookup) => Promise<unknown>;
}): Promise<KeptEventsOutcome> {
  const kept = [...deps.jobs.list({ state: 'pending', limit: 10_000 }), ...deps.jobs.list({ state: 'dead', limit: 10_000 })].filter(
    (job) => job.kind === 'panel.owner',
  );
  const outcome: KeptEventsOutcome = { resolved: 0, waiting: [] };
  for (const job of kept) {
    const lookup = ownerLookupSchema.safeParse(job.payload);
    if (!lookup.success) continue;
    try {
      await deps.resolve(lookup.data);
      // The events are queued under their own ids: a worker that ran the same job meanwhile queued nothing twice.
      if (deps.jobs.settle(job.id)) outcome.resolved++;
    } catch (error) {
      outcome.waiting.push({ job: job.id, domain: lookup.data.domain, error: describeError(error) });
    }
  }
  return outcome;
}
