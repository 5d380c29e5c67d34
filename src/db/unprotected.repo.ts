/**
 * The domains the plugin knows but does not protect yet, for bulk protect: websites left in
 * `setup` (created while auto-protect was off) and domains whose provisioning died (a dead
 * domain.added job, and no website the provider accepted for the domain since: a refused
 * domain's row exists from its event on, not provisioned).
 */
import type { Db } from './open.js';

export interface SetupWebsite {
  domain: string;
  account: string;
  createdAt: number;
}

export interface FailedDomainAdd {
  jobId: number;
  domain: string;
  account: string;
  lastError: string | null;
  failedAt: number | null;
}

// domain.added jobs are queued account-wide (jobs.domain is NULL, see core/ingest.ts): the domain is in the payload.
const FAILED_ADDS = `
  FROM jobs j
  WHERE j.state = 'dead' AND j.kind = 'panel.event' AND json_extract(j.payload, '$.type') = 'domain.added'
    AND NOT EXISTS (SELECT 1 FROM websites w WHERE w.domain = json_extract(j.payload, '$.domain') AND w.state = 'active'
      AND w.provisioned_at IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM jobs later WHERE later.state = 'dead' AND later.kind = 'panel.event' AND later.id > j.id
      AND json_extract(later.payload, '$.type') = 'domain.added' AND json_extract(later.payload, '$.domain') = json_extract(j.payload, '$.domain'))`;

/** A reseller's accounts (the reseller pages): `?` is the reseller. */
const OF_RESELLER = 'account IN (SELECT account FROM accounts WHERE reseller = ?)';

export function createUnprotectedRepo(db: Db) {
  const s = {
    setupPage: db.prepare<[string, number], { domain: string; account: string; created_at: number }>(
      `SELECT domain, account, created_at FROM websites WHERE state = 'active' AND desired_status = 'setup' AND provisioned_at IS NOT NULL
         AND domain > ? ORDER BY domain LIMIT ?`,
    ),
    setupCount: db.prepare<[], { n: number }>(
      // A refused website (provider status 'error', never accepted) is counted with the failed adds, not here.
      "SELECT COALESCE(SUM(n), 0) AS n FROM website_counts WHERE state = 'active' AND desired_status = 'setup' AND provider_status <> 'error'",
    ),
    failed: db.prepare<[number], { id: number; domain: string; account: string; last_error: string | null; finished_at: number | null }>(
      `SELECT j.id, json_extract(j.payload, '$.domain') AS domain, j.account, j.last_error, j.finished_at ${FAILED_ADDS} ORDER BY j.id LIMIT ?`,
    ),
    failedCount: db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n ${FAILED_ADDS}`),
    // A reseller's own (the reseller pages): the same lists over the accounts the accounts_reseller index names.
    resellerSetupPage: db.prepare<[string, string, number], { domain: string; account: string; created_at: number }>(
      `SELECT domain, account, created_at FROM websites WHERE ${OF_RESELLER} AND state = 'active' AND desired_status = 'setup'
         AND provisioned_at IS NOT NULL AND domain > ? ORDER BY domain LIMIT ?`,
    ),
    resellerSetupCount: db.prepare<[string], { n: number }>(
      `SELECT COUNT(*) AS n FROM websites WHERE ${OF_RESELLER} AND state = 'active' AND desired_status = 'setup'
         AND provisioned_at IS NOT NULL`,
    ),
    resellerFailed: db.prepare<
      [string, number],
      { id: number; domain: string; account: string; last_error: string | null; finished_at: number | null }
    >(
      `SELECT j.id, json_extract(j.payload, '$.domain') AS domain, j.account, j.last_error, j.finished_at ${FAILED_ADDS}
         AND j.${OF_RESELLER} ORDER BY j.id LIMIT ?`,
    ),
    resellerFailedCount: db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n ${FAILED_ADDS} AND j.${OF_RESELLER}`),
  };
  const toFailed = (row: { id: number; domain: string; account: string; last_error: string | null; finished_at: number | null }) => ({
    jobId: row.id,
    domain: row.domain,
    account: row.account,
    lastError: row.last_error,
    failedAt: row.finished_at,
  });
  return {
    /** Websites in `setup` after `after`, in domain order: keyset pages, so a bulk run reads any number in bounded memory. */
    setupWebsites: (after: string, limit: number): SetupWebsite[] =>
      s.setupPage.all(after, limit).map((row) => ({ domain: row.domain, account: row.account, createdAt: row.created_at })),
    setupCount: () => s.setupCount.get()?.n ?? 0,
    /** The newest dead domain.added of each domain still not protected. */
    failedDomainAdds: (limit: number): FailedDomainAdd[] => s.failed.all(limit).map(toFailed),
    failedDomainAddCount: () => s.failedCount.get()?.n ?? 0,
    /** The same four for one reseller's accounts only. */
    ofReseller: (reseller: string) => ({
      setupWebsites: (after: string, limit: number): SetupWebsite[] =>
        s.resellerSetupPage
          .all(reseller, after, limit)
          .map((row) => ({ domain: row.domain, account: row.account, createdAt: row.created_at })),
      setupCount: () => s.resellerSetupCount.get(reseller)?.n ?? 0,
      failedDomainAdds: (limit: number): FailedDomainAdd[] => s.resellerFailed.all(reseller, limit).map(toFailed),
      failedDomainAddCount: () => s.resellerFailedCount.get(reseller)?.n ?? 0,
    }),
  };
}

export type UnprotectedRepo = ReturnType<typeof createUnprotectedRepo>;
