/**
 * The read schedule's SQL: which websites are due, what their reads taught (rates, spike
 * state, forecasts), account forecasts and attack-spike notices (migration 012).
 */
import type { Db } from './open.js';

/** Far in the future: where a website not read (removed) waits; the migration uses the same. */
export const NEVER = Number.MAX_SAFE_INTEGER;

export interface ScheduleRow {
  domain: string;
  account: string;
  nextReadAt: number;
  lastReadAt: number | null;
  hitRate: number | null;
  blockedRecent: number | null;
  blockedBaseline: number | null;
  spikeSince: number | null;
  limitReachedAt: number | null;
  periodEnd: number | null;
}

/** What one read taught about a website, written with its next read time. */
export type ScheduleUpdate = Omit<ScheduleRow, 'account'>;

export interface AccountForecast {
  account: string;
  hitRate: number;
  limitReachedAt: number | null;
  periodEnd: number;
  updatedAt: number;
}

export interface WebsiteNotice {
  id: number;
  domain: string;
  account: string;
  kind: 'attack_spike';
  startedAt: number;
  endedAt: number | null;
  blockedPerHour: number;
  baselinePerHour: number;
}

interface RawRow {
  domain: string;
  account: string;
  next_read_at: number;
  last_read_at: number | null;
  hit_rate: number | null;
  blocked_recent: number | null;
  blocked_baseline: number | null;
  spike_since: number | null;
  limit_reached_at: number | null;
  period_end: number | null;
}

const toRow = (row: RawRow): ScheduleRow => ({
  domain: row.domain,
  account: row.account,
  nextReadAt: row.next_read_at,
  lastReadAt: row.last_read_at,
  hitRate: row.hit_rate,
  blockedRecent: row.blocked_recent,
  blockedBaseline: row.blocked_baseline,
  spikeSince: row.spike_since,
  limitReachedAt: row.limit_reached_at,
  periodEnd: row.period_end,
});

const toNotice = (row: Record<string, unknown>): WebsiteNotice => ({
  id: row.id as number,
  domain: row.domain as string,
  account: row.account as string,
  kind: row.kind as WebsiteNotice['kind'],
  startedAt: row.started_at as number,
  endedAt: row.ended_at as number | null,
  blockedPerHour: row.blocked_per_hour as number,
  baselinePerHour: row.baseline_per_hour as number,
});

/** What a page of reads changes in the schedule (ReadScheduleRepo.save). */
export interface SchedulePage {
  websites: ScheduleUpdate[];
  accounts: AccountForecast[];
  /** Accounts near their aggregate limit: every website of theirs is read by `readBy`. */
  groups: { account: string; readBy: number }[];
  spikesStarted: Omit<WebsiteNotice, 'id' | 'endedAt'>[];
  spikesEnded: { domain: string; startedAt: number; at: number }[];
}

