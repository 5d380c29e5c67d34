/**
 * Statistics, limits, enforcement actions, job runs and cross-process locks: the SQL of
 * statistics sync and enforcement, prepared once per database.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Counters, LimitLayer, PeriodKind } from '../core/quota.js';
import type { WebsiteQuota } from '../core/quota-level.js';
import type { EnforcementAction } from '../core/types.js';
import type { Db } from './open.js';

/** `reseller`: the pooled hit limit over all the reseller's customers' websites (migration 022), not a layer of an account's limits. */
export type LimitScope = 'global' | 'plan' | 'account' | 'website' | 'reseller';

export interface StatsRead {
  domain: string;
  account: string;
  /** Start of the account's current limit period: the usage row the hits go to. */
  periodStart: number;
  counters: Counters;
  /** The provider's breakdown of `mitigated`, when it sent one: kept with the newest sample. */
  mitigationDetail?: MitigationDetail | null;
}

/** How the mitigated requests split: challenged (captcha) or denied, and by visitor category. Cumulative. */
export interface MitigationDetail {
  captcha: number;
  deny: number;
  byCategory: Record<string, number>;
}

/** A read as stored: what the read schedule learns from it. */
export interface RecordedRead {
  domain: string;
  account: string;
  /** When the previous sample was taken; null: this is the website's first. */
  previousAt: number | null;
  /** Hits since the previous sample (the quota rule's delta). */
  delta: Counters;
  /** The website's hits in the period after this read. */
  usage: number;
}

export interface JobRun {
  id: number;
  name: string;
  startedAt: number;
  finishedAt: number | null;
  /** `crashed`: left `running` by a process that died; marked so by the next run that took the job's lock. */
  status: 'running' | 'ok' | 'failed' | 'skipped' | 'stopped' | 'crashed';
  websitesRead: number | null;
  websitesFailed: number | null;
  details: string | null;
}

/** Who holds a lock. host and pid are null for a lock written before holders were recorded. */
export interface LockHolder {
  host: string | null;
  pid: number | null;
  /** When this holder took it (epoch ms). */
  since: number | null;
  expiresAt: number;
}

/** A lock this process holds: renew it before it expires, release it when done. */
export interface HeldLock {
  readonly name: string;
  /** Pushes the expiry `ttlMs` ahead; false when the lock is no longer ours (it expired and was taken). */
  renew(): boolean;
  /** Frees the lock if it is still ours. */
  release(): void;
}

export type LockAttempt =
  | { taken: true; lock: HeldLock; /** The holder it was taken from: expired, or its process gone. */ tookOverFrom: LockHolder | null }
  | { taken: false; holder: LockHolder };

/** Whether a process of this host is alive: signal 0 checks without sending (EPERM: alive, another user's). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

interface LockRow {
  holder: string;
  host: string | null;
  pid: number | null;
  since: number | null;
  expires_at: number;
}

/** Who holds the lock `name` now, as recorded (it may have expired), without the repository: `wpp doctor` reads a read-only connection. */
export function readLockHolder(db: Db, name: string): LockHolder | null {
  const row = db.prepare<[string], LockRow>('SELECT holder, host, pid, since, expires_at FROM locks WHERE name = ?').get(name);
  return row ? { host: row.host, pid: row.pid, since: row.since, expiresAt: row.expires_at } : null;
}

interface LimitRow {
  scope: LimitScope;
  subject: string;
  period: PeriodKind | null;
  anchor_day: number | null;
  website_hits: number | null;
  account_hits: number | null;
  domain_limit: number | null;
  warning_percent: number | null;
  exempt: number | null;
}

const HOUR_MS = 3_600_000;

/** One account of a reseller's pool with its plan and its hits in the pool's period. */
export interface ResellerAccountHits {
  reseller: string;
  account: string;
  plan: string | null;
  hits: number;
}

/**
 * Reseller pools, any number in one query: each pool's accounts (the partial accounts_reseller
 * index), with their plan and each one's usage rows of the pool's period (usage_account). One
 * row per account, 0 for one without hits yet. Parameter: a JSON array of
 * `{ "reseller": ..., "periodStart": ... }`. Exported for the test that checks its query plan.
 */
