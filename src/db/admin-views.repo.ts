/**
 * What the admin pages read: the fleet overview, the searchable lists of websites, accounts,
 * jobs, runs and enforcement actions, and one website's history. Read-only SQL, prepared once
 * per database; every list is a page of plain objects with its total, fast at 100,000 websites
 * (migrations/009_history_and_quota.sql holds the indexes, bench/lib/views-seed.ts the data
 * to measure them on).
 */
import type { QuotaLevel } from '../core/quota-level.js';
import type { DesiredStatus, EnforcementAction, PausedBy, ProvisioningFailure } from '../core/types.js';
import { PROVIDER_ANSWERED_AT } from './accounts.repo.js';
import type { JobState } from './jobs.repo.js';
import type { Db } from './open.js';
import { toAction, type JobRun } from './statistics.repo.js';
import { DAY_MS } from '../time.js';

import { pageOf, pageWindow, type Page, type PageRequest } from './paging.js';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page, type PageRequest } from './paging.js';
/** Rows read per query by `enforcementLogRows`. */
const EXPORT_CHUNK = 500;

export type QuotaFilter = 'near' | 'over' | 'near_or_over';
export type WebsiteSort = 'domain' | 'account' | 'usage' | 'status' | 'updated';

export interface WebsiteSearch extends PageRequest {
  /** A domain or account prefix (lower case; matched as given after lower-casing). */
  q?: string;
  /** Exactly this account's websites (the accounts page links here): its index range (account, domain). */
  account?: string;
  /** 'prefix' (default, an index range) or 'contains' (a substring anywhere: reads every website). */
  match?: 'prefix' | 'contains';
  /** A provider status of an active website ('online', 'paused', 'pending_dns', 'setup', 'error', ...) or 'removed'. */
  state?: string;
  pausedBy?: PausedBy;
  quota?: QuotaFilter;
  /** Default 'domain'. */
  sort?: WebsiteSort;
  /** Default 'asc'. */
  dir?: 'asc' | 'desc';
  /** Only the websites of this reseller's accounts (the reseller pages); absent: every website (the admin's). */
  reseller?: string;
}

export interface WebsiteListRow {
  domain: string;
  account: string;
  desiredStatus: DesiredStatus;
  pausedBy: PausedBy | null;
  providerStatus: string | null;
  state: 'active' | 'removed';
  /** Hits this period as of the last enforcement pass. */
  usage: number;
  /** The website's own hit limit; null: none (the account's aggregate may still apply). */
  limit: number | null;
  accountUsage: number;
  accountLimit: number | null;
  level: QuotaLevel;
  updatedAt: number;
  /** Null while the provider has not accepted it (setting up, or refused: then `provisioningFailure` says why). */
  provisionedAt: number | null;
  provisioningFailure: ProvisioningFailure | null;
}

/** One website with its quota as the last enforcement pass saw it: the admin's website page. */
export interface WebsiteQuotaRow extends WebsiteListRow {
  /** The period the usage counts in; null: no enforcement pass has looked at it yet. */
  periodStart: number | null;
  periodEnd: number | null;
  warningPercent: number | null;
  /** When the quota snapshot last changed. */
  quotaUpdatedAt: number;
}

export interface AccountListRow {
  account: string;
  email: string | null;
  plan: string | null;
  state: 'active' | 'suspended' | 'deleted';
  /** Active websites. */
  websites: number;
  /** Hits of the account this period as of the last enforcement pass; null: not computed yet. */
  usage: number | null;
  /** The account's aggregate hit limit; null: none. */
  limit: number | null;
  periodStart: number | null;
  periodEnd: number | null;
  createdAt: number;
}

export interface RunSummary {
  id: number;
  name: string;
  startedAt: number;
  finishedAt: number | null;
  status: JobRun['status'];
  websitesRead: number | null;
  websitesFailed: number | null;
  /** finishedAt - startedAt; null while running. */
  durationMs: number | null;
  /** The run's details as stored (JSON text: counts, or the error of a failed run). */
  details: string | null;
}

