/**
 * The world of the views bench and of the admin read-model tests, straight into a migrated
 * plugin database in one transaction: `n` websites over n/3 accounts, with every state the
 * admin pages show, deterministic in i (website i is `<word>-i.views.example` of account
 * `customer{i % accounts}`):
 *
 *   - state: 2% removed (i % 50 === 7), the rest active;
 *   - provider status: 5% paused (i % 20 === 3, paused by customer, admin, enforcement or
 *     external in turn), 5% pending_dns (i % 20 === 5), 2% setup (i % 50 === 9),
 *     2% error (i % 50 === 13), the rest online;
 *   - quota (per-website limit `limit`): 1% over (i % 100 === 37), 3% near (i % 100 in
 *     {11, 41, 71}), 2% exempt (i % 50 === 19, level none), the rest ok;
 *   - two finished jobs per website, 1% of websites with a dead job and 1% with a pending one;
 *   - an enforcement action for every over and near website, and 0.1% resumes;
 *   - a sync-stats and an enforce run every 15 minutes over the last `days` days;
 *   - one statistics sample per active website, the newest at `now`.
 */
import { hashToken } from '../../src/core/identity.js';
import type { Db } from '../../src/db/open.js';

const WORDS = ['alpha', 'blog', 'cloud', 'delta', 'shop', 'news', 'mail', 'store', 'photo', 'travel'];
const DAY_MS = 86_400_000;
const PAUSERS = ['customer', 'admin', 'enforcement', 'external'] as const;

export const viewsDomainOf = (i: number) => `${WORDS[i % WORDS.length]}-${i}.views.example`;
export const viewsAccountOf = (i: number, accounts: number) => `customer${i % accounts}`;

export interface ViewsSeedOptions {
  n: number;
  /** Default max(1, round(n / 3)). */
  accounts?: number;
  /** Per-website hit limit. Default 10,000. */
  limit?: number;
  /** Default Date.now(). */
  now?: number;
  /** How far back runs, actions and changes go. Default 30. */
  days?: number;
}

export interface ViewsSeedSummary {
  websites: number;
  removed: number;
  accounts: number;
  byProviderStatus: Record<string, number>;
  levels: Record<'none' | 'ok' | 'near' | 'over', number>;
  jobs: number;
  deadJobs: number;
  actions: number;
  runs: number;
  periodStart: number;
  periodEnd: number;
}

export interface SeededWebsite {
  domain: string;
  account: string;
  removed: boolean;
  providerStatus: string;
  pausedBy: (typeof PAUSERS)[number] | null;
  level: 'none' | 'ok' | 'near' | 'over';
  usage: number;
}

/** Website i as the seed writes it. */
export function seededWebsite(i: number, accounts: number, limit: number): SeededWebsite {
  const removed = i % 50 === 7;
  const providerStatus =
    i % 20 === 3 ? 'paused' : i % 20 === 5 ? 'pending_dns' : i % 50 === 9 ? 'setup' : i % 50 === 13 ? 'error' : 'online';
  const pausedBy = providerStatus === 'paused' ? (PAUSERS[Math.floor(i / 20) % PAUSERS.length] ?? null) : null;
  const band = i % 100;
  const exempt = i % 50 === 19;
  const usage =
    band === 37 ? limit + (i % limit) : [11, 41, 71].includes(band) ? Math.floor(limit * 0.9) : (i * 7919) % Math.floor(limit / 2);
  const level = removed || exempt ? 'none' : band === 37 ? 'over' : [11, 41, 71].includes(band) ? 'near' : 'ok';
  return { domain: viewsDomainOf(i), account: viewsAccountOf(i, accounts), removed, providerStatus, pausedBy, level, usage };
}

