/**
 * The registry of background job kinds: each kind with the zod schema of its payload. Both
 * ends are typed from it: `queueJob` takes only a payload of its kind (a wrong one is a type
 * error, and refused at run time before anything is stored), and `jobHandlers` hands each
 * handler its payload parsed, so no handler casts what the jobs table gives back.
 *
 * Kinds are named `<subject>.<verb>`; they are stored in the jobs table, so renaming one
 * needs a migration (see 006_job_kind_names.sql).
 */
import { z } from 'zod';
import type { Job, JobsRepo, NewJob } from '../db/jobs.repo.js';
import { AppError } from '../errors.js';
import { panelEventSchema } from '../panel/events.js';
import { mailJobSchema } from './mail-content.js';
import { enforcementNoticeSchema, spikeNoticeSchema } from './notifications.js';

/**
 * A panel event that names no owner, kept as the hook got it until the panel names the owner.
 * `env`: only the event's domain variables; `occurredAt` keeps the event's id the one the hook
 * would have made, so a lookup run twice queues the event once.
 */
export const ownerLookupSchema = z.strictObject({
  panel: z.literal('plesk'),
  event: z.string().regex(/^[a-z_]{1,64}$/),
  domain: z.string().min(1).max(255),
  env: z.record(z.string().regex(/^(NEW|OLD)_(DOMAIN|SUBDOMAIN)_NAME$/), z.string().max(255)),
  occurredAt: z.iso.datetime({ offset: true }),
});
export type OwnerLookup = z.output<typeof ownerLookupSchema>;

export const JOB_KINDS = {
  /** A panel event (account created, domain added, ...) to carry out at the provider. */
  'panel.event': panelEventSchema,
  /** Read one website again from the provider (after a callback, or while it is not final). */
  'website.refresh': z.object({ domain: z.string().min(1) }),
  /** Register this panel server with the provider. */
  'server.register': z.object({}),
  /** Deliver one enforcement action to the notification URL. */
  'notification.send': enforcementNoticeSchema,
  /** Deliver one attack spike's notice to the notification URL. */
  'spike.notify': spikeNoticeSchema,
  /** Protect a website left in `setup` (bulk protect), for the admin named. */
  'website.protect': z.object({ domain: z.string().min(1), admin: z.string().min(1) }),
  /** A panel event kept until the panel names the domain's owner (a Plesk domain_create whose owner lookup failed). */
  'panel.owner': ownerLookupSchema,
  /** Remove at the provider the websites of an account whose package lost web protection, once the grace period is over. */
  'package.release': z.object({ account: z.string().min(1) }),
  /** Send one e-mail through WPP_SMTP_URL (core/mail.ts): rendered when sent, from data that holds no secret. */
  'email.send': mailJobSchema,
} as const;

/** What the jobs page says each kind is doing, for an admin who does not know the kinds. */
export const JOB_KIND_LABELS: Record<keyof typeof JOB_KINDS, string> = {
  'panel.event': 'panel event',
  'website.refresh': 'read a website from the provider',
  'server.register': 'register this server with the provider',
  'notification.send': 'send an enforcement notice',
  'spike.notify': 'send an attack spike notice',
  'website.protect': 'protect a website (bulk protect)',
  'panel.owner': "waiting for the panel to name the domain's owner",
  'package.release': 'remove the websites of a package without web protection (after the grace period)',
  'email.send': 'send an e-mail',
};

export type JobKind = keyof typeof JOB_KINDS;
/** The payload a job of kind K is queued with (zod input: defaults may be left out). */
export type JobPayloadInput<K extends JobKind> = z.input<(typeof JOB_KINDS)[K]>;
/** The payload a handler of kind K receives, parsed. */
export type JobPayload<K extends JobKind> = z.output<(typeof JOB_KINDS)[K]>;
export type JobHandlers = { [K in JobKind]: (payload: JobPayload<K>, job: Job) => Promise<void> };

/** A job about to be queued, its payload checked against its kind. */
export type TypedNewJob<K extends JobKind> = Omit<NewJob, 'kind' | 'payload'> & { kind: K; payload: JobPayloadInput<K> };

function parsePayload<K extends JobKind>(kind: K, payload: unknown): JobPayload<K> {
  const result = JOB_KINDS[kind].safeParse(payload);
  if (!result.success) {
    throw new AppError(
      'VALIDATION_FAILED',
      `a ${kind} job's payload does not match its kind`,
      result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  }
  return result.data as JobPayload<K>;
}

/** The job ready for the repository: the payload checked, and stored as it will be read back. */
function checkedJob<K extends JobKind>(job: TypedNewJob<K>): NewJob {
  return { ...job, payload: parsePayload(job.kind, job.payload) };
}

/** Queues one job of a registered kind. Refuses a payload that does not match the kind. */
export function queueJob<K extends JobKind>(jobs: JobsRepo, job: TypedNewJob<K>) {
  return jobs.enqueue(checkedJob(job));
}

/**
 * Queues jobs whose payloads already came out of their kind's schema (panel events: the hooks
 * route and the adapters parsed them), without parsing them twice on the ingest path, which
 * is timed per request. The type still refuses anything else; the handler parses again.
 */
export function queueParsedJobs<K extends JobKind>(
  jobs: JobsRepo,
  batch: (Omit<NewJob, 'kind' | 'payload'> & { kind: K; payload: JobPayload<K> })[],
) {
  return jobs.enqueueMany(batch);
}

/** Queues several jobs in one transaction (each payload checked first; nothing is stored if one is wrong). */
export function queueJobs<K extends JobKind>(jobs: JobsRepo, batch: TypedNewJob<K>[]) {
  return jobs.enqueueMany(batch.map((job) => checkedJob(job)));
}

/**
 * The worker's handler table: each stored payload parsed with its kind's schema before the
 * handler sees it. A payload that does not parse fails with VALIDATION_FAILED, which the
 * worker treats as permanent: retrying cannot make it valid.
 */
export function jobHandlers(handlers: JobHandlers): Record<JobKind, (job: Job) => Promise<void>> {
  const bind =
    <K extends JobKind>(kind: K) =>
    async (job: Job): Promise<void> =>
      handlers[kind](parsePayload(kind, job.payload), job);
  return {
    'panel.event': bind('panel.event'),
    'website.refresh': bind('website.refresh'),
    'server.register': bind('server.register'),
    'notification.send': bind('notification.send'),
    'spike.notify': bind('spike.notify'),
    'website.protect': bind('website.protect'),
    'panel.owner': bind('panel.owner'),
    'package.release': bind('package.release'),
    'email.send': bind('email.send'),
  };
}