export interface Overview {
  websites: {
    active: number;
    removed: number;
    /** Active websites by the status the provider last showed ('unknown': never read). */
    byProviderStatus: Record<string, number>;
    byDesiredStatus: Record<string, number>;
    byPausedBy: Record<string, number>;
  };
  accountsByState: Record<string, number>;
  jobsByState: Record<JobState, number>;
  deadJobs: number;
  lastSync: RunSummary | null;
  lastEnforce: RunSummary | null;
  /** Enforcement actions since midnight UTC, by action. */
  actionsToday: Record<string, number>;
  /**
   * When the provider last answered: the newest stats sample (one index lookup: samples are
   * keyed by time first; a sample exists only for a read that succeeded), or the last usable
   * answer of any other call (recordProviderAnswer), whichever is later. Null: never.
   */
  providerReachedAt: number | null;
}

export interface JobListRow {
  id: number;
  kind: string;
  state: JobState;
  account: string | null;
  domain: string | null;
  /** The domain named in the job's payload: account-wide jobs (a panel's domain.added) carry theirs only there. */
  payloadDomain: string | null;
  attempts: number;
  maxAttempts: number;
  runAt: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface StatusChange {
  id: number;
  at: number;
  domain: string;
  account: string;
  desiredStatus: { before: string | null; after: string | null };
  pausedBy: { before: string | null; after: string | null };
  providerStatus: { before: string | null; after: string | null };
}

export interface WebsiteHistory {
  jobs: JobListRow[];
  statusChanges: StatusChange[];
  actions: EnforcementAction[];
}

export interface EnforcementLogFilter {
  account?: string;
  domain?: string;
  action?: EnforcementAction['action'];
  /** Only the actions on this reseller's accounts (the reseller pages); absent: all (the admin's). */
  reseller?: string;
}

/** A reseller's accounts, as a term: its accounts come from the accounts_reseller index, the rows then from each table's account index. */
const OF_RESELLER = 'account IN (SELECT account FROM accounts WHERE reseller = @reseller)';

/** The end of a prefix range: every string starting with `prefix` sorts below it (BINARY collation). */
const prefixEnd = (prefix: string) => `${prefix}\u{10ffff}`;

const counted = (rows: { key: string | null; n: number }[], nullKey = 'none') =>
  Object.fromEntries(rows.map((row) => [row.key ?? nullKey, row.n]));

/** What a website's state in words needs beside its statuses (core/website-state.ts): whether the provider accepted it, or why not. */
const PROVISIONING_COLUMNS = 'w.provisioned_at, w.provisioning_error_code, w.provisioning_error, w.provisioning_failed_at';

interface WebsiteRow {
  domain: string;
  account: string;
  desired_status: DesiredStatus;
  paused_by: PausedBy | null;
  provider_status: string | null;
  state: 'active' | 'removed';
  updated_at: number;
  usage: number;
  website_limit: number | null;
  account_usage: number;
  account_limit: number | null;
  level: QuotaLevel;
  provisioned_at: number | null;
  provisioning_error_code: string | null;
  provisioning_error: string | null;
  provisioning_failed_at: number | null;
}

const toWebsiteRow = (row: WebsiteRow): WebsiteListRow => ({
  domain: row.domain,
  account: row.account,
  desiredStatus: row.desired_status,
  pausedBy: row.paused_by,
  providerStatus: row.provider_status,
  state: row.state,
  usage: row.usage,
  limit: row.website_limit,
  accountUsage: row.account_usage,
  accountLimit: row.account_limit,
  level: row.level,
  updatedAt: row.updated_at,
  provisionedAt: row.provisioned_at,
  provisioningFailure:
    row.provisioning_error_code === null
      ? null
      : { code: row.provisioning_error_code, reason: row.provisioning_error ?? '', at: row.provisioning_failed_at ?? row.updated_at },
});

// Each sort ends in a unique key its index carries, so pages never overlap or skip rows.
const WEBSITE_ORDER: Record<WebsiteSort, string[]> = {
  domain: ['w.domain'],
  account: ['w.account', 'w.domain'],
  usage: ['q.usage', 'q.domain'],
  status: ['w.provider_status', 'w.state', 'w.domain'],
  updated: ['w.updated_at', 'w.rowid'],
};

const QUOTA_LEVELS: Record<QuotaFilter, string> = {
  near: "q.level = 'near'",
  over: "q.level = 'over'",
  near_or_over: "q.level IN ('near', 'over')",
};

/**
 * A website search as SQL pieces. `byIndex` terms are written `{+}column = @x`: the `+` is
 * filled in to stop SQLite reading that term from an index when the list is better read in
 * sort order (see `sortDriven`). `counts`: the same filter over website_counts, when it
 * only names columns kept there.
 */
interface WebsiteFilter {
  terms: string[];
  /** The query listing the domains that match q, when q is the only filter: counted without reading websites. */
  qOnly: string | null;
  params: Record<string, string>;
  quota: boolean;
  /** A reseller's websites only: read from their accounts' websites first, the quota joined to each (never the whole quota table). */
  scoped: boolean;
  counts: string[] | null;
}

function websiteFilter(search: WebsiteSearch): WebsiteFilter {
  const terms: string[] = [];
  const counts: string[] = [];
  const params: Record<string, string> = {};
  const q = search.q?.trim().toLowerCase();
  let matching: string | null = null;
  // The domains matching q come from covering indexes (domain; account, domain) and only they
  // are read from the table: an OR of two ranges would otherwise look every match up.
  if (q && search.reseller !== undefined) {
    // A reseller's few thousand websites at most: q is tested on each of theirs, rather than
    // every match of the fleet listed first (a common prefix matches a tenth of 100,000).
    terms.push(
      search.match === 'contains'
        ? '(instr(w.domain, @q) > 0 OR instr(w.account, @q) > 0)'
        : '((w.domain >= @lo AND w.domain < @hi) OR (w.account >= @lo AND w.account < @hi))',
    );
    Object.assign(params, search.match === 'contains' ? { q } : { lo: q, hi: prefixEnd(q) });
  } else if (q && search.match === 'contains') {
    matching = 'SELECT domain FROM websites INDEXED BY websites_account WHERE instr(domain, @q) > 0 OR instr(account, @q) > 0';
    params.q = q;
  } else if (q) {
    matching = `SELECT domain FROM websites WHERE domain >= @lo AND domain < @hi
      UNION SELECT domain FROM websites INDEXED BY websites_account WHERE account >= @lo AND account < @hi`;
    Object.assign(params, { lo: q, hi: prefixEnd(q) });
  }
  if (matching) terms.push(`w.domain IN (${matching})`);
  if (search.account !== undefined) {
    terms.push('w.account = @account');
    params.account = search.account.trim().toLowerCase();
  }
  if (search.state === 'removed') {
    terms.push("{+}w.state = 'removed'");
    counts.push("state = 'removed'");
  } else if (search.state) {
    terms.push("{+}w.provider_status = @state AND w.state = 'active'");
    counts.push("provider_status = @state AND state = 'active'");
    params.state = search.state;
  }
  if (search.pausedBy) {
    terms.push('{+}w.paused_by = @pausedBy');
    counts.push('paused_by = @pausedBy');
    params.pausedBy = search.pausedBy;
  }
  if (search.quota) terms.push(QUOTA_LEVELS[search.quota]);
  if (search.reseller !== undefined) {
    terms.push(`w.${OF_RESELLER}`);
    params.reseller = search.reseller;
  }
  const qOnly = matching && terms.length === 1 ? matching : null;
  return {
    terms,
    qOnly,
    params,
    quota: search.quota !== undefined,
    scoped: search.reseller !== undefined,
    // website_counts has no owner: a reseller's websites are counted from their accounts' index ranges.
    counts: q || search.quota || search.account !== undefined || search.reseller !== undefined ? null : counts,
  };
}

/**
 * Whether to read the list in sort order, skipping rows that fail the filter, rather than
 * read every match and sort them: reading in order visits about (offset + page) / share rows,
 * sorting visits every match. Known only when the total comes from website_counts.
 */
function sortDriven(total: number | null, all: number, window: { offset: number; pageSize: number }): boolean {
  if (total === null || all === 0) return false;
  const share = total / all;
  return share > 0 && (window.offset + window.pageSize) / share < total;
}

const where = (terms: string[], plus: string) => (terms.length ? `WHERE ${terms.join(' AND ').replaceAll('{+}', plus)}` : '');

export function createAdminViewsRepo(db: Db) {
  // Search statements depend on the filters given: prepared on first use, then kept.
  const prepared = new Map<string, ReturnType<Db['prepare']>>();
  const statement = (sql: string) => {
    let found = prepared.get(sql);
    if (!found) {
      found = db.prepare(sql);
      prepared.set(sql, found);
    }
    return found;
  };
  const s = overviewStatements(db);

  /** A page of a table's rows, newest (highest id) first, with the filtered total. */
  function newestFirst<T>(
    table: string,
    filter: { where: string; params: Record<string, string> },
    request: PageRequest,
    map: (row: Record<string, unknown>) => T,
    knownTotal?: number,
  ): Page<T> {
    const window = pageWindow(request);
    const rows = statement(`SELECT * FROM ${table} ${filter.where} ORDER BY id DESC LIMIT @limit OFFSET @offset`).all({
      ...filter.params,
      limit: window.pageSize,
      offset: window.offset,
    }) as Record<string, unknown>[];
    const total = knownTotal ?? (statement(`SELECT COUNT(*) AS n FROM ${table} ${filter.where}`).get(filter.params) as { n: number }).n;
    return pageOf(rows.map(map), total, window);
  }

  const countWebsites = (filter: WebsiteFilter): number => {
    if (filter.counts) {
      const sql = `SELECT COALESCE(SUM(n), 0) AS n FROM website_counts ${where(filter.counts, '')}`;
      return (statement(sql).get(filter.params) as { n: number }).n;
    }
    if (filter.qOnly) return (statement(`SELECT COUNT(*) AS n FROM (${filter.qOnly})`).get(filter.params) as { n: number }).n;
    const from = filter.quota
      ? filter.scoped
        ? 'websites w CROSS JOIN website_quota q ON q.domain = w.domain'
        : 'website_quota q CROSS JOIN websites w ON w.domain = q.domain'
      : 'websites w';
    return (statement(`SELECT COUNT(*) AS n FROM ${from} ${where(filter.terms, '')}`).get(filter.params) as { n: number }).n;
  };

  function searchWebsites(search: WebsiteSearch = {}): Page<WebsiteListRow> {
    const window = pageWindow(search);
    const filter = websiteFilter(search);
    const total = countWebsites(filter);
    const sort = search.sort ?? 'domain';
    const dir = search.dir === 'desc' ? 'DESC' : 'ASC';
    const inOrder = sortDriven(filter.counts ? total : null, countWebsites(websiteFilter({})), window);
    // Sorted by status, the status filter's index is the sort's: it must stay usable.
    // Every website has its one website_quota row (a trigger makes it), so the join is inner
    // and its order chosen here: from website_quota when its level or usage leads.
    const quotaFirst = (filter.quota && !filter.scoped) || (sort === 'usage' && inOrder);
    const from = quotaFirst
      ? 'website_quota q CROSS JOIN websites w ON w.domain = q.domain'
      : 'websites w CROSS JOIN website_quota q ON q.domain = w.domain';
    const order = WEBSITE_ORDER[sort].map((column) => `${column} ${dir}`).join(', ');
    const rows = statement(
      `SELECT w.domain, w.account, w.desired_status, w.paused_by, w.provider_status, w.state, w.updated_at, ${PROVISIONING_COLUMNS},
         q.usage, q.website_limit, q.account_usage, q.account_limit, q.level
       FROM ${from} ${where(filter.terms, inOrder && sort !== 'status' ? '+' : '')} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
    ).all({ ...filter.params, limit: window.pageSize, offset: window.offset }) as WebsiteRow[];
    return pageOf(rows.map(toWebsiteRow), total, window);
  }

  return {
    overview: (now: number): Overview => readOverview(s, now),
    searchWebsites,
    /** The accounts whose name starts with q; with `reseller`, that reseller's only. */
    accounts(request: PageRequest & { q?: string; reseller?: string } = {}): Page<AccountListRow> {
      const window = pageWindow(request);
      const q = request.q?.trim().toLowerCase() ?? '';
      const range = { lo: q, hi: prefixEnd(q) };
      if (request.reseller !== undefined) {
        const scoped = { ...range, reseller: request.reseller };
        const rows = s.resellerAccountsPage.all({ ...scoped, limit: window.pageSize, offset: window.offset }).map(toAccountRow);
        return pageOf(rows, s.resellerAccountsCount.get(scoped)?.n ?? 0, window);
      }
      const rows = s.accountsPage.all({ ...range, limit: window.pageSize, offset: window.offset }).map(toAccountRow);
      return pageOf(rows, s.accountsCount.get(range)?.n ?? 0, window);
    },
    /** The reseller who owns an account: null for the host's own, undefined when the plugin does not know the account. */
    resellerOf(account: string): string | null | undefined {
      const row = s.accountReseller.get(account);
      return row ? row.reseller : undefined;
    },
    /** One website (active or removed) with its quota snapshot; null when the plugin never knew it. */
    website(domain: string): WebsiteQuotaRow | null {
      const row = s.websiteWithQuota.get(domain) as (WebsiteRow & Record<string, number | null>) | undefined;
      if (!row) return null;
      return {
        ...toWebsiteRow(row),
        periodStart: row.period_start ?? null,
        periodEnd: row.period_end ?? null,
        warningPercent: row.warning_percent ?? null,
        quotaUpdatedAt: row.quota_updated_at as number,
      };
    },
    websiteHistory(domain: string, limit = 50): WebsiteHistory {
      return {
        jobs: s.jobsOfDomain.all(domain, limit).map(toJobRow),
        statusChanges: s.changesOfDomain.all(domain, limit).map(toStatusChange),
        actions: s.actionsOfDomain.all(domain, limit).map(toAction),
      };
    },
    jobs(request: PageRequest & { state?: JobState; kind?: string } = {}): Page<JobListRow> {
      const filter = equalities({ state: request.state, kind: request.kind });
      const total = statement(`SELECT COALESCE(SUM(n), 0) AS n FROM job_counts ${filter.where}`).get(filter.params) as { n: number };
      return newestFirst('jobs', filter, request, toJobRow, total.n);
    },
    syncRuns(request: PageRequest & { name?: string } = {}): Page<RunSummary> {
      return newestFirst('job_runs', equalities({ name: request.name }), request, toRun);
    },
    enforcementLog(request: PageRequest & EnforcementLogFilter = {}): Page<EnforcementAction> {
      return newestFirst('enforcement_actions', logFilter(request), request, toAction);
    },
    /**
     * Every action matching the filter, oldest first, for a streaming export. Read in chunks
     * by id rather than through one open `.iterate()`: while a better-sqlite3 iterator is open
     * its connection refuses every write, and an export paced by a slow download would stall
     * the server's writes (hooks, sessions, jobs) on that connection for as long.
     */
    *enforcementLogRows(filter: EnforcementLogFilter = {}): Generator<EnforcementAction> {
      const { where, params } = logFilter(filter);
      const chunks = statement(
        `SELECT * FROM enforcement_actions ${where ? `${where} AND` : 'WHERE'} id > @after ORDER BY id LIMIT ${EXPORT_CHUNK}`,
      );
      let after = 0;
      for (;;) {
        const chunk = chunks.all({ ...params, after }) as Record<string, unknown>[];
        for (const row of chunk) yield toAction(row);
        if (chunk.length < EXPORT_CHUNK) return;
        after = chunk[chunk.length - 1]?.id as number;
      }
    },
  };
}

export type AdminViewsRepo = ReturnType<typeof createAdminViewsRepo>;

/** `column = @column` for each filter given: equality the planner can answer from an index. */
function equalities(filter: Record<string, string | null | undefined>): { where: string; params: Record<string, string> } {
  const params = Object.fromEntries(Object.entries(filter).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const keys = Object.keys(params);
  return { where: keys.length ? `WHERE ${keys.map((key) => `${key} = @${key}`).join(' AND ')}` : '', params };
}

function logFilter(filter: EnforcementLogFilter): { where: string; params: Record<string, string> } {
  const found = equalities({ account: filter.account, domain: filter.domain, action: filter.action });
  if (filter.reseller === undefined) return found;
  return {
    where: found.where ? `${found.where} AND ${OF_RESELLER}` : `WHERE ${OF_RESELLER}`,
    params: { ...found.params, reseller: filter.reseller },
  };
}

/** A page of accounts by name, each with its active websites and its usage in its latest period. */
const ACCOUNTS_PAGE_SQL = `SELECT a.account, a.email, a.plan, a.state, a.created_at,
         (SELECT COUNT(*) FROM websites w WHERE w.account = a.account AND w.state = 'active') AS websites,
         q.account_usage, q.account_limit, q.period_start, q.period_end
       FROM accounts a
       LEFT JOIN website_quota q ON q.domain = (SELECT domain FROM website_quota WHERE account = a.account AND period_start IS NOT NULL
         ORDER BY period_start DESC, updated_at DESC LIMIT 1)
       WHERE a.account >= @lo AND a.account < @hi ORDER BY a.account LIMIT @limit OFFSET @offset`;

function overviewStatements(db: Db) {
  type Count = { key: string | null; n: number };
  type Row = Record<string, unknown>;
  return {
    websiteCounts: db.prepare<[], { state: string; provider_status: string; desired_status: string; paused_by: string; n: number }>(
      'SELECT state, provider_status, desired_status, paused_by, n FROM website_counts WHERE n > 0',
    ),
    accountsByState: db.prepare<[], Count>('SELECT state AS key, COUNT(*) AS n FROM accounts GROUP BY state'),
    jobsByState: db.prepare<[], Count>('SELECT state AS key, SUM(n) AS n FROM job_counts GROUP BY state'),
    lastRun: db.prepare<[string], Row>('SELECT * FROM job_runs WHERE name = ? ORDER BY started_at DESC, id DESC LIMIT 1'),
    actionsSince: db.prepare<[number], Count>('SELECT action AS key, COUNT(*) AS n FROM enforcement_actions WHERE at >= ? GROUP BY action'),
    providerReachedAt: db.prepare<[string], { at: number | null }>(
      `SELECT MAX(at) AS at FROM (
         SELECT MAX(taken_at) AS at FROM stats_samples
         UNION ALL SELECT CAST(value AS INTEGER) FROM kv WHERE key = ?)`,
    ),
    accountsPage: db.prepare<[{ lo: string; hi: string; limit: number; offset: number }], Row>(ACCOUNTS_PAGE_SQL),
    accountsCount: db.prepare<[{ lo: string; hi: string }], { n: number }>(
      'SELECT COUNT(*) AS n FROM accounts WHERE account >= @lo AND account < @hi',
    ),
    // The page's names first (from accounts_reseller), then each one's figures: never the figures of all of theirs.
    resellerAccountsPage: db.prepare<[{ lo: string; hi: string; reseller: string; limit: number; offset: number }], Row>(
      ACCOUNTS_PAGE_SQL.replace(
        'FROM accounts a',
        `FROM (SELECT account FROM accounts WHERE reseller = @reseller AND account >= @lo AND account < @hi
           ORDER BY account LIMIT @limit OFFSET @offset) p CROSS JOIN accounts a ON a.account = p.account`,
      )
        .replace('WHERE a.account >= @lo AND a.account < @hi ', '')
        .replace(' LIMIT @limit OFFSET @offset', ''),
    ),
    resellerAccountsCount: db.prepare<[{ lo: string; hi: string; reseller: string }], { n: number }>(
      'SELECT COUNT(*) AS n FROM accounts WHERE reseller = @reseller AND account >= @lo AND account < @hi',
    ),
    accountReseller: db.prepare<[string], { reseller: string | null }>('SELECT reseller FROM accounts WHERE account = ?'),
    websiteWithQuota: db.prepare<[string], Row>(
      `SELECT w.domain, w.account, w.desired_status, w.paused_by, w.provider_status, w.state, w.updated_at, ${PROVISIONING_COLUMNS},
         q.usage, q.website_limit, q.account_usage, q.account_limit, q.level, q.period_start, q.period_end, q.warning_percent,
         q.updated_at AS quota_updated_at
       FROM websites w CROSS JOIN website_quota q ON q.domain = w.domain WHERE w.domain = ?`,
    ),
    jobsOfDomain: db.prepare<[string, number], Row>('SELECT * FROM jobs WHERE domain = ? ORDER BY id DESC LIMIT ?'),
    changesOfDomain: db.prepare<[string, number], Row>('SELECT * FROM website_status_changes WHERE domain = ? ORDER BY id DESC LIMIT ?'),
    actionsOfDomain: db.prepare<[string, number], Row>(
      'SELECT * FROM enforcement_actions WHERE domain = ? ORDER BY at DESC, id DESC LIMIT ?',
    ),
  };
}

type OverviewStatements = ReturnType<typeof overviewStatements>;

/** The overview's website figures, from website_counts ('' there stands for NULL). */
function websiteFigures(rows: { state: string; provider_status: string; desired_status: string; paused_by: string; n: number }[]) {
  const figures: Overview['websites'] = { active: 0, removed: 0, byProviderStatus: {}, byDesiredStatus: {}, byPausedBy: {} };
  const add = (tally: Record<string, number>, key: string, n: number) => void (tally[key] = (tally[key] ?? 0) + n);
  for (const row of rows) {
    if (row.state !== 'active') {
      figures.removed += row.n;
      continue;
    }
    figures.active += row.n;
    add(figures.byProviderStatus, row.provider_status || 'unknown', row.n);
    add(figures.byDesiredStatus, row.desired_status, row.n);
    if (row.paused_by) add(figures.byPausedBy, row.paused_by, row.n);
  }
  return figures;
}

function readOverview(s: OverviewStatements, now: number): Overview {
  const jobsByState = { pending: 0, running: 0, done: 0, dead: 0, ...counted(s.jobsByState.all()) } as Record<JobState, number>;
  const lastRun = (name: string) => {
    const row = s.lastRun.get(name);
    return row ? toRun(row) : null;
  };
  return {
    websites: websiteFigures(s.websiteCounts.all()),
    accountsByState: counted(s.accountsByState.all()),
    jobsByState,
    deadJobs: jobsByState.dead,
    lastSync: lastRun('sync-stats'),
    lastEnforce: lastRun('enforce'),
    actionsToday: counted(s.actionsSince.all(Math.floor(now / DAY_MS) * DAY_MS)),
    providerReachedAt: s.providerReachedAt.get(PROVIDER_ANSWERED_AT)?.at ?? null,
  };
}

const toRun = (row: Record<string, unknown>): RunSummary => {
  const startedAt = row.started_at as number;
  const finishedAt = row.finished_at as number | null;
  return {
    id: row.id as number,
    name: row.name as string,
    startedAt,
    finishedAt,
    status: row.status as JobRun['status'],
    websitesRead: row.websites_read as number | null,
    websitesFailed: row.websites_failed as number | null,
    durationMs: finishedAt === null ? null : finishedAt - startedAt,
    details: row.details as string | null,
  };
};

const toAccountRow = (row: Record<string, unknown>): AccountListRow => ({
  account: row.account as string,
  email: row.email as string | null,
  plan: row.plan as string | null,
  state: row.state as AccountListRow['state'],
  websites: row.websites as number,
  usage: row.account_usage as number | null,
  limit: row.account_limit as number | null,
  periodStart: row.period_start as number | null,
  periodEnd: row.period_end as number | null,
  createdAt: row.created_at as number,
});

function payloadDomain(payload: unknown): string | null {
  if (typeof payload !== 'string') return null;
  try {
    const domain = (JSON.parse(payload) as { domain?: unknown } | null)?.domain;
    return typeof domain === 'string' ? domain : null;
  } catch {
    return null;
  }
}

const toJobRow = (row: Record<string, unknown>): JobListRow => ({
  id: row.id as number,
  kind: row.kind as string,
  state: row.state as JobState,
  account: row.account as string | null,
  domain: row.domain as string | null,
  payloadDomain: payloadDomain(row.payload),
  attempts: row.attempts as number,
  maxAttempts: row.max_attempts as number,
  runAt: row.run_at as number,
  lastError: row.last_error as string | null,
  createdAt: row.created_at as number,
  updatedAt: row.updated_at as number,
  finishedAt: row.finished_at as number | null,
});

const toStatusChange = (row: Record<string, unknown>): StatusChange => {
  const pair = (column: string) => ({ before: row[`${column}_before`] as string | null, after: row[`${column}_after`] as string | null });
  return {
    id: row.id as number,
    at: row.at as number,
    domain: row.domain as string,
    account: row.account as string,
    desiredStatus: pair('desired_status'),
    pausedBy: pair('paused_by'),
    providerStatus: pair('provider_status'),
  };
};
