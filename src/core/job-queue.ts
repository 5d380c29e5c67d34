/**
 * The plugin's ways of queueing background work, one per job kind, each with its keys:
 * what makes a repeat a no-op (dedupe key) or folds waiting duplicates into one (pending
 * key). `onQueued` wakes a worker in this process; other processes' workers poll.
 */
import type { JobsRepo } from '../db/jobs.repo.js';
import type { PanelEvent } from '../panel/events.js';
import { ingestEvents, type IngestResult } from './ingest.js';
import { queueJob, queueJobs } from './job-kinds.js';
import type { MailJob } from './mail-content.js';
import { notificationKey, spikeNotificationKey, type EnforcementNotice, type SpikeNoticePayload } from './notifications.js';

/**
 * The least time between two provider re-reads of one website that callbacks ask for. The
 * provider's request budget is spent on the plugin's behalf, and anyone who learns a callback
 * URL can post to it: however callbacks arrive, one website costs at most one re-read per window.
 */
export const CALLBACK_REREAD_SPACING_MS = 30_000;

export interface JobQueueDeps {
  jobs: JobsRepo;
  /** Attempts before a job is dead (WPP_JOB_MAX_ATTEMPTS). */
  maxAttempts: number;
  onQueued: () => void;
}

export function createJobQueue({ jobs, maxAttempts, onQueued }: JobQueueDeps) {
  /**
   * Queues provider re-reads of websites, in one transaction. One waiting re-read per
   * website is enough (it reads whatever is true when it runs), so a flood of callbacks
   * for one website, replays included, costs one job and one provider read. `runAt` holds
   * a re-read back (see refreshAfterCallback); a later request joins the waiting one.
   */
  function refreshWebsites(refreshes: { domain: string; account: string; runAt?: number }[]): void {
    if (refreshes.length === 0) return;
    queueJobs(
      jobs,
      refreshes.map(({ domain, account, runAt }) => ({
        ...(runAt === undefined ? {} : { runAt }),
        kind: 'website.refresh' as const,
        pendingKey: `website.refresh:${domain}`,
        account,
        domain,
        payload: { domain },
        maxAttempts,
        // A re-read is background work (reconcile's every minute, a callback's): the panel's own events go first.
        background: true,
      })),
    );
    onQueued();
  }

  return {
    /**
     * Stores panel events as jobs, one transaction; a replayed event id changes nothing.
     * `background`: an import's events, not the panel's hook's (docs/fleet.md, "One budget per server").
     */
    ingestEvents(events: PanelEvent[], options: { background?: boolean } = {}): IngestResult[] {
      const results = ingestEvents(jobs, events, maxAttempts, options.background === true);
      onQueued();
      return results;
    },

    refreshWebsites,

    /**
     * A callback's re-read of a website: at once, or CALLBACK_REREAD_SPACING_MS after the
     * website's last queued re-read, whichever is later; joins a re-read already waiting. The
     * last callback of a burst is never lost: the held-back re-read reads what is true then.
     */
    refreshAfterCallback(website: { domain: string; account: string }, now: number): void {
      const last = jobs.latestRunAt('website.refresh', website.domain);
      const runAt = last === null ? now : Math.max(now, last + CALLBACK_REREAD_SPACING_MS);
      refreshWebsites([{ domain: website.domain, account: website.account, runAt }]);
    },

    /** Queues one enforcement action's delivery to the notification URL: retried, never lost, sent once. */
    notify(action: EnforcementNotice): void {
      queueJob(jobs, { kind: 'notification.send', dedupeKey: notificationKey(action), account: null, payload: action, maxAttempts });
      onQueued();
    },

    /** Queues one e-mail (core/mail.ts decided it is due): retried with the jobs' backoff, dead after the attempts. */
    sendMail(mail: MailJob): void {
      queueJob(jobs, { kind: 'email.send', account: null, payload: mail, maxAttempts });
      onQueued();
    },

    /** Queues an attack spike's notice to the notification URL: retried, never lost, sent once per spike. */
    notifySpike(notice: SpikeNoticePayload): void {
      queueJob(jobs, { kind: 'spike.notify', dedupeKey: spikeNotificationKey(notice), account: null, payload: notice, maxAttempts });
      onQueued();
    },

    /**
     * Queues the protection of websites in `setup` (bulk protect). One waiting job per website
     * however often asked: returns how many were newly queued.
     */
    protectWebsites(websites: { domain: string; account: string }[], admin: string): number {
      if (websites.length === 0) return 0;
      const results = queueJobs(
        jobs,
        websites.map(({ domain, account }) => ({
          kind: 'website.protect' as const,
          pendingKey: `website.protect:${domain}`,
          account,
          domain,
          payload: { domain, admin },
          maxAttempts,
          // An admin's bulk action over every unprotected domain: background, after the panel's own events.
          background: true,
        })),
      );
      onQueued();
      return results.filter((result) => result.created).length;
    },

    /** An admin's retry of one dead job (pending again, attempts 0); null when there is no such dead job. */
    retryJob(id: number) {
      const job = jobs.retry(id);
      if (job) onQueued();
      return job;
    },

    /** An admin's retry of every dead job; how many were queued again. */
    retryAllDead(): number {
      const retried = jobs.retryAllDead();
      if (retried > 0) onQueued();
      return retried;
    },

    /** Queues the removal of a released package's websites for `runAt` (core/package-protection.ts); one waiting per account. */
    releasePackage(account: string, runAt: number): void {
      queueJob(jobs, {
        kind: 'package.release',
        pendingKey: `package.release:${account}`,
        account,
        payload: { account },
        runAt,
        maxAttempts,
      });
      onQueued();
    },

    /** Queues this server's registration with the provider, once per IP address. */
    registerServer(ip: string): void {
      queueJob(jobs, { kind: 'server.register', dedupeKey: `server.register:${ip}`, payload: {}, maxAttempts });
      onQueued();
    },
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;
