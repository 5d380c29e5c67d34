/**
 * Ingest: a panel event becomes one row in the jobs table, in one transaction, keyed by its
 * idempotency id. This is all a hook does, so the panel never waits on the provider.
 */
import type { JobsRepo } from '../db/jobs.repo.js';
import type { PanelEvent } from '../panel/events.js';
import { queueParsedJobs } from './job-kinds.js';

export interface IngestResult {
  eventId: string;
  type: PanelEvent['type'];
  jobId: number;
  /** False when the event was already ingested (a replay): nothing new was written. */
  created: boolean;
}

/**
 * Account-wide events order everything of the account; other domain events only their domain.
 * domain.added counts as account-wide: adding one checks the account's domain limit, so two
 * adds of one account must not run side by side, in this process or any other. A move
 * (domain.moved) adds a website to its new account the same way.
 */
const isAccountLevel = (type: PanelEvent['type']) =>
  type.startsWith('account.') || type === 'plan.changed' || type === 'domain.added' || type === 'domain.moved';

export function ingestEvents(jobs: JobsRepo, events: PanelEvent[], maxAttempts: number): IngestResult[] {
  const results = queueParsedJobs(
    jobs,
    events.map((event) => ({
      kind: 'panel.event' as const,
      dedupeKey: `event:${event.id}`,
      account: event.account,
      domain: isAccountLevel(event.type) ? null : (event.domain ?? null),
      payload: event,
      maxAttempts,
    })),
  );
  return results.map(({ job, created }, i) => ({
    eventId: (events[i] as PanelEvent).id,
    type: (events[i] as PanelEvent).type,
    jobId: job.id,
    created,
  }));
}