export const RESELLER_USAGE_SQL = `SELECT p.reseller AS reseller, a.account AS account, a.plan AS plan,
    (SELECT COALESCE(SUM(u.hits), 0) FROM usage u WHERE u.account = a.account AND u.period_start = p.period_start) AS hits
  FROM (SELECT value ->> '$.reseller' AS reseller, value ->> '$.periodStart' AS period_start FROM json_each(?)) p
  JOIN accounts a ON a.reseller = p.reseller
  ORDER BY p.reseller, a.account`;

/**
 * Accounts' hits over spans of their hourly rows (hits_hourly_account), any number in one query:
 * one row per span's account, 0 without hits. Parameter: a JSON array of
 * `{ "account": ..., "fromHour": ..., "toHour": ... }` (toHour not included).
 */
const HITS_BETWEEN_SQL = `SELECT value ->> '$.account' AS account,
    (SELECT COALESCE(SUM(h.total), 0) FROM hits_hourly h
      WHERE h.account = value ->> '$.account' AND h.hour >= value ->> '$.fromHour' AND h.hour < value ->> '$.toHour') AS hits
  FROM json_each(?)`;

const toLayer = (row: LimitRow): LimitLayer => ({
  period: row.period,
  anchorDay: row.anchor_day,
  websiteHits: row.website_hits,
  accountHits: row.account_hits,
  domainLimit: row.domain_limit,
  warningPercent: row.warning_percent,
  exempt: row.exempt === null ? null : row.exempt === 1,
});

/** An enforcement_actions row as core's EnforcementAction (the admin log reads them too). */
export const toAction = (row: Record<string, unknown>): EnforcementAction => ({
  id: row.id as number,
  at: row.at as number,
  account: row.account as string,
  domain: row.domain as string | null,
  action: row.action as EnforcementAction['action'],
  actor: row.actor as string,
  reason: row.reason as string,
  usage: row.usage as number | null,
  limitValue: row.limit_value as number | null,
  periodStart: row.period_start as number,
  periodEnd: row.period_end as number,
  statusBefore: row.status_before as string | null,
  statusAfter: row.status_after as string | null,
  actionKey: row.action_key as string,
});

/** Limits rows and whether their subject exists. */
function prepareLimitStatements(db: Db) {
  return {
    limits: db.prepare<[], LimitRow>('SELECT * FROM limits'),
    limit: db.prepare<[string, string], LimitRow>('SELECT * FROM limits WHERE scope = ? AND subject = ?'),
    // The limits table is small (its rows are set by hand): read in key order, each row's owner looked up by primary key.
    resellerLimits: db.prepare<[{ reseller: string }], LimitRow>(
      `SELECT l.* FROM limits l WHERE
         (l.scope = 'account' AND EXISTS (SELECT 1 FROM accounts a WHERE a.account = l.subject AND a.reseller = @reseller))
         OR (l.scope = 'website' AND EXISTS (SELECT 1 FROM websites w JOIN accounts a ON a.account = w.account
           WHERE w.domain = l.subject AND a.reseller = @reseller))
       ORDER BY l.scope, l.subject`,
    ),
    setLimits: db.prepare(
      `INSERT INTO limits (scope, subject, period, anchor_day, website_hits, account_hits, domain_limit, warning_percent, exempt, updated_at)
       VALUES (@scope, @subject, @period, @anchorDay, @websiteHits, @accountHits, @domainLimit, @warningPercent, @exempt, @at)
       ON CONFLICT (scope, subject) DO UPDATE SET period = excluded.period, anchor_day = excluded.anchor_day,
         website_hits = excluded.website_hits, account_hits = excluded.account_hits, domain_limit = excluded.domain_limit,
         warning_percent = excluded.warning_percent, exempt = excluded.exempt, updated_at = excluded.updated_at`,
    ),
    websiteExists: db.prepare<[string], { found: 1 }>('SELECT 1 AS found FROM websites WHERE domain = ?'),
    accountExists: db.prepare<[string], { found: 1 }>('SELECT 1 AS found FROM accounts WHERE account = ?'),
    // A plan is known once it has settings or an account is on it (panels name plans the plugin has no row for).
    planExists: db.prepare<[string, string], { found: 1 }>(
      'SELECT 1 AS found FROM plans WHERE name = ? UNION ALL SELECT 1 FROM accounts WHERE plan = ? LIMIT 1',
    ),
    resellerSubjects: db.prepare<[], { name: string }>(
      'SELECT name FROM resellers UNION SELECT reseller FROM accounts WHERE reseller IS NOT NULL ORDER BY 1',
    ),
    // A reseller is known once the panel named it: its own row, or an account it owns.
    resellerExists: db.prepare<[string, string], { found: 1 }>(
      'SELECT 1 AS found FROM resellers WHERE name = ? UNION ALL SELECT 1 FROM accounts WHERE reseller = ? LIMIT 1',
    ),
  };
}

