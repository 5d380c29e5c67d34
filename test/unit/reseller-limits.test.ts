/**
 * The reseller scope (issue 22): a pooled hit limit over all of a reseller's customers'
 * websites. Its resolution (the pool from the reseller row only, its period from the reseller
 * row, else global), the enforcement decisions it adds, the limits rules for its row, and its
 * usage read from a real SQLite database.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { englishTranslate } from '../../src/cli/english.js';
import { parseLimitsChange, type IsKnown } from '../../src/core/limits-change.js';
import { createLimitResolver, resellerPoolLimits } from '../../src/core/limits.js';
import { decide, periodAt, resolveLimits, type QuotaAccount, type QuotaWebsite } from '../../src/core/quota.js';
import { createPoolReader, resellerPoolsOf, resellerUsageNow, resellerUsages } from '../../src/core/reseller-limits.js';
import { createAccountsRepo, type AccountsRepo } from '../../src/db/accounts.repo.js';
import { createKeyBox, type KeyBox } from '../../src/db/api-keys.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createStatisticsRepo, RESELLER_USAGE_SQL, type StatisticsRepo } from '../../src/db/statistics.repo.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

const at = (iso: string) => Date.parse(iso);
const english = englishTranslate();
const known: IsKnown = () => true;

describe('resellerPoolLimits: what a reseller row sets', () => {
  it('takes the pool from the reseller row only: the global account limit is each account’s, never a pool', () => {
    expect(resellerPoolLimits(undefined, { accountHits: 5000, period: 'daily', warningPercent: 70 })).toEqual({
      period: 'daily',
      anchorDay: 1,
      warningPercent: 70,
      poolHits: null,
    });
  });

  it("keeps the reseller's own period, anchor day and threshold over the global row's, and falls back to it for the rest", () => {
    expect(resellerPoolLimits({ accountHits: 90_000, anchorDay: 15 }, { period: 'monthly', anchorDay: 1, warningPercent: 60 })).toEqual({
      period: 'monthly',
      anchorDay: 15,
      warningPercent: 60,
      poolHits: 90_000,
    });
    expect(resellerPoolLimits({ accountHits: 10, period: 'daily', warningPercent: 95 }, { period: 'monthly' })).toMatchObject({
      period: 'daily',
      warningPercent: 95,
    });
  });
});

describe('decide with a reseller pool', () => {
  const period = periodAt(at('2026-11-22T00:00:00Z'), 'monthly');
  const limits = resolveLimits([]);
  const now = at('2026-11-22T12:00:00Z');
  const site = (domain: string, usage: number, extra: Partial<QuotaWebsite> = {}): QuotaWebsite => ({
    domain,
    desiredStatus: 'online',
    pausedBy: null,
    usage,
    limits,
    adminOverrideUntil: null,
    enforcementPausedPeriod: null,
    ...extra,
  });
  const account = (websites: QuotaWebsite[], poolUsage: number, poolLimit: number | null, exempt = false): QuotaAccount => ({
    account: 'alice',
    limits: { ...limits, exempt },
    period,
    websites,
    pool: { reseller: 'r1', periodStart: period.start, usage: poolUsage, limit: poolLimit, warningPercent: 80 },
  });

  it('pauses every online website of the account when the pool is used up, naming the pool, whoever used it', () => {
    const decisions = decide(
      account(
        [
          site('a.example', 10),
          site('b.example', 0),
          site('exempt.example', 0, { limits: { ...limits, exempt: true } }),
          site('override.example', 0, { adminOverrideUntil: now + 1000 }),
          site('mine.example', 0, { desiredStatus: 'paused', pausedBy: 'customer' }),
        ],
        1000,
        1000,
      ),
      now,
    );
    expect(decisions).toEqual([
      { kind: 'pause', domain: 'a.example', reason: 'reseller_limit', usage: 1000, limit: 1000 },
      { kind: 'pause', domain: 'b.example', reason: 'reseller_limit', usage: 1000, limit: 1000 },
    ]);
  });

  it('names the website or account limit first when that one is also reached', () => {
    const over = { ...limits, websiteHits: 5 };
    expect(decide(account([site('a.example', 10, { limits: over })], 2000, 1000), now)).toEqual([
      { kind: 'pause', domain: 'a.example', reason: 'website_limit', usage: 10, limit: 5 },
    ]);
  });

  it('warns the account once the pool reaches its warning threshold, and not an exempt account', () => {
    expect(decide(account([site('a.example', 10)], 800, 1000), now)).toEqual([
      {
        kind: 'warning',
        domain: null,
        reason: 'reseller_warning',
        usage: 800,
        limit: 1000,
        pool: { reseller: 'r1', periodStart: period.start },
      },
    ]);
    expect(decide(account([site('a.example', 10)], 799, 1000), now)).toEqual([]);
    expect(decide(account([site('a.example', 10)], 800, 1000, true), now)).toEqual([]);
  });

  it('resumes the websites the pool paused once the pool is raised, and leaves them paused while it is not', () => {
    const paused = site('a.example', 10, { desiredStatus: 'paused', pausedBy: 'enforcement', enforcementPausedPeriod: period.start });
    expect(decide(account([paused], 1000, 1000), now)).toEqual([]);
    expect(decide(account([paused], 1000, 5000), now)).toEqual([
      { kind: 'resume', domain: 'a.example', reason: 'limit_raised', usage: 10, limit: null },
    ]);
    expect(decide(account([paused], 1000, null), now).map((d) => d.kind)).toEqual(['resume']);
  });
});

describe('parseLimitsChange: the reseller row', () => {
  it('stores the pool as the row’s account hits, with its period, anchor day and threshold', () => {
    const result = parseLimitsChange(
      { scope: 'reseller', subject: ' r1 ', 'pool-hits': '50000', period: 'monthly', 'anchor-day': '5', 'warning-percent': '90' },
      known,
      english,
    );
    expect(result).toEqual({
      ok: true,
      change: { scope: 'reseller', subject: 'r1', changes: { accountHits: 50_000, period: 'monthly', anchorDay: 5, warningPercent: 90 } },
    });
  });

  it('refuses what a reseller row has no use for, and a pool on any other row, each next to its field', () => {
    const onReseller = parseLimitsChange(
      { scope: 'reseller', subject: 'r1', 'website-hits': '5', 'account-hits': '9', exempt: 'true' },
      known,
      english,
    );
    expect(onReseller).toMatchObject({ ok: false });
    expect(onReseller?.ok === false && onReseller.problems.map((p) => [p.field, p.reason])).toEqual([
      ['website-hits', 'not-applicable'],
      ['account-hits', 'not-applicable'],
      ['exempt', 'not-applicable'],
    ]);
    for (const scope of ['account', 'global']) {
      const result = parseLimitsChange({ scope, ...(scope === 'global' ? {} : { subject: 'alice' }), 'pool-hits': '5' }, known, english);
      expect(result?.ok === false && result.problems.map((p) => [p.field, p.message])).toEqual([
        ['pool-hits', "is a reseller's pool: set it on a reseller"],
      ]);
    }
  });

  it('asks whether the reseller is known, and says so when it is not', () => {
    const asked: string[] = [];
    const result = parseLimitsChange(
      { scope: 'reseller', subject: 'nobody', 'pool-hits': '5' },
      (scope, subject) => {
        asked.push(`${scope}:${subject}`);
        return false;
      },
      english,
    );
    expect(asked).toEqual(['reseller:nobody']);
    expect(result?.ok === false && result.problems[0]?.reason).toBe('unknown-subject');
  });
});

/** A migrated plugin database in a temporary folder, with its accounts (opening keys with `keys`) and statistics repositories. */
async function withRepos(fn: (repos: { db: Db; accounts: AccountsRepo; stats: StatisticsRepo }) => void, keys?: KeyBox): Promise<void> {
  await withTempDir((dir) => {
    const db = openDatabase(join(dir, 'plugin.sqlite'));
    try {
      migrate(db, paths.migrations);
      fn({ db, accounts: createAccountsRepo(db, () => 1, keys), stats: createStatisticsRepo(db, () => 1) });
    } finally {
      db.close();
    }
  });
}