function prepareInserts(db: Db) {
  return {
    account: db.prepare(
      `INSERT INTO accounts (account, email, plan, provider_user_id, state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    // Written before its website, so the website's insert trigger finds it and keeps it.
    quota: db.prepare(
      `INSERT INTO website_quota (domain, account, period_start, period_end, usage, website_limit, account_usage, account_limit,
         warning_percent, level, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
    ),
    website: db.prepare(
      `INSERT INTO websites (domain, account, subdomains, origin_ips, state, desired_status, paused_by, provider_status,
         provider_checked_at, callback_token_hash, created_at, updated_at)
       VALUES (?, ?, '["www"]', '["203.0.113.10"]', ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    usage: db.prepare('INSERT INTO usage (domain, period_start, account, hits, updated_at) VALUES (?, ?, ?, ?, ?)'),
    sample: db.prepare('INSERT INTO stats_samples (taken_at, domain, total, permitted, blocked, mitigated) VALUES (?, ?, ?, ?, 0, 0)'),
    job: db.prepare(
      `INSERT INTO jobs (kind, account, domain, payload, state, attempts, max_attempts, run_at, last_error, created_at, updated_at, finished_at)
       VALUES (?, ?, ?, '{}', ?, ?, 8, ?, ?, ?, ?, ?)`,
    ),
    action: db.prepare(
      `INSERT INTO enforcement_actions (at, account, domain, action, actor, reason, usage, limit_value, period_start, period_end,
         status_before, status_after, action_key) VALUES (?, ?, ?, ?, 'enforcement', ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    run: db.prepare(
      `INSERT INTO job_runs (name, started_at, finished_at, status, websites_read, websites_failed, details)
       VALUES (?, ?, ?, 'ok', ?, ?, '{}')`,
    ),
  };
}

type Inserts = ReturnType<typeof prepareInserts>;

/** Website i and its usage, quota, sample, jobs and actions; returns what it wrote. */
function seedWebsite(ins: Inserts, i: number, o: Required<ViewsSeedOptions> & { periodStart: number; periodEnd: number }) {
  const w = seededWebsite(i, o.accounts, o.limit);
  const at = o.now - ((i * 104_729) % (o.days * DAY_MS));
  const desired = w.providerStatus === 'paused' ? 'paused' : w.providerStatus === 'setup' ? 'setup' : 'online';
  const exempt = i % 50 === 19;
  ins.quota.run(w.domain, w.account, o.periodStart, o.periodEnd, w.usage, exempt ? null : o.limit, w.usage, 80, w.level, at);
  ins.website.run(
    w.domain,
    w.account,
    w.removed ? 'removed' : 'active',
    desired,
    w.pausedBy,
    w.providerStatus,
    at,
    hashToken(w.domain),
    at,
    at,
  );
  if (w.usage > 0) ins.usage.run(w.domain, o.periodStart, w.account, w.usage, at);
  if (!w.removed) ins.sample.run(o.now - (i % 3) * 900_000, w.domain, w.usage, w.usage);
  ins.job.run('website.create', w.account, w.domain, 'done', 1, at, null, at, at, at);
  ins.job.run('website.refresh', w.account, w.domain, 'done', 1, at, null, at, at, at);
  let jobs = 2;
  const dead = i % 100 === 23;
  if (dead) ins.job.run('website.update', w.account, w.domain, 'dead', 8, at, 'provider answered 500: internal error', at, at, at);
  if (i % 100 === 61) ins.job.run('website.refresh', w.account, w.domain, 'pending', 0, o.now, null, at, at, null);
  jobs += Number(dead) + Number(i % 100 === 61);
  let actions = 0;
  if (w.level === 'over' || w.level === 'near') {
    const [action, reason] = w.level === 'over' ? ['pause', 'website_limit'] : ['warning', 'website_warning'];
    const before = w.level === 'over' ? 'online' : desired;
    const after = w.level === 'over' ? 'paused' : desired;
    ins.action.run(
      at,
      w.account,
      w.domain,
      action,
      reason,
      w.usage,
      o.limit,
      o.periodStart,
      o.periodEnd,
      before,
      after,
      `${action}:${w.domain}`,
    );
    actions++;
  }
  if (i % 1000 === 500) {
    ins.action.run(
      at,
      w.account,
      w.domain,
      'resume',
      'limit_raised',
      w.usage,
      o.limit,
      o.periodStart,
      o.periodEnd,
      'paused',
      'online',
      `resume:${w.domain}`,
    );
    actions++;
  }
  return { w, jobs, dead, actions };
}

/**
 * Fills a freshly migrated plugin database (no accounts or websites yet) in one transaction
 * with prepared statements: 100,000 websites take a few seconds.
 */
export function seedViewsDatabase(db: Db, options: ViewsSeedOptions): ViewsSeedSummary {
  const now = options.now ?? Date.now();
  const accounts = options.accounts ?? Math.max(1, Math.round(options.n / 3));
  const periodStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
  const periodEnd = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1, 1);
  const o = { n: options.n, accounts, limit: options.limit ?? 10_000, now, days: options.days ?? 30, periodStart, periodEnd };
  const ins = prepareInserts(db);
  const summary: ViewsSeedSummary = {
    ...{ websites: o.n, removed: 0, accounts, byProviderStatus: {}, jobs: 0, deadJobs: 0, actions: 0, runs: 0, periodStart, periodEnd },
    levels: { none: 0, ok: 0, near: 0, over: 0 },
  };
  db.transaction(() => {
    for (let a = 0; a < accounts; a++) {
      const state = a % 40 === 3 ? 'suspended' : a % 100 === 7 ? 'deleted' : 'active';
      ins.account.run(
        `customer${a}`,
        `owner${a}@mail.example`,
        a % 4 === 0 ? 'pro' : 'basic',
        `customer${a}@panel.example`,
        state,
        now,
        now,
      );
    }
    for (let i = 0; i < o.n; i++) {
      const { w, jobs, dead, actions } = seedWebsite(ins, i, o);
      summary.removed += Number(w.removed);
      if (!w.removed) summary.byProviderStatus[w.providerStatus] = (summary.byProviderStatus[w.providerStatus] ?? 0) + 1;
      summary.levels[w.level]++;
      summary.jobs += jobs;
      summary.deadJobs += Number(dead);
      summary.actions += actions;
    }
    for (let at = now - o.days * DAY_MS; at <= now; at += 900_000) {
      ins.run.run('sync-stats', at, at + 40_000, o.n - summary.removed, 0);
      ins.run.run('enforce', at + 40_000, at + 45_000, null, null);
      summary.runs += 2;
    }
  })();
  return summary;
}