/** Reads: the managed websites, samples, hourly hits and period usage. */
function prepareReadStatements(db: Db) {
  return {
    managedPage: db.prepare<[string, number], { domain: string; account: string }>(
      // A website the provider has not accepted (setting up, or refused) has no statistics to read.
      "SELECT domain, account FROM websites WHERE state = 'active' AND provisioned_at IS NOT NULL AND domain > ? ORDER BY domain LIMIT ?",
    ),
    managedCount: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM websites WHERE state = 'active'"),
    latest: db.prepare<[string], Counters & { taken_at: number }>(
      'SELECT taken_at, total, permitted, blocked, mitigated FROM stats_latest WHERE domain = ? AND taken_at > 0',
    ),
    insertSample: db.prepare(
      'INSERT OR REPLACE INTO stats_samples (taken_at, domain, total, permitted, blocked, mitigated) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    upsertLatest: db.prepare(
      `INSERT INTO stats_latest (domain, taken_at, total, permitted, blocked, mitigated, mitigated_detail, failed_at, last_error)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)
       ON CONFLICT (domain) DO UPDATE SET taken_at = excluded.taken_at, total = excluded.total, permitted = excluded.permitted,
         blocked = excluded.blocked, mitigated = excluded.mitigated, mitigated_detail = excluded.mitigated_detail,
         failed_at = NULL, last_error = NULL`,
    ),
    upsertHourly: db.prepare(
      `INSERT INTO hits_hourly (domain, account, hour, total, permitted, blocked, mitigated) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (domain, hour) DO UPDATE SET total = total + excluded.total, permitted = permitted + excluded.permitted,
         blocked = blocked + excluded.blocked, mitigated = mitigated + excluded.mitigated`,
    ),
    upsertUsage: db.prepare(
      `INSERT INTO usage (domain, period_start, account, hits, permitted, blocked, mitigated, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (domain, period_start) DO UPDATE SET hits = hits + excluded.hits, permitted = permitted + excluded.permitted,
         blocked = blocked + excluded.blocked, mitigated = mitigated + excluded.mitigated, account = excluded.account, updated_at = excluded.updated_at
       RETURNING hits`,
    ),
    failRead: db.prepare(
      `INSERT INTO stats_latest (domain, taken_at, total, permitted, blocked, mitigated, failed_at, last_error) VALUES (?, 0, 0, 0, 0, 0, ?, ?)
       ON CONFLICT (domain) DO UPDATE SET failed_at = excluded.failed_at, last_error = excluded.last_error`,
    ),
    latestDetail: db.prepare<[string], { taken_at: number; mitigated: number; mitigated_detail: string | null }>(
      'SELECT taken_at, mitigated, mitigated_detail FROM stats_latest WHERE domain = ? AND taken_at > 0',
    ),
    websiteUsage: db.prepare<[string, number], { hits: number }>('SELECT hits FROM usage WHERE domain = ? AND period_start = ?'),
    accountHits: db.prepare<[string, number], { hits: number | null }>(
      'SELECT SUM(hits) AS hits FROM usage WHERE account = ? AND period_start = ?',
    ),
    resellerUsageRows: db.prepare<[string], ResellerAccountHits>(RESELLER_USAGE_SQL),
    hitsBetween: db.prepare<[string], { account: string; hits: number }>(HITS_BETWEEN_SQL),
    accountUsageRows: db.prepare<[string, number], { domain: string; hits: number; permitted: number; blocked: number; mitigated: number }>(
      'SELECT domain, hits, permitted, blocked, mitigated FROM usage WHERE account = ? AND period_start = ?',
    ),
    hourlyOfWebsite: db.prepare<[string, number, number], { hour: number } & Counters>(
      'SELECT hour, total, permitted, blocked, mitigated FROM hits_hourly WHERE domain = ? AND hour >= ? AND hour < ? ORDER BY hour',
    ),
    hourlyOfAccount: db.prepare<[string, number, number], { hour: number } & Counters>(
      `SELECT hour, SUM(total) AS total, SUM(permitted) AS permitted, SUM(blocked) AS blocked, SUM(mitigated) AS mitigated
       FROM hits_hourly WHERE account = ? AND hour >= ? AND hour < ? GROUP BY hour ORDER BY hour`,
    ),
  };
}