export function createReadScheduleRepo(db: Db) {
  const s = {
    // From the due index alone, earliest first; the join drops a row whose website went away.
    due: db.prepare<[number, number], { domain: string; account: string; nextReadAt: number; lastReadAt: number | null }>(
      `SELECT r.domain, r.account, r.next_read_at AS nextReadAt, r.last_read_at AS lastReadAt
       FROM read_schedule r JOIN websites w ON w.domain = r.domain AND w.state = 'active' AND w.provisioned_at IS NOT NULL
       WHERE r.next_read_at <= ? ORDER BY r.next_read_at LIMIT ?`,
    ),
    dueCount: db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM read_schedule WHERE next_read_at <= ?'),
    row: db.prepare<[string], RawRow>('SELECT * FROM read_schedule WHERE domain = ?'),
    update: db.prepare(
      // A website removed while it was being read stays parked.
      `UPDATE read_schedule SET next_read_at = CASE WHEN next_read_at >= ${NEVER} THEN next_read_at ELSE @nextReadAt END,
         last_read_at = @lastReadAt, hit_rate = @hitRate,
         blocked_recent = @blockedRecent, blocked_baseline = @blockedBaseline, spike_since = @spikeSince,
         limit_reached_at = @limitReachedAt, period_end = @periodEnd
       WHERE domain = @domain`,
    ),
    // The rates of the account's websites being read (NULL for those never measured, and removed ones).
    accountRate: db.prepare<[string, number], { rate: number | null }>(
      'SELECT SUM(hit_rate) AS rate FROM read_schedule WHERE account = ? AND next_read_at < ?',
    ),
    pullGroup: db.prepare('UPDATE read_schedule SET next_read_at = ? WHERE account = ? AND next_read_at > ? AND next_read_at < ?'),
    readAt: db.prepare(`UPDATE read_schedule SET next_read_at = ? WHERE domain = ? AND next_read_at < ${NEVER}`),
    markDue: db.prepare(`UPDATE read_schedule SET next_read_at = MIN(next_read_at, ?) WHERE domain = ? AND next_read_at < ${NEVER}`),
    putAccount: db.prepare(
      `INSERT INTO account_forecast (account, hit_rate, limit_reached_at, period_end, updated_at)
       VALUES (@account, @hitRate, @limitReachedAt, @periodEnd, @updatedAt)
       ON CONFLICT (account) DO UPDATE SET hit_rate = excluded.hit_rate, limit_reached_at = excluded.limit_reached_at,
         period_end = excluded.period_end, updated_at = excluded.updated_at`,
    ),
    account: db.prepare<
      [string],
      { account: string; hit_rate: number; limit_reached_at: number | null; period_end: number; updated_at: number }
    >('SELECT * FROM account_forecast WHERE account = ?'),
    openNotice: db.prepare(
      `INSERT OR IGNORE INTO website_notices (domain, account, kind, started_at, blocked_per_hour, baseline_per_hour)
       VALUES (@domain, @account, @kind, @startedAt, @blockedPerHour, @baselinePerHour)`,
    ),
    closeNotice: db.prepare('UPDATE website_notices SET ended_at = ? WHERE domain = ? AND kind = ? AND started_at = ?'),
    notices: db.prepare<[string, number], Record<string, unknown>>(
      'SELECT * FROM website_notices WHERE domain = ? ORDER BY started_at DESC LIMIT ?',
    ),
  };

  return {
    /** Up to `limit` active websites due at `at`, the earliest due first, with when they were last read. */
    due: (at: number, limit: number) => s.due.all(at, limit),
    dueCount: (at: number) => s.dueCount.get(at)?.n ?? 0,
    /** What the schedule knows of a website, or null (not a website the plugin has). */
    get(domain: string): ScheduleRow | null {
      const row = s.row.get(domain);
      return row ? toRow(row) : null;
    },
    /** The sum of the smoothed hit rates of an account's websites. */
    accountRate: (account: string) => s.accountRate.get(account, NEVER)?.rate ?? 0,
    /**
     * Writes what a page of reads taught, the account forecasts, brings groups near their
     * limit forward and records the spikes that began or ended: one transaction. Returns the
     * notices newly recorded.
     */
    save: db.transaction((page: SchedulePage) => {
      for (const website of page.websites) s.update.run(website);
      for (const account of page.accounts) s.putAccount.run(account);
      for (const group of page.groups) s.pullGroup.run(group.readBy, group.account, group.readBy, NEVER);
      for (const ended of page.spikesEnded) s.closeNotice.run(ended.at, ended.domain, 'attack_spike', ended.startedAt);
      return page.spikesStarted.filter((notice) => s.openNotice.run(notice).changes > 0);
    }),
    /** Reads these (active) websites next at `at`, whatever was planned (a failed read is tried again then). */
    readAt: db.transaction((domains: string[], at: number) => {
      for (const domain of domains) s.readAt.run(at, domain);
    }),
    /** Reads these websites at the next tick (their last reads could not be acted on). */
    markDue: db.transaction((domains: string[], at: number) => {
      for (const domain of domains) s.markDue.run(at, domain);
    }),
    accountForecast(account: string): AccountForecast | null {
      const row = s.account.get(account);
      return row
        ? {
            account: row.account,
            hitRate: row.hit_rate,
            limitReachedAt: row.limit_reached_at,
            periodEnd: row.period_end,
            updatedAt: row.updated_at,
          }
        : null;
    },
    /** A website's notices, newest first. */
    notices: (domain: string, limit = 10) => s.notices.all(domain, limit).map(toNotice),
  };
}

export type ReadScheduleRepo = ReturnType<typeof createReadScheduleRepo>;
