/**
 * What the mails need of the database (migration 021): the mail log the cooldown reads, the
 * events waiting for a reseller's digest, the readers' languages, and the admin digest's read
 * model over the websites, jobs, actions, comparisons and runs.
 */
import type { Db } from './open.js';

/** A customer event kept for its reseller's digest, as core/mail.ts stored it. */
export interface DigestEventRow {
  id: number;
  reseller: string;
  data: string;
}

/** The kv key of the admin's last page language (kept by a trigger on sessions, migration 021). */
const ADMIN_LOCALE = 'mail.admin_locale';
/** The kv key of when the last daily digests were made. */
const LAST_DIGESTS = 'mail.digests_at';
/** The admin digest lists at most this many of each thing; the admin pages have the rest. */
const DIGEST_ROWS = 50;

export function createMailRepo(db: Db) {
  const s = {
    recent: db.prepare<[string, string, string, number], { n: number }>(
      'SELECT COUNT(*) AS n FROM mail_log WHERE recipient = ? AND kind = ? AND subject_key = ? AND queued_at > ?',
    ),
    log: db.prepare('INSERT INTO mail_log (recipient, kind, subject_key, queued_at) VALUES (?, ?, ?, ?)'),
    sent: db.prepare('UPDATE mail_log SET sent_at = ? WHERE id = ?'),
    addEvent: db.prepare('INSERT INTO mail_digest_events (reseller, account, domain, kind, at, data) VALUES (?, ?, ?, ?, ?, ?)'),
    waiting: db.prepare<[], DigestEventRow>(
      'SELECT id, reseller, data FROM mail_digest_events WHERE digested_at IS NULL ORDER BY reseller, at, id',
    ),
    digested: db.prepare('UPDATE mail_digest_events SET digested_at = ? WHERE id = ?'),
    accountLocale: db.prepare<[string], { locale: string | null }>('SELECT locale FROM accounts WHERE account = ?'),
    resellerLocale: db.prepare<[string], { locale: string | null }>('SELECT locale FROM resellers WHERE name = ?'),
    kvGet: db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?'),
    kvSet: db.prepare(
      'INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    ),
    websitesInError: db.prepare<[number], { domain: string; account: string; error: string }>(
      `SELECT domain, account, COALESCE(provisioning_error, 'provider status ' || provider_status) AS error FROM websites
       WHERE state = 'active' AND (provisioning_failed_at IS NOT NULL OR provider_status = 'error') ORDER BY domain LIMIT ?`,
    ),
    deadJobs: db.prepare<[number], { id: number; kind: string; domain: string | null; error: string | null }>(
      "SELECT id, kind, domain, last_error AS error FROM jobs WHERE state = 'dead' ORDER BY id DESC LIMIT ?",
    ),
    pauses: db.prepare<[number, number], { domain: string; account: string; at: number }>(
      "SELECT domain, account, at FROM enforcement_actions WHERE action IN ('pause', 'repause') AND domain IS NOT NULL AND at >= ? ORDER BY at LIMIT ?",
    ),
    drift: db.prepare<[number, number], { panel: string; at: number; total: number }>(
      'SELECT panel, at, total_differences AS total FROM panel_comparisons WHERE at >= ? AND total_differences > 0 ORDER BY at DESC LIMIT ?',
    ),
    failedRuns: db.prepare<[number, number], { name: string; at: number; error: string | null }>(
      "SELECT name, started_at AS at, details AS error FROM job_runs WHERE status = 'failed' AND started_at >= ? ORDER BY started_at DESC LIMIT ?",
    ),
  };
  const kv = (key: string) => s.kvGet.get(key)?.value ?? null;
  return {
    /** Whether this kind went to this recipient about this subject after `since` (the cooldown). */
    sentSince: (recipient: string, kind: string, subjectKey: string, since: number): boolean =>
      (s.recent.get(recipient, kind, subjectKey, since)?.n ?? 0) > 0,
    /** Records a mail as queued; its id goes with the job, which marks it sent. */
    logQueued: (recipient: string, kind: string, subjectKey: string, at: number): number =>
      Number(s.log.run(recipient, kind, subjectKey, at).lastInsertRowid),
    markSent: (id: number, at: number): void => void s.sent.run(at, id),
    /** Keeps a customer's event for the reseller's next digest. */
    addDigestEvent: (event: { reseller: string; account: string; domain: string | null; kind: string; at: number; data: unknown }): void =>
      void s.addEvent.run(event.reseller, event.account, event.domain, event.kind, event.at, JSON.stringify(event.data)),
    waitingDigestEvents: (): DigestEventRow[] => s.waiting.all(),
    markDigested: (ids: number[], at: number): void => {
      for (const id of ids) s.digested.run(at, id);
    },
    /** The language tag of the account's last launch of the pages, or null. */
    accountLocale: (account: string): string | null => s.accountLocale.get(account)?.locale ?? null,
    /** The language tag of the reseller's last launch of the reseller pages (migration 023), or null. */
    resellerLocale: (reseller: string): string | null => s.resellerLocale.get(reseller)?.locale ?? null,
    adminLocale: (): string | null => kv(ADMIN_LOCALE),
    lastDigestsAt: (): number | null => {
      const value = kv(LAST_DIGESTS);
      return value === null ? null : Number(value);
    },
    recordDigestsAt: (at: number): void => void s.kvSet.run(LAST_DIGESTS, String(at), at),
    /** What the admin digest lists, since `since`. */
    adminDigest: (since: number) => ({
      websitesInError: s.websitesInError.all(DIGEST_ROWS),
      deadJobs: s.deadJobs.all(DIGEST_ROWS).map((job) => ({ ...job, error: job.error ?? '' })),
      pauses: s.pauses.all(since, DIGEST_ROWS),
      drift: s.drift.all(since, DIGEST_ROWS),
      failedRuns: s.failedRuns.all(since, DIGEST_ROWS).map((run) => ({ ...run, error: run.error ?? '' })),
      providerAnsweredAt: ((value) => (value === null ? null : Number(value)))(kv('provider.answered_at')),
    }),
    /** Several writes as one. */
    transaction: <T>(work: () => T): T => db.transaction(work).immediate(),
  };
}

export type MailRepo = ReturnType<typeof createMailRepo>;
