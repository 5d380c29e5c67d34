import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededWebsite, seedViewsDatabase, viewsDomainOf } from '../../bench/lib/views-seed.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { createAdminViewsRepo } from '../../src/db/admin-views.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');

async function withDb(fn: (db: Db) => void | Promise<void>) {
  await withTempDir(async (dir) => {
    const db = openDatabase(join(dir, 'plugin.sqlite'));
    try {
      migrate(db, paths.migrations);
      await fn(db);
    } finally {
      db.close();
    }
  });
}

const website = (domain: string, account = 'alice') => ({
  domain,
  account,
  subdomains: ['www'],
  originIps: ['203.0.113.10'],
  state: 'active' as const,
  desiredStatus: 'online' as const,
  pausedBy: null,
  providerStatus: null,
  providerCheckedAt: null,
  callbackTokenHash: `hash-${domain}`,
});

function withAccount(db: Db, clock: { now: number }) {
  const accounts = createAccountsRepo(db, () => clock.now);
  accounts.saveAccount({
    account: 'alice',
    email: null,
    plan: null,
    providerUserId: 'alice@panel.example',
    providerApiKey: null,
    state: 'active',
  });
  return accounts;
}

describe('website status history (triggers)', () => {
  it('records the save, a pause and each provider status change, and nothing for a re-check', () =>
    withDb((db) => {
      const clock = { now: NOW };
      const accounts = withAccount(db, clock);
      const views = createAdminViewsRepo(db);
      accounts.saveWebsite(website('a.example'));
      clock.now += 1000;
      accounts.setProviderStatus('a.example', 'pending_dns');
      clock.now += 1000;
      accounts.setProviderStatus('a.example', 'pending_dns');
      clock.now += 1000;
      accounts.setProviderStatus('a.example', 'online');
      clock.now += 1000;
      const stored = accounts.getWebsite('a.example')!;
      accounts.saveWebsite({ ...stored, desiredStatus: 'paused', pausedBy: 'customer' });
      clock.now += 1000;
      accounts.setProviderStatus('a.example', 'paused');

      const changes = views.websiteHistory('a.example', 10).statusChanges.reverse();
      expect(changes.map((c) => [c.at - NOW, c.desiredStatus, c.pausedBy, c.providerStatus])).toEqual([
        [0, { before: null, after: 'online' }, { before: null, after: null }, { before: null, after: null }],
        [1000, { before: 'online', after: 'online' }, { before: null, after: null }, { before: null, after: 'pending_dns' }],
        [3000, { before: 'online', after: 'online' }, { before: null, after: null }, { before: 'pending_dns', after: 'online' }],
        [4000, { before: 'online', after: 'paused' }, { before: null, after: 'customer' }, { before: 'online', after: 'online' }],
        [5000, { before: 'paused', after: 'paused' }, { before: 'customer', after: 'customer' }, { before: 'online', after: 'paused' }],
      ]);
      expect(changes.every((c) => c.domain === 'a.example' && c.account === 'alice')).toBe(true);
      expect(accounts.getWebsite('a.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'customer', providerStatus: 'paused' });
    }));

  it('keeps website and job counts equal to the tables through inserts, updates and removal', () =>
    withDb((db) => {
      const clock = { now: NOW };
      const accounts = withAccount(db, clock);
      const views = createAdminViewsRepo(db);
      for (const domain of ['a.example', 'b.example', 'c.example']) accounts.saveWebsite(website(domain));
      accounts.setProviderStatus('a.example', 'online');
      accounts.setProviderStatus('b.example', 'paused');
      accounts.saveWebsite({ ...accounts.getWebsite('c.example')!, state: 'removed', desiredStatus: 'paused', pausedBy: 'domain_removed' });
      const overview = views.overview(NOW);
      expect(overview.websites).toEqual({
        active: 2,
        removed: 1,
        byProviderStatus: { online: 1, paused: 1 },
        byDesiredStatus: { online: 1, paused: 1 },
        byPausedBy: { external: 1 },
      });
      expect(views.searchWebsites({ state: 'removed' }).total).toBe(1);
      expect(views.searchWebsites({ pausedBy: 'external' }).rows.map((r) => r.domain)).toEqual(['b.example']);
      // A removed website no longer counts as near or over its limit.
      expect(db.prepare("SELECT level, period_start FROM website_quota WHERE domain = 'c.example'").get()).toEqual({
        level: 'none',
        period_start: null,
      });
    }));
});

describe('indexes', () => {
  it("reads a website's newest jobs from an index, not the whole queue", () =>
    withDb((db) => {
      const plan = db.prepare('EXPLAIN QUERY PLAN SELECT * FROM jobs WHERE domain = ? ORDER BY id DESC LIMIT 20').all('a.example') as {
        detail: string;
      }[];
      expect(plan.map((row) => row.detail)).toEqual(['SEARCH jobs USING INDEX jobs_domain (domain=?)']);
    }));
});

describe('quota snapshots', () => {
  it('writes a row only when a value changed', () =>
    withDb((db) => {
      const clock = { now: NOW };
      const accounts = withAccount(db, clock);
      const stats = createStatisticsRepo(db, () => clock.now);
      accounts.saveWebsite(website('a.example'));
      const quota = {
        domain: 'a.example',
        account: 'alice',
        periodStart: 1,
        periodEnd: 2,
        usage: 900,
        websiteLimit: 1000,
        accountUsage: 900,
        accountLimit: null,
        warningPercent: 80,
        level: 'near' as const,
      };
      expect(stats.saveQuotas([quota], NOW)).toBe(1);
      expect(stats.saveQuotas([quota], NOW + 1)).toBe(0);
      expect(stats.saveQuotas([{ ...quota, usage: 1000, accountUsage: 1000, level: 'over' }], NOW + 2)).toBe(1);
      expect(db.prepare('SELECT usage, level, updated_at FROM website_quota').get()).toEqual({
        usage: 1000,
        level: 'over',
        updated_at: NOW + 2,
      });
    }));
});

describe('admin views over a seeded fleet', () => {
  const N = 600;
  const expected = (predicate: (w: ReturnType<typeof seededWebsite>) => boolean) =>
    Array.from({ length: N }, (_, i) => seededWebsite(i, 200, 10_000)).filter(predicate);

  it('overview, search, accounts, jobs, runs and the log agree with what was seeded', () =>
    withDb((db) => {
      const summary = seedViewsDatabase(db, { n: N, now: NOW, days: 2 });
      const views = createAdminViewsRepo(db);
      const overview = views.overview(NOW);
      expect(overview.websites.active).toBe(N - summary.removed);
      expect(overview.websites.byProviderStatus).toEqual(summary.byProviderStatus);
      expect(overview.deadJobs).toBe(summary.deadJobs);
      expect(overview.jobsByState.done + overview.jobsByState.pending + overview.jobsByState.dead).toBe(summary.jobs);
      expect(overview.lastSync).toMatchObject({ name: 'sync-stats', status: 'ok', durationMs: 40_000 });
      expect(overview.providerReachedAt).toBe(NOW);
      expect(Object.values(overview.accountsByState).reduce((a, b) => a + b, 0)).toBe(200);

      const all = views.searchWebsites({ sort: 'domain', pageSize: 200, page: 2 });
      expect(all).toMatchObject({ total: N, page: 2, pages: 3, pageSize: 200 });
      const sortedDomains = expected(() => true)
        .map((w) => w.domain)
        .sort();
      expect(all.rows.map((r) => r.domain)).toEqual(sortedDomains.slice(200, 400));

      const over = views.searchWebsites({ quota: 'over', sort: 'usage', dir: 'desc', pageSize: 200 });
      const overExpected = expected((w) => w.level === 'over').sort((a, b) => b.usage - a.usage || (a.domain < b.domain ? 1 : -1));
      expect(over.total).toBe(overExpected.length);
      expect(over.rows.map((r) => [r.domain, r.usage, r.level])).toEqual(overExpected.map((w) => [w.domain, w.usage, 'over']));

      const shops = views.searchWebsites({ q: 'SHOP', state: 'online', sort: 'account', pageSize: 200 });
      const shopsExpected = expected((w) => w.domain.startsWith('shop') && !w.removed && w.providerStatus === 'online');
      expect(shops.total).toBe(shopsExpected.length);
      expect(shops.rows.map((r) => r.domain).sort()).toEqual(shopsExpected.map((w) => w.domain).sort());
      expect(views.searchWebsites({ q: 'customer7' }).total).toBe(expected((w) => w.account.startsWith('customer7')).length);
      expect(views.searchWebsites({ q: 'p-12', match: 'contains' }).total).toBe(expected((w) => w.domain.includes('p-12')).length);
      expect(views.searchWebsites({ pausedBy: 'admin', page: 1 }).total).toBe(expected((w) => w.pausedBy === 'admin' && !w.removed).length);

      const ofAccount = views.searchWebsites({ account: 'Customer7', sort: 'usage', dir: 'desc', pageSize: 200 });
      const ofAccountExpected = expected((w) => w.account === 'customer7');
      expect(ofAccount.total).toBe(ofAccountExpected.length);
      expect(ofAccount.rows.map((r) => r.domain).sort()).toEqual(ofAccountExpected.map((w) => w.domain).sort());
      expect(ofAccount.rows.map((r) => r.usage)).toEqual(ofAccountExpected.map((w) => w.usage).sort((a, b) => b - a));
      expect(views.searchWebsites({ account: 'customer7', state: 'online' }).total).toBe(
        ofAccountExpected.filter((w) => !w.removed && w.providerStatus === 'online').length,
      );

      const accounts = views.accounts({ q: 'customer1', pageSize: 5 });
      expect(accounts.total).toBe(111);
      expect(accounts.rows[0]).toMatchObject({ account: 'customer1', websites: 3, usage: expect.any(Number) });

      expect(views.jobs({ state: 'dead' }).rows.every((job) => job.state === 'dead' && job.lastError)).toBe(true);
      expect(views.jobs({ state: 'dead' }).total).toBe(summary.deadJobs);
      expect(views.syncRuns({ name: 'enforce', pageSize: 10 }).rows[0]).toMatchObject({ name: 'enforce', durationMs: 5000 });
      expect(views.enforcementLog({ action: 'pause' }).total).toBe(expected((w) => w.level === 'over').length);
      expect([...views.enforcementLogRows()]).toHaveLength(summary.actions);
      expect([...views.enforcementLogRows({ action: 'resume' })].every((a) => a.action === 'resume')).toBe(true);

      const overOne = seededWebsite(37, 200, 10_000);
      expect(views.website(overOne.domain)).toMatchObject({
        domain: overOne.domain,
        account: overOne.account,
        usage: overOne.usage,
        limit: 10_000,
        level: 'over',
        periodStart: summary.periodStart,
        periodEnd: summary.periodEnd,
        warningPercent: 80,
      });
      expect(views.website(viewsDomainOf(7))).toMatchObject({ state: 'removed', level: 'none' });
      expect(views.website('never.example')).toBeNull();

      const history = views.websiteHistory(viewsDomainOf(37));
      expect(history.jobs.map((job) => job.kind)).toEqual(['website.refresh', 'website.create']);
      expect(history.actions.map((a) => a.action)).toEqual(['pause']);
      expect(history.statusChanges).toHaveLength(1);
    }));

  it('reads the export in chunks: the connection stays writable between rows', () =>
    withDb((db) => {
      const stats = createStatisticsRepo(db, () => NOW);
      const action = { account: 'alice', domain: 'a.example', actor: 'enforcement', usage: 1, limitValue: 1, periodStart: 0, periodEnd: 1 };
      for (let i = 0; i < 1200; i++) {
        stats.recordAction({
          ...action,
          at: NOW + i,
          action: 'warning',
          reason: 'website_warning',
          statusBefore: null,
          statusAfter: null,
          actionKey: `k${i}`,
        });
      }
      const views = createAdminViewsRepo(db);
      const seen: number[] = [];
      for (const row of views.enforcementLogRows({ domain: 'a.example' })) {
        seen.push(row.at - NOW);
        db.prepare('INSERT OR REPLACE INTO kv (key, value, updated_at) VALUES (?, ?, ?)').run('export', String(row.id), NOW);
      }
      expect(seen).toEqual(Array.from({ length: 1200 }, (_, i) => i));
    }));
});

describe("a reseller's scope of the admin views", () => {
  const N = 600;
  const ACCOUNTS = 200;
  /** Accounts customer0..customer19 are res1's, customer20..customer29 res2's, the rest the host's. */
  const ownerOf = (account: string) => {
    const n = Number(account.replace('customer', ''));
    return n < 20 ? 'res1' : n < 30 ? 'res2' : null;
  };

  it("lists, counts and filters the reseller's websites, accounts and actions only, every filter as the admin's", () =>
    withDb((db) => {
      seedViewsDatabase(db, { n: N, now: NOW, days: 2 });
      for (let a = 0; a < 30; a++)
        db.prepare('UPDATE accounts SET reseller = ? WHERE account = ?').run(ownerOf(`customer${a}`), `customer${a}`);
      const views = createAdminViewsRepo(db);
      const seeded = Array.from({ length: N }, (_, i) => seededWebsite(i, ACCOUNTS, 10_000));
      const theirs = seeded.filter((w) => ownerOf(w.account) === 'res1');
      const all = views.searchWebsites({ reseller: 'res1', pageSize: 200 });
      expect(all.total).toBe(theirs.length);
      expect(all.rows.map((r) => r.domain)).toEqual(theirs.map((w) => w.domain).sort());
      // Each filter within the scope: the same rows as the admin's filter, of theirs only.
      for (const search of [
        { state: 'paused' },
        { quota: 'near_or_over' as const },
        { q: 'shop' },
        { q: '-1', match: 'contains' as const },
        { account: 'customer25' },
      ]) {
        const admin = views.searchWebsites({ ...search, pageSize: 200 });
        const scoped = views.searchWebsites({ ...search, reseller: 'res1', pageSize: 200 });
        const expectedRows = admin.rows.filter((r) => ownerOf(r.account) === 'res1').map((r) => r.domain);
        expect(scoped.rows.map((r) => r.domain)).toEqual(expectedRows);
        expect(scoped.total).toBe(expectedRows.length);
      }
      expect(views.searchWebsites({ account: 'customer25', reseller: 'res1' }).total).toBe(0);

      const accounts = views.accounts({ reseller: 'res2', pageSize: 200 });
      expect(accounts.rows.map((r) => r.account)).toEqual(Array.from({ length: 10 }, (_, i) => `customer${20 + i}`).sort());
      expect(views.accounts({ reseller: 'res2', q: 'customer2' }).total).toBe(10);
      expect(views.resellerOf('customer3')).toBe('res1');
      expect(views.resellerOf('customer99')).toBeNull();
      expect(views.resellerOf('nobody')).toBeUndefined();

      const log = views.enforcementLog({ reseller: 'res1', pageSize: 200 });
      expect(log.total).toBeGreaterThan(0);
      expect(log.rows.every((row) => ownerOf(row.account) === 'res1')).toBe(true);
      const adminLog = [...views.enforcementLogRows({})].filter((row) => ownerOf(row.account) === 'res1');
      expect([...views.enforcementLogRows({ reseller: 'res1' })]).toEqual(adminLog);
    }));

  it("reads a reseller's accounts from the accounts_reseller index and their websites from the websites_account index", () =>
    withDb((db) => {
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ reseller: 'res1' }) as { detail: string }[]).map((r) => r.detail);
      const websites = plan(
        'SELECT domain FROM websites w WHERE w.account IN (SELECT account FROM accounts WHERE reseller = @reseller) ORDER BY w.domain',
      );
      expect(websites).toContain('SEARCH accounts USING INDEX accounts_reseller (reseller=?)');
      expect(websites.join('\n')).toMatch(/SEARCH w USING (COVERING )?INDEX websites_account \(account=\?\)/);
      const log = plan('SELECT * FROM enforcement_actions WHERE account IN (SELECT account FROM accounts WHERE reseller = @reseller)');
      expect(log.join('\n')).toContain('enforcement_actions_account (account=?)');
    }));
});