/** Quota snapshots and the enforcement actions taken on them. */
function prepareEnforcementStatements(db: Db) {
  return {
    insertAction: db.prepare(
      `INSERT OR IGNORE INTO enforcement_actions (at, account, domain, action, actor, reason, usage, limit_value, period_start, period_end,
         status_before, status_after, action_key)
       VALUES (@at, @account, @domain, @action, @actor, @reason, @usage, @limitValue, @periodStart, @periodEnd, @statusBefore, @statusAfter, @actionKey)`,
    ),
    // Unchanged rows are not written: a pass over 100,000 websites rewrites only what moved.
    // The quota binds by name and the time as the one positional parameter: a copy of each
    // quota with the time added ({ ...quota, at }) was an old-generation allocation per website.
    upsertQuota: db.prepare(
      `INSERT INTO website_quota (domain, account, period_start, period_end, usage, website_limit, account_usage, account_limit,
         warning_percent, level, updated_at)
       VALUES (@domain, @account, @periodStart, @periodEnd, @usage, @websiteLimit, @accountUsage, @accountLimit, @warningPercent, @level, ?)
       ON CONFLICT (domain) DO UPDATE SET account = excluded.account, period_start = excluded.period_start,
         period_end = excluded.period_end, usage = excluded.usage, website_limit = excluded.website_limit,
         account_usage = excluded.account_usage, account_limit = excluded.account_limit, warning_percent = excluded.warning_percent,
         level = excluded.level, updated_at = excluded.updated_at
       WHERE website_quota.account IS NOT excluded.account OR website_quota.period_start IS NOT excluded.period_start
         OR website_quota.period_end IS NOT excluded.period_end OR website_quota.usage IS NOT excluded.usage
         OR website_quota.website_limit IS NOT excluded.website_limit OR website_quota.account_usage IS NOT excluded.account_usage
         OR website_quota.account_limit IS NOT excluded.account_limit OR website_quota.warning_percent IS NOT excluded.warning_percent
         OR website_quota.level IS NOT excluded.level`,
    ),
    actions: db.prepare<[number], Record<string, unknown>>('SELECT * FROM enforcement_actions ORDER BY id DESC LIMIT ?'),
    // On the (domain, at) index: the newest of one website's actions first.
    latestPause: db.prepare<[string], { at: number }>(
      "SELECT at FROM enforcement_actions WHERE domain = ? AND action = 'pause' ORDER BY at DESC LIMIT 1",
    ),
  };
}

/** Job runs, the locks between processes, and pruning. */
function prepareRunStatements(db: Db) {
  return {
    startRun: db.prepare("INSERT INTO job_runs (name, started_at, status) VALUES (?, ?, 'running')"),
    finishRun: db.prepare(
      'UPDATE job_runs SET finished_at = ?, status = ?, websites_read = ?, websites_failed = ?, details = ? WHERE id = ?',
    ),
    runs: db.prepare<[string, number], Record<string, unknown>>('SELECT * FROM job_runs WHERE name = ? ORDER BY id DESC LIMIT ?'),
    lastOk: db.prepare<[string], { started_at: number }>(
      "SELECT started_at FROM job_runs WHERE name = ? AND status = 'ok' ORDER BY id DESC LIMIT 1",
    ),
    lock: db.prepare<[string], LockRow>('SELECT holder, host, pid, since, expires_at FROM locks WHERE name = ?'),
    putLock: db.prepare(
      'INSERT OR REPLACE INTO locks (name, holder, host, pid, since, expires_at) VALUES (@name, @holder, @host, @pid, @since, @expiresAt)',
    ),
    renewLock: db.prepare('UPDATE locks SET expires_at = ? WHERE name = ? AND holder = ?'),
    releaseLock: db.prepare('DELETE FROM locks WHERE name = ? AND holder = ?'),
    markCrashed: db.prepare("UPDATE job_runs SET status = 'crashed', finished_at = ?, details = ? WHERE name = ? AND status = 'running'"),
    pruneSamples: db.prepare('DELETE FROM stats_samples WHERE taken_at < ?'),
    pruneRuns: db.prepare("DELETE FROM job_runs WHERE name = ? AND started_at < ? AND status <> 'running'"),
  };
}

