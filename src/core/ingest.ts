/**
 * Ingest: a panel event becomes one row in the jobs table, in one transaction, keyed by its
 * idempotency id. This is all a hook does, so the panel never waits on the provider.
 */
import type { JobsRepo } from '../db/jobs.repo.js';
import { isDerivedEventId, type PanelEvent } from '../panel/events.js';
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

/**
 * The job key of an event. A derived id names an event to the minute, so a hook that fires twice
 * is queued once; but the same change again after another event of the account (disable,
 * enable, disable within one minute) is a new event, not a replay, and must not be dropped: it
 * is keyed after the event in between. Events of the same delivery (a hook's account.created
 * and domain.added) are not "in between" each other, and a repeat of the repeat finds the same
 * event in between, so both are still queued once. A panel's or caller's own id is never
 * re-keyed: the same id again is a replay, whatever came after it.
 */
function dedupeKeyOf(jobs: JobsRepo, event: PanelEvent, delivery: readonly string[]): string {
  const key = `event:${event.id}`;
  if (!isDerivedEventId(event.id)) return key;
  const earlier = jobs.findByDedupeKey(key);
  if (!earlier) return key;
  const ofThisDelivery = (other: string | null) => other !== null && delivery.some((k) => other === k || other.startsWith(`${k}@`));
  const between = jobs.laterOfAccount('panel.event', event.account, earlier.id).find((job) => !ofThisDelivery(job.dedupeKey));
  return between === undefined ? key : `${key}@${between.id}`;
}

/** `background`: events not from the panel's hook (an import's): claimed after its own, sent with background tokens. */
export function ingestEvents(jobs: JobsRepo, events: PanelEvent[], maxAttempts: number, background = false): IngestResult[] {
  const delivery = events.map((event) => `event:${event.id}`);
  const results = queueParsedJobs(
    jobs,
    events.map((event) => ({
      kind: 'panel.event' as const,
      dedupeKey: dedupeKeyOf(jobs, event, delivery),
      account: event.account,
      domain: isAccountLevel(event.type) ? null : (event.domain ?? null),
      payload: event,
      maxAttempts,
      background,
    })),
  );
  return results.map(({ job, created }, i) => ({
    eventId: (events[i] as PanelEvent).id,
    type: (events[i] as PanelEvent).type,
    jobId: job.id,
    created,
  }));
}