/** Saves an account owned by `reseller` (null: the host's own), with a provider API key when asked. */
const ownerIn =
  (accounts: AccountsRepo, { withKey = false } = {}) =>
  (account: string, reseller: string | null, plan: string | null = null) =>
    accounts.saveAccount({
      account,
      email: null,
      plan,
      providerUserId: account,
      providerApiKey: withKey ? `key-${account}` : null,
      state: 'active',
      reseller,
    });

/** Stores one read of `total` hits in the period starting `periodStart`, taken at `takenAt`. */
const readerOf = (stats: StatisticsRepo) => (domain: string, account: string, periodStart: number, total: number, takenAt: number) =>
  stats.recordReads(
    [{ domain, account, periodStart, counters: { total, permitted: total, blocked: 0, mitigated: 0 } }],
    takenAt,
    (_p, c) => c,
  );

describe('resellerUsageNow on a real database', () => {
  it("sums the hits of all the reseller's accounts in the pool's period, counting an account on another period by its hours", async () => {
    await withRepos(({ accounts, stats }) => {
      const owned = ownerIn(accounts);
      owned('alice', 'r1');
      owned('bob', 'r1');
      owned('dora', 'r1', 'Daily');
      owned('carol', 'r2');
      owned('erin', 'r1');
      stats.setLimits('plan', 'Daily', { period: 'daily' });
      stats.setLimits('reseller', 'r1', { accountHits: 1000, warningPercent: 90 });
      const now = at('2026-11-22T12:30:00Z');
      const month = periodAt(now, 'monthly');
      const day = periodAt(now, 'daily');
      const read = readerOf(stats);
      read('a.example', 'alice', month.start, 300, at('2026-11-03T10:00:00Z'));
      read('b.example', 'bob', month.start, 200, at('2026-11-21T10:00:00Z'));
      // Dora's plan counts by day: her usage rows are daily; the pool counts her month from her hours.
      read('d.example', 'dora', periodAt(at('2026-11-20T09:00:00Z'), 'daily').start, 40, at('2026-11-20T09:00:00Z'));
      read('d2.example', 'dora', day.start, 60, at('2026-11-22T11:00:00Z'));
      // Before the period, and another reseller's: not in the pool.
      read('a.example', 'alice', periodAt(at('2026-10-30T00:00:00Z'), 'monthly').start, 999, at('2026-10-30T00:00:00Z'));
      read('c.example', 'carol', month.start, 5000, at('2026-11-10T00:00:00Z'));

      const usage = resellerUsageNow({ stats, accounts }, 'r1', now);
      expect(usage).toEqual({
        reseller: 'r1',
        period: month,
        hits: 600,
        limit: 1000,
        warningPercent: 90,
        accounts: [
          { account: 'alice', hits: 300 },
          { account: 'bob', hits: 200 },
          { account: 'dora', hits: 100 },
          { account: 'erin', hits: 0 },
        ],
      });
      expect(resellerUsageNow({ stats, accounts }, 'r2', now)).toMatchObject({ hits: 5000, limit: null });

      // Enforcement reads each pool once per pass, and none for a reseller without one.
      const limits = createLimitResolver(stats, accounts);
      const pools = createPoolReader({ stats, accounts }, limits, now);
      expect(pools.poolOf('bob')).toEqual({ reseller: 'r1', periodStart: month.start, usage: 600, limit: 1000, warningPercent: 90 });
      expect(pools.poolOf('carol')).toBeNull();
    });
  });

  it("reads a page's pools in set reads that never open an API key: each account its own reseller's pool, sums per period", async () => {
    const box = createKeyBox(randomBytes(32));
    let opened = 0;
    const keys: KeyBox = { seal: box.seal, open: (sealed, account) => (opened++, box.open(sealed, account)) };
    await withRepos(({ accounts, stats }) => {
      const owned = ownerIn(accounts, { withKey: true });
      owned('alice', 'r1');
      owned('bob', 'r1', 'Daily');
      owned('carol', 'r2');
      owned('dan', 'r2');
      owned('host', null);
      stats.setLimits('plan', 'Daily', { period: 'daily' });
      stats.setLimits('reseller', 'r1', { accountHits: 1000 });
      // r2's pool counts by day: carol's and dan's monthly usage rows do not say what today holds.
      stats.setLimits('reseller', 'r2', { accountHits: 50, period: 'daily', warningPercent: 60 });
      const now = at('2026-11-22T12:30:00Z');
      const month = periodAt(now, 'monthly');
      const day = periodAt(now, 'daily');
      const read = readerOf(stats);
      read('a.example', 'alice', month.start, 300, at('2026-11-03T10:00:00Z'));
      read('b.example', 'bob', periodAt(at('2026-11-05T09:00:00Z'), 'daily').start, 40, at('2026-11-05T09:00:00Z'));
      read('b.example', 'bob', day.start, 7, at('2026-11-22T11:00:00Z'));
      read('c.example', 'carol', month.start, 900, at('2026-11-02T10:00:00Z'));
      read('c.example', 'carol', month.start, 20, at('2026-11-22T10:00:00Z'));
      read('d.example', 'dan', month.start, 5, at('2026-11-22T09:00:00Z'));
      read('h.example', 'host', month.start, 10_000, at('2026-11-22T09:00:00Z'));

      const pools = resellerPoolsOf({ stats, accounts }, ['alice', 'bob', 'carol', 'host', 'nobody'], now);
      expect([...pools.keys()]).toEqual(['alice', 'bob', 'carol']);
      const r1 = { reseller: 'r1', period: month, hits: 347, limit: 1000, warningPercent: 80 };
      expect(pools.get('alice')).toEqual({
        ...r1,
        accounts: [
          { account: 'alice', hits: 300 },
          { account: 'bob', hits: 47 },
        ],
      });
      expect(pools.get('bob')).toBe(pools.get('alice'));
      // Dan is not on the page, and still counts in his reseller's pool.
      expect(pools.get('carol')).toEqual({
        reseller: 'r2',
        period: day,
        hits: 25,
        limit: 50,
        warningPercent: 60,
        accounts: [
          { account: 'carol', hits: 20 },
          { account: 'dan', hits: 5 },
        ],
      });
      expect(resellerUsages({ stats, accounts }, ['r2', 'r1'], now)).toEqual(
        new Map([
          ['r2', pools.get('carol')],
          ['r1', pools.get('alice')],
        ]),
      );

      // Enforcement's reader, given the pass's accounts, reads the same pools.
      const reader = createPoolReader({ stats, accounts }, createLimitResolver(stats, accounts), now, ['alice', 'carol', 'host']);
      expect(reader.poolOf('dan')).toEqual({ reseller: 'r2', periodStart: day.start, usage: 25, limit: 50, warningPercent: 60 });
      expect(reader.poolOf('host')).toBeNull();
      expect(opened).toBe(0);
      expect(accounts.getAccount('alice')?.providerApiKey).toBe('key-alice');
      expect(opened).toBe(1);
    }, keys);
  });

  it('reads a reseller pool with the reseller and usage indexes, not a scan of every account or usage row', async () => {
    await withRepos(({ db }) => {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${RESELLER_USAGE_SQL}`).all(JSON.stringify([{ reseller: 'r1', periodStart: 0 }])) as {
        detail: string;
      }[];
      const details = plan.map((row) => row.detail).join('\n');
      expect(details).toMatch(/accounts_reseller/);
      expect(details).toMatch(/usage_account/);
      expect(details).not.toMatch(/SCAN (a|u)\b(?! USING)/);
    });
  });
});

describe("a reseller's limits rows (the reseller's limits page)", () => {
  it("reads the account and website rows of the reseller's customers only, in one query", async () => {
    await withRepos(({ accounts, stats }) => {
      const owned = ownerIn(accounts);
      owned('alice', 'r1');
      owned('bob', 'r1');
      owned('carol', 'r2');
      owned('dave', null);
      const website = (domain: string, account: string, state: 'active' | 'removed' = 'active') =>
        accounts.saveWebsite({
          domain,
          account,
          subdomains: [],
          originIps: [],
          state,
          desiredStatus: 'online',
          pausedBy: null,
          providerStatus: null,
          providerCheckedAt: null,
          callbackTokenHash: `hash-${domain}`,
          provisionedAt: 1,
          provisioningFailure: null,
        });
      website('alice.example', 'alice');
      website('gone.example', 'bob', 'removed');
      website('carol.example', 'carol');
      website('dave.example', 'dave');
      stats.setLimits('global', '', { websiteHits: 1 });
      stats.setLimits('plan', 'default', { websiteHits: 2 });
      stats.setLimits('reseller', 'r1', { accountHits: 3 });
      stats.setLimits('account', 'alice', { websiteHits: 4 });
      stats.setLimits('account', 'carol', { websiteHits: 5 });
      stats.setLimits('account', 'dave', { websiteHits: 6 });
      stats.setLimits('website', 'alice.example', { websiteHits: 7 });
      stats.setLimits('website', 'gone.example', { websiteHits: 8 });
      stats.setLimits('website', 'carol.example', { websiteHits: 9 });
      stats.setLimits('website', 'dave.example', { websiteHits: 10 });
      stats.setLimits('website', 'nobody.example', { websiteHits: 11 });
      expect(stats.resellerLimitRows('r1').map((row) => [row.scope, row.subject, row.layer.websiteHits])).toEqual([
        ['account', 'alice', 4],
        ['website', 'alice.example', 7],
        ['website', 'gone.example', 8],
      ]);
      expect(stats.resellerLimitRows('r2').map((row) => row.subject)).toEqual(['carol', 'carol.example']);
      expect(stats.resellerLimitRows('nobody')).toEqual([]);
    });
  });
});