// The statements are prepared once per repository; kept apart from the methods so the
// factory reads as what the repository does, not as its SQL.
function prepareStatisticsStatements(db: Db) {
  return {
    ...prepareLimitStatements(db),
    ...prepareReadStatements(db),
    ...prepareEnforcementStatements(db),
    ...prepareRunStatements(db),
  };
}

export function createStatisticsRepo(db: Db, now: () => number = Date.now) {
  const s = prepareStatisticsStatements(db);

  const toHolder = (row: LockRow): LockHolder => ({ host: row.host, pid: row.pid, since: row.since, expiresAt: row.expires_at });
  const host = hostname();
  // Checked and written in one IMMEDIATE transaction: two processes finding the same dead holder never both take over.
  const takeLock = db.transaction(
    (
      name: string,
      token: string,
      ttlMs: number,
    ): { taken: true; tookOverFrom: LockHolder | null } | { taken: false; holder: LockHolder } => {
      const at = now();
      const row = s.lock.get(name);
      let tookOverFrom: LockHolder | null = null;
      if (row) {
        const expired = row.expires_at < at;
        const gone = row.host === host && row.pid !== null && row.pid !== process.pid && !processIsAlive(row.pid);
        if (!expired && !gone) return { taken: false, holder: toHolder(row) };
        tookOverFrom = toHolder(row);
      }
      s.putLock.run({ name, holder: token, host, pid: process.pid, since: at, expiresAt: at + ttlMs });
      return { taken: true, tookOverFrom };
    },
  );

  const recordReads = db.transaction(
    (reads: StatsRead[], at: number, deltaOf: (previous: Counters | null, current: Counters) => Counters): RecordedRead[] => {
      const hour = Math.floor(at / HOUR_MS);
      const recorded: RecordedRead[] = [];
      for (const read of reads) {
        const previous = s.latest.get(read.domain) ?? null;
        const c = read.counters;
        const delta = deltaOf(previous, c);
        s.insertSample.run(at, read.domain, c.total, c.permitted, c.blocked, c.mitigated);
        const detail = read.mitigationDetail ? JSON.stringify(read.mitigationDetail) : null;
        s.upsertLatest.run(read.domain, at, c.total, c.permitted, c.blocked, c.mitigated, detail);
        let usage: number;
        if (delta.total > 0 || delta.blocked > 0 || delta.mitigated > 0) {
          s.upsertHourly.run(read.domain, read.account, hour, delta.total, delta.permitted, delta.blocked, delta.mitigated);
          const row = s.upsertUsage.get(
            read.domain,
            read.periodStart,
            read.account,
            delta.total,
            delta.permitted,
            delta.blocked,
            delta.mitigated,
            at,
          ) as { hits: number };
          usage = row.hits;
        } else {
          usage = s.websiteUsage.get(read.domain, read.periodStart)?.hits ?? 0;
        }
        recorded.push({ domain: read.domain, account: read.account, previousAt: previous?.taken_at ?? null, delta, usage });
      }
      return recorded;
    },
  );

  const saveQuotas = db.transaction((quotas: WebsiteQuota[], at: number) => {
    let written = 0;
    for (const quota of quotas) written += s.upsertQuota.run(quota, at).changes;
    return written;
  });

  return {
    /** Every limits row, keyed `scope:subject`. */
    limitLayers(): Map<string, LimitLayer> {
      return new Map(s.limits.all().map((row) => [`${row.scope}:${row.subject}`, toLayer(row)]));
    },
    /** The account and website limits rows of a reseller's customers (a website of any state), in one query. */
    resellerLimitRows: (reseller: string): { scope: LimitScope; subject: string; layer: LimitLayer }[] =>
      s.resellerLimits.all({ reseller }).map((row) => ({ scope: row.scope, subject: row.subject, layer: toLayer(row) })),
    /** One limits row, or null. */
    limitLayer(scope: LimitScope, subject: string): LimitLayer | null {
      const row = s.limit.get(scope, scope === 'global' ? '' : subject);
      return row ? toLayer(row) : null;
    },
    setLimits(scope: LimitScope, subject: string, layer: LimitLayer): void {
      s.setLimits.run({
        scope,
        subject: scope === 'global' ? '' : subject,
        period: layer.period ?? null,
        anchorDay: layer.anchorDay ?? null,
        websiteHits: layer.websiteHits ?? null,
        accountHits: layer.accountHits ?? null,
        domainLimit: layer.domainLimit ?? null,
        warningPercent: layer.warningPercent ?? null,
        exempt: layer.exempt === undefined || layer.exempt === null ? null : layer.exempt ? 1 : 0,
        at: now(),
      });
    },

    /** Whether the plugin has the website, account or plan a limits row would be about. */
    limitSubjectExists(scope: Exclude<LimitScope, 'global'>, subject: string): boolean {
      if (scope === 'website') return s.websiteExists.get(subject) !== undefined;
      if (scope === 'account') return s.accountExists.get(subject) !== undefined;
      if (scope === 'reseller') return s.resellerExists.get(subject, subject) !== undefined;
      return s.planExists.get(subject, subject) !== undefined;
    },

    /** Every reseller a pool can be set for: the resellers' rows and the resellers accounts name, by name. */
    resellerSubjects: (): string[] => s.resellerSubjects.all().map((row) => row.name),

    /** Active websites in domain order after `after`: keyset pages keep memory flat at any size. */
    managedPage: (after: string, limit: number) => s.managedPage.all(after, limit),
    managedCount: () => s.managedCount.get()?.n ?? 0,

    /**
     * Stores one read per website: the sample, the newest sample, and the hits since the
     * previous sample (`deltaOf`, the quota rule) into the hour and the account's period.
     * One transaction, so a crash never counts a read twice or half.
     */
    recordReads: (reads: StatsRead[], at: number, deltaOf: (previous: Counters | null, current: Counters) => Counters): RecordedRead[] =>
      recordReads(reads, at, deltaOf),
    /** The account's hits in a period: the sum over its websites. */
    accountHits: (account: string, periodStart: number) => s.accountHits.get(account, periodStart)?.hits ?? 0,
    recordFailures: db.transaction((failures: { domain: string; error: string }[], at: number) => {
      for (const failure of failures) s.failRead.run(failure.domain, at, failure.error.slice(0, 500));
    }),

    /** The newest read's mitigated total and its breakdown (null when the provider sent none), or null before any read. */
    latestMitigation(domain: string): { takenAt: number; mitigated: number; detail: MitigationDetail | null } | null {
      const row = s.latestDetail.get(domain);
      if (!row) return null;
      return {
        takenAt: row.taken_at,
        mitigated: row.mitigated,
        detail: row.mitigated_detail ? (JSON.parse(row.mitigated_detail) as MitigationDetail) : null,
      };
    },
    websiteUsage: (domain: string, periodStart: number) => s.websiteUsage.get(domain, periodStart)?.hits ?? 0,
    accountUsage: (account: string, periodStart: number) => s.accountUsageRows.all(account, periodStart),
    /**
     * Each account of each of these resellers, with its plan and its hits in the period starting
     * at its reseller's `periodStart` (its usage rows): one query for all the pools.
     */
    resellerAccountHits: (pools: readonly { reseller: string; periodStart: number }[]): ResellerAccountHits[] =>
      pools.length === 0 ? [] : s.resellerUsageRows.all(JSON.stringify(pools)),
    /**
     * Each account's hits in its [from, to) from its hourly rows (both ends on the hour), for a
     * period other than its own: one query for all of them, by account.
     */
    accountsHitsBetween(spans: readonly { account: string; from: number; to: number }[]): Map<string, number> {
      if (spans.length === 0) return new Map();
      const hours = spans.map(({ account, from, to }) => ({
        account,
        fromHour: Math.floor(from / HOUR_MS),
        toHour: Math.ceil(to / HOUR_MS),
      }));
      return new Map(s.hitsBetween.all(JSON.stringify(hours)).map((row) => [row.account, row.hits]));
    },
    hourlyHits: (subject: { domain: string } | { account: string }, fromHour: number, toHour: number) =>
      'domain' in subject
        ? s.hourlyOfWebsite.all(subject.domain, fromHour, toHour)
        : s.hourlyOfAccount.all(subject.account, fromHour, toHour),

    /** Stores the websites' quota snapshots in one transaction; returns how many rows changed. */
    saveQuotas: (quotas: WebsiteQuota[], at: number): number => saveQuotas(quotas, at),

    /** Records an action once per key; false when it was already recorded. */
    recordAction(action: Omit<EnforcementAction, 'id'>): boolean {
      return s.insertAction.run(action).changes > 0;
    },
    recentActions: (limit = 100) => s.actions.all(limit).map(toAction),
    /** When enforcement last paused the website (the customer's "paused since"); null: never recorded. */
    latestPauseAt: (domain: string): number | null => s.latestPause.get(domain)?.at ?? null,

    startRun: (name: string, at: number) => Number(s.startRun.run(name, at).lastInsertRowid),
    finishRun(id: number, at: number, outcome: { status: JobRun['status']; read?: number; failed?: number; details?: unknown }): void {
      s.finishRun.run(
        at,
        outcome.status,
        outcome.read ?? null,
        outcome.failed ?? null,
        outcome.details === undefined ? null : JSON.stringify(outcome.details),
        id,
      );
    },
    recentRuns: (name: string, limit = 20): JobRun[] =>
      s.runs.all(name, limit).map((row) => ({
        id: row.id as number,
        name: row.name as string,
        startedAt: row.started_at as number,
        finishedAt: row.finished_at as number | null,
        status: row.status as JobRun['status'],
        websitesRead: row.websites_read as number | null,
        websitesFailed: row.websites_failed as number | null,
        details: row.details as string | null,
      })),
    lastSuccessfulRun: (name: string) => s.lastOk.get(name)?.started_at ?? null,

    /**
     * Marks the job's runs still `running` as crashed: called by the run that just took the
     * job's lock, so their processes are gone. Returns how many.
     */
    markCrashedRuns: (name: string) =>
      s.markCrashed.run(now(), JSON.stringify({ reason: 'its process ended before the run finished (found by the next run)' }), name)
        .changes,

    /**
     * Takes the lock `name` for `ttlMs` (shared across the processes using this database),
     * unless another holder has it: one whose lock has not expired and whose process, when it
     * runs on this host, is alive. A holder on this host whose pid is gone (SIGKILL, crash) is
     * taken over at once. Each call is a new holder, even within one process.
     */
    takeLock(name: string, ttlMs: number): LockAttempt {
      const token = `${host}:${process.pid}:${randomUUID()}`;
      const result = takeLock.immediate(name, token, ttlMs);
      if (!result.taken) return result;
      return {
        taken: true,
        tookOverFrom: result.tookOverFrom,
        lock: {
          name,
          renew: () => s.renewLock.run(now() + ttlMs, name, token).changes > 0,
          release: () => void s.releaseLock.run(name, token),
        },
      };
    },
    pruneSamples: (before: number) => s.pruneSamples.run(before).changes,
    /** Removes a job's finished runs older than `before`. */
    pruneRuns: (name: string, before: number) => s.pruneRuns.run(name, before).changes,
    /**
     * Long writes (a 100,000-website sync) without a WAL checkpoint in every commit: checkpoints
     * wait until `checkpoint()`, which folds the log back at the end.
     */
    deferCheckpoints: () => void db.pragma('wal_autocheckpoint = 0'),
    checkpoint(): void {
      db.pragma('wal_checkpoint(PASSIVE)');
      db.pragma('wal_autocheckpoint = 1000');
    },
  };
}

export type StatisticsRepo = ReturnType<typeof createStatisticsRepo>;
