/**
 * Hit limits end to end: traffic injected into the sandbox, statistics synced into SQLite,
 * enforcement pausing and resuming at the sandbox, all on an injected clock.
 */
import { describe, expect, it } from 'vitest';
import { CALLBACK_REREAD_SPACING_MS } from '../../src/core/job-queue.js';
import { hitsOverTime, usageReport } from '../../src/core/statistics.js';
import { runWpp } from '../helpers/cli.js';
import { signedWith, startReceiver } from '../helpers/receiver.js';
import { notifySecretOf, TEST_PANEL_SECRET, startTestPlugin, testConfig, testEnv, withPlugin } from '../helpers/plugin.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

const at = (iso: string) => Date.parse(iso);

/** A clock tests move by hand. */
function manualClock(start: string) {
  let now = at(start);
  return { now: () => now, set: (iso: string) => void (now = at(iso)) };
}

async function provision(plugin: Plugin, sites: [account: string, domain: string][]) {
  await plugin.postEvents(sites.map(([account, domain]) => ({ type: 'domain.added', account, domain })));
  await plugin.idle();
}

const traffic = (sb: TestSandbox, domain: string, hits: number, blocked = 0) =>
  sb.control('POST', `/_sandbox/websites/${domain}/traffic`, { hits, blocked });
const requested = async (sb: TestSandbox, domain: string) =>
  (await sb.control<{ requested_status: string }>('GET', `/v1.0/website?domain=${domain}`)).requested_status;
const actions = (plugin: Plugin) => plugin.stats.recentActions(1000).reverse();

async function syncAndEnforce(plugin: Plugin) {
  const sync = await plugin.syncStatistics();
  return { sync, enforce: await plugin.enforceLimits() };
}

describe('website hit limit', () => {
  it('pauses exactly the website over its limit, records why, and does it once', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [
          ['alice', 'a1.example'],
          ['alice', 'a2.example'],
          ['bob', 'b1.example'],
        ]);
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'a1.example', 1200, 100);
        await traffic(sb, 'a2.example', 100);
        await traffic(sb, 'b1.example', 999);

        const { sync, enforce } = await syncAndEnforce(plugin);
        expect(sync).toMatchObject({ skipped: false, read: 3, failed: 0 });
        expect(enforce).toMatchObject({ paused: 1, resumed: 0, failed: 0 });
        expect(await requested(sb, 'a1.example')).toBe('paused');
        expect(await requested(sb, 'a2.example')).toBe('online');
        expect(await requested(sb, 'b1.example')).toBe('online');
        expect(plugin.accounts.getWebsite('a1.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'enforcement' });
        const pause = actions(plugin).find((a) => a.action === 'pause');
        expect(pause).toMatchObject({
          account: 'alice',
          domain: 'a1.example',
          actor: 'enforcement',
          reason: 'website_limit',
          usage: 1200,
          limitValue: 1000,
          periodStart: at('2026-11-01T00:00:00Z'),
          periodEnd: at('2026-12-01T00:00:00Z'),
          statusBefore: 'online',
          statusAfter: 'paused',
        });

        // Again: nothing new is done or recorded.
        const countBefore = actions(plugin).length;
        expect((await plugin.enforceLimits()).paused).toBe(0);
        expect(actions(plugin)).toHaveLength(countBefore);
        const runs = plugin.stats.recentRuns('sync-stats');
        expect(runs[0]).toMatchObject({ status: 'ok', websitesRead: 3, websitesFailed: 0, startedAt: clock.now() });
        expect(runs[0]?.finishedAt).not.toBeNull();
      },
      { now: clock.now },
    );
  });
});

describe('the default plan', () => {
  it('limits an account the panel names no plan for, as provisioning puts it on that plan', async () => {
    await withPlugin(async (plugin, sb) => {
      await provision(plugin, [['noplan', 'np1.example']]);
      expect(plugin.accounts.getAccount('noplan')?.plan).toBeNull();
      plugin.stats.setLimits('plan', 'default', { websiteHits: 100 });
      await traffic(sb, 'np1.example', 150);
      expect((await syncAndEnforce(plugin)).enforce.paused).toBe(1);
      expect(await requested(sb, 'np1.example')).toBe('paused');
    });
  });
});

describe('account aggregate limit', () => {
  it("pauses every online website of the account over its aggregate, not the customer's own pause", async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [
          ['bob', 'b1.example'],
          ['bob', 'b2.example'],
          ['bob', 'b3.example'],
          ['carol', 'c1.example'],
        ]);
        const own = plugin.accounts.getWebsite('b3.example');
        await plugin.provider.setWebsiteStatus('b3.example', 'paused');
        plugin.accounts.saveWebsite({ ...own!, desiredStatus: 'paused', pausedBy: 'customer' });
        plugin.stats.setLimits('account', 'bob', { accountHits: 500 });
        await traffic(sb, 'b1.example', 300);
        await traffic(sb, 'b2.example', 250);
        await traffic(sb, 'c1.example', 5000);

        expect((await syncAndEnforce(plugin)).enforce.paused).toBe(2);
        expect(await requested(sb, 'b1.example')).toBe('paused');
        expect(await requested(sb, 'b2.example')).toBe('paused');
        expect(await requested(sb, 'c1.example')).toBe('online');
        expect(plugin.accounts.getWebsite('b3.example')?.pausedBy).toBe('customer');
        expect(
          actions(plugin)
            .filter((a) => a.action === 'pause')
            .map((a) => [a.domain, a.reason, a.usage, a.limitValue]),
        ).toEqual([
          ['b1.example', 'account_limit', 550, 500],
          ['b2.example', 'account_limit', 550, 500],
        ]);
        expect(usageReport({ stats: plugin.stats, accounts: plugin.accounts }, 'bob', clock.now())).toMatchObject({
          hits: 550,
          limit: 500,
          domains: { used: 3 },
        });
      },
      { now: clock.now },
    );
  });
});

describe('warnings', () => {
  it('fire once per period at the threshold, however often enforcement runs', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [['dana', 'd1.example']]);
        plugin.stats.setLimits('global', '', { websiteHits: 1000, warningPercent: 80 });
        await traffic(sb, 'd1.example', 799);
        expect((await syncAndEnforce(plugin)).enforce.warnings).toBe(0);
        await traffic(sb, 'd1.example', 51);
        await syncAndEnforce(plugin);
        await traffic(sb, 'd1.example', 50);
        await syncAndEnforce(plugin);
        await plugin.enforceLimits();
        const warnings = actions(plugin).filter((a) => a.action === 'warning');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatchObject({ domain: 'd1.example', reason: 'website_warning', usage: 850, limitValue: 1000 });
        expect(await requested(sb, 'd1.example')).toBe('online');

        // A new period may warn again.
        clock.set('2026-12-03T00:00:00Z');
        await traffic(sb, 'd1.example', 900);
        await syncAndEnforce(plugin);
        expect(actions(plugin).filter((a) => a.action === 'warning')).toHaveLength(2);
      },
      { now: clock.now },
    );
  });
});

describe('rollover and raised limits', () => {
  it('resume only what enforcement paused', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [
          ['erin', 'e1.example'],
          ['erin', 'e2.example'],
          ['frank', 'f1.example'],
          ['frank', 'f2.example'],
        ]);
        plugin.stats.setLimits('global', '', { websiteHits: 100 });
        for (const domain of ['e1.example', 'e2.example', 'f1.example', 'f2.example']) await traffic(sb, domain, 500);
        // e2 paused by its customer beforehand; frank is suspended (f1, f2 paused by the suspension).
        const e2 = plugin.accounts.getWebsite('e2.example');
        await plugin.provider.setWebsiteStatus('e2.example', 'paused');
        plugin.accounts.saveWebsite({ ...e2!, desiredStatus: 'paused', pausedBy: 'customer' });
        await plugin.postEvents({ type: 'account.suspended', account: 'frank' });
        await plugin.idle();

        expect((await syncAndEnforce(plugin)).enforce.paused).toBe(1);
        expect(plugin.accounts.getWebsite('e1.example')?.pausedBy).toBe('enforcement');

        clock.set('2026-12-01T00:05:00Z');
        const { enforce } = await syncAndEnforce(plugin);
        expect(enforce.resumed).toBe(1);
        expect(await requested(sb, 'e1.example')).toBe('online');
        expect(plugin.accounts.getWebsite('e1.example')).toMatchObject({ pausedBy: null, desiredStatus: 'online' });
        expect(plugin.accounts.getWebsite('e2.example')?.pausedBy).toBe('customer');
        expect(plugin.accounts.getWebsite('f1.example')?.pausedBy).toBe('suspension');
        expect(await requested(sb, 'e2.example')).toBe('paused');
        expect(await requested(sb, 'f1.example')).toBe('paused');
        expect(actions(plugin).find((a) => a.action === 'resume')).toMatchObject({
          domain: 'e1.example',
          reason: 'period_rollover',
          statusBefore: 'paused',
          statusAfter: 'online',
        });

        // Over the limit again in December, then the limit is raised: resumed within the period.
        await traffic(sb, 'e1.example', 150);
        expect((await syncAndEnforce(plugin)).enforce.paused).toBe(1);
        plugin.stats.setLimits('global', '', { websiteHits: 10_000 });
        expect((await plugin.enforceLimits()).resumed).toBe(1);
        expect(
          actions(plugin)
            .filter((a) => a.action === 'resume')
            .map((a) => a.reason),
        ).toEqual(['period_rollover', 'limit_raised']);
      },
      { now: clock.now },
    );
  });
});

describe('admin resume', () => {
  it('holds for the rest of the period, then the limit applies again', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [['gina', 'g1.example']]);
        plugin.stats.setLimits('global', '', { websiteHits: 100 });
        await traffic(sb, 'g1.example', 200);
        await syncAndEnforce(plugin);
        expect(await requested(sb, 'g1.example')).toBe('paused');

        const resumed = await plugin.adminResume('g1.example', 'ops-anna');
        expect(resumed.adminOverrideUntil).toBe(at('2026-12-01T00:00:00Z'));
        expect(await requested(sb, 'g1.example')).toBe('online');
        await traffic(sb, 'g1.example', 5000);
        clock.set('2026-11-30T23:00:00Z');
        expect((await syncAndEnforce(plugin)).enforce.paused).toBe(0);
        expect(await requested(sb, 'g1.example')).toBe('online');
        expect(actions(plugin).find((a) => a.action === 'admin_resume')).toMatchObject({
          actor: 'admin:ops-anna',
          statusBefore: 'paused',
          statusAfter: 'online',
        });

        clock.set('2026-12-02T00:00:00Z');
        await traffic(sb, 'g1.example', 150);
        expect((await syncAndEnforce(plugin)).enforce.paused).toBe(1);
      },
      { now: clock.now },
    );
  });
});

describe('counters and failures', () => {
  it('a provider counter reset does not inflate (or shrink) usage', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [['hal', 'h1.example']]);
        await traffic(sb, 'h1.example', 600, 60);
        await plugin.syncStatistics();
        await sb.control('POST', '/_sandbox/websites/h1.example/counters/reset');
        await traffic(sb, 'h1.example', 100, 10);
        clock.set('2026-11-22T13:10:00Z');
        await plugin.syncStatistics();
        await plugin.syncStatistics();
        const period = at('2026-11-01T00:00:00Z');
        expect(plugin.stats.websiteUsage('h1.example', period)).toBe(700);
        const report = usageReport({ stats: plugin.stats, accounts: plugin.accounts }, 'hal', clock.now());
        expect(report.websites[0]).toMatchObject({ domain: 'h1.example', hits: 700, permitted: 630, blocked: 70 });
        expect(
          hitsOverTime(
            plugin.stats,
            { domain: 'h1.example' },
            { from: at('2026-11-22T00:00:00Z'), to: at('2026-11-23T00:00:00Z') },
            'hour',
          ),
        ).toEqual([
          { start: '2026-11-22T12:00:00.000Z', total: 600, permitted: 540, blocked: 60, mitigated: 60 },
          { start: '2026-11-22T13:00:00.000Z', total: 100, permitted: 90, blocked: 10, mitigated: 10 },
        ]);
        expect(
          hitsOverTime(plugin.stats, { account: 'hal' }, { from: at('2026-11-01T00:00:00Z'), to: at('2026-12-01T00:00:00Z') }, 'day'),
        ).toEqual([{ start: '2026-11-22T00:00:00.000Z', total: 700, permitted: 630, blocked: 70, mitigated: 70 }]);
      },
      { now: clock.now },
    );
  });

  it('a failing website is recorded and read again next run; the others are read', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [
          ['ivy', 'i1.example'],
          ['ivy', 'i2.example'],
          ['ivy', 'i3.example'],
        ]);
        await traffic(sb, 'i1.example', 10);
        await traffic(sb, 'i3.example', 30);
        // Gone at the provider (deleted behind the plugin's back): every read of it fails.
        await sb.control('DELETE', '/v1.0/website/i2.example');
        const first = await plugin.syncStatistics();
        expect(first).toMatchObject({ read: 2, failed: 1 });
        expect(plugin.stats.recentRuns('sync-stats')[0]).toMatchObject({ status: 'ok', websitesRead: 2, websitesFailed: 1 });
        expect(plugin.stats.websiteUsage('i3.example', at('2026-11-01T00:00:00Z'))).toBe(30);
        const failedRow = plugin.db.prepare("SELECT failed_at, last_error FROM stats_latest WHERE domain = 'i2.example'").get() as {
          failed_at: number;
          last_error: string;
        };
        expect(failedRow.last_error).toMatch(/PROVIDER_NOT_FOUND/);
        expect((await plugin.syncStatistics()).failed).toBe(1);
      },
      { now: clock.now },
    );
  });
});

describe('domain limit', () => {
  it('refuses to protect one domain more than the account may have, with a clear reason', async () => {
    await withPlugin(async (plugin, sb) => {
      plugin.stats.setLimits('account', 'jack', { domainLimit: 2 });
      await provision(plugin, [
        ['jack', 'j1.example'],
        ['jack', 'j2.example'],
        ['jack', 'j3.example'],
      ]);
      const dead = plugin.jobs.list({ state: 'dead' });
      expect(dead.map((job) => job.lastError)).toEqual([
        'LIMIT_REACHED: Account jack may protect at most 2 domains: j3.example was not protected (domain limit reached)',
      ]);
      expect(sb.store.getWebsite('j3.example')).toBeNull();
      // A replay of an already protected domain is not "one more".
      await plugin.postEvents({ type: 'domain.added', account: 'jack', domain: 'j2.example', id: 'again' });
      await plugin.idle();
      expect(plugin.jobs.list({ state: 'dead' })).toHaveLength(1);
    });
  });
});

describe('schedule and rate', () => {
  it('catches up at start when the last sync is older than the interval', async () => {
    await withSandbox(async (sb) => {
      const plugin = await startTestPlugin(sb, { scheduler: true, env: { WPP_SYNC_INTERVAL_MINUTES: '5' } });
      try {
        await waitFor(() => plugin.stats.recentRuns('sync-stats')[0]?.status === 'ok' || undefined, 10_000, 'the catch-up sync');
        // Enforcement follows every scheduled sync.
        await waitFor(() => plugin.stats.recentRuns('enforce')[0]?.status === 'ok' || undefined, 10_000, 'the enforcement pass');
      } finally {
        await plugin.close();
        removeTempDir(plugin.dataDir);
      }
    });
  });

  it('stops a sync when the plugin closes, keeping what it read and releasing the lock', async () => {
    await withSandbox(async (sb) => {
      const plugin = await startTestPlugin(sb);
      try {
        await provision(
          plugin,
          Array.from({ length: 30 }, (_, i) => ['sam', `s${i}.example`] as [string, string]),
        );
        await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 100 });
        const pages: number[] = [];
        const sync = plugin.syncStatistics({ pageSize: 5, concurrency: 1, onProgress: (done) => pages.push(done) });
        await waitFor(() => pages.length >= 1 || undefined, 5000, 'the first page');
        const closing = Date.now();
        await plugin.close();
        const result = await sync;
        expect(Date.now() - closing).toBeLessThan(3000);
        expect(result.stopped).toBe(true);
        expect(result.read).toBeGreaterThanOrEqual(5);
        expect(result.read).toBeLessThan(30);
        const db = openPluginDatabase(testConfig(plugin.dataDir, sb));
        try {
          expect(db.prepare("SELECT status FROM job_runs WHERE name = 'sync-stats'").get()).toEqual({ status: 'stopped' });
          expect(db.prepare('SELECT COUNT(*) AS n FROM locks').get()).toEqual({ n: 0 });
          expect((db.prepare('SELECT COUNT(*) AS n FROM stats_latest').get() as { n: number }).n).toBe(result.read);
        } finally {
          db.close();
        }
      } finally {
        await plugin.close();
        removeTempDir(plugin.dataDir);
      }
    });
  });

  it('reads every website once over many pages, with reads in flight across page ends, and stores each read', async () => {
    await withPlugin(async (plugin, sb) => {
      const domains = Array.from({ length: 14 }, (_, i) => `p${String(i).padStart(2, '0')}.example`);
      await provision(
        plugin,
        domains.map((domain, i) => [`acct${i % 3}`, domain]),
      );
      for (const [i, domain] of domains.entries()) await traffic(sb, domain, 100 + i);
      // Slow answers keep three reads in flight while a page ends and the next one starts.
      await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 30 });
      const progress: number[] = [];
      const result = await plugin.syncStatistics({ pageSize: 4, concurrency: 3, onProgress: (done) => progress.push(done) });
      await sb.control('POST', '/_sandbox/faults', { mode: 'none' });

      expect(result).toMatchObject({ skipped: false, stopped: false, total: 14, read: 14, failed: 0 });
      expect(progress).toEqual([4, 8, 12, 14]);
      const reads = (await sb.control<{ method: string; path: string }[]>('GET', '/_sandbox/requests?limit=1000'))
        .filter((request) => request.method === 'GET' && request.path.endsWith('/statistics'))
        .map((request) => decodeURIComponent(request.path.split('/')[3] ?? ''));
      expect(reads.sort()).toEqual(domains);
      const hits = new Map(
        ['acct0', 'acct1', 'acct2'].flatMap((account) =>
          usageReport({ stats: plugin.stats, accounts: plugin.accounts }, account, Date.now()).websites.map((w) => [w.domain, w.hits]),
        ),
      );
      expect(domains.map((domain) => hits.get(domain))).toEqual(domains.map((_, i) => 100 + i));
    });
  });

  it('keeps to the configured request rate', async () => {
    await withPlugin(
      async (plugin) => {
        await provision(
          plugin,
          Array.from({ length: 12 }, (_, i) => ['rita', `r${i}.example`] as [string, string]),
        );
        const started = Date.now();
        const result = await plugin.syncStatistics();
        expect(result.read).toBe(12);
        // The server's pacer: 12 reads at 5 a second, with at most a second's worth in a burst, need 1.4 s at least.
        expect(Date.now() - started).toBeGreaterThanOrEqual(1350);
      },
      { env: { WPP_SYNC_RATE: '5' } },
    );
  });

  it('enforcement keeps to it too, across accounts enforced at once', async () => {
    await withPlugin(
      async (plugin, sb) => {
        const sites = Array.from({ length: 8 }, (_, i) => [`acct${i % 4}`, `q${i}.example`] as [string, string]);
        await provision(plugin, sites);
        plugin.stats.setLimits('global', '', { websiteHits: 10 });
        for (const [, domain] of sites) await traffic(sb, domain, 20);
        await plugin.syncStatistics();
        const started = Date.now();
        expect(await plugin.enforceLimits()).toMatchObject({ paused: 8, failed: 0 });
        // 8 pauses are 16 provider calls (a look, then the pause): at 5 per second, at least two more intervals after the first.
        expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      },
      { env: { WPP_SYNC_RATE: '5' } },
    );
  });
});

describe('notifications', () => {
  it('send every action and warning as signed JSON to the notification URL, once each', async () => {
    const receiver = await startReceiver({ failFirst: 1 });
    const clock = manualClock('2026-11-22T12:00:00Z');
    try {
      await withPlugin(
        async (plugin, sb) => {
          await provision(plugin, [
            ['lea', 'l1.example'],
            ['lea', 'l2.example'],
          ]);
          plugin.stats.setLimits('global', '', { websiteHits: 100 });
          await traffic(sb, 'l1.example', 150);
          await traffic(sb, 'l2.example', 90);
          await syncAndEnforce(plugin);
          await plugin.enforceLimits();
          // The receiver fails the first delivery: its retry comes due once the plugin's clock passes the backoff.
          await waitFor(
            () => plugin.jobs.list({ state: 'pending' }).some((job) => job.attempts > 0),
            5000,
            'the failed delivery to be rescheduled',
          );
          clock.set('2026-11-22T12:00:01Z');
          await plugin.idle();
          const delivered = receiver.received.filter((r) => r.answeredWith === 200);
          expect(
            delivered
              .map((r) => (JSON.parse(r.body) as { action: { action: string; domain: string } }).action)
              .map((a) => `${a.action} ${a.domain}`)
              .sort(),
          ).toEqual(['pause l1.example', 'warning l2.example']);
          // Signed with the notification secret the receiver holds, never with the hook secret.
          for (const request of delivered) {
            expect(signedWith(request, notifySecretOf(plugin))).toBe(true);
            expect(signedWith(request, TEST_PANEL_SECRET)).toBe(false);
          }
          // The receiver failed once: that notification was retried, not lost.
          expect(receiver.received).toHaveLength(3);
        },
        { now: clock.now, env: { WPP_NOTIFY_URL: `${receiver.url}/wpp-events` } },
      );
    } finally {
      await receiver.close();
    }
  });
});

describe('two wpp sync-stats at once', () => {
  it('never both run: one reads, the other says so (exit 3) and does nothing', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-sync-');
      const env = testEnv(dataDir, sb, { WPP_SYNC_CONCURRENCY: '2', WPP_SYNC_RATE: '0' });
      try {
        const user = await sb.control<{ id: string }>('POST', '/v1.0/user', { id: 'kim@panel.example' });
        const db = openPluginDatabase(testConfig(dataDir, sb, env));
        for (let i = 0; i < 6; i++) {
          const domain = `k${i}.example`;
          await sb.control('POST', '/v1.0/website', { domain, user_id: user.id, ip: ['192.0.2.5'] });
          db.prepare(
            "INSERT OR IGNORE INTO accounts (account, provider_user_id, state, created_at, updated_at) VALUES ('kim', 'kim@panel.example', 'active', 0, 0)",
          ).run();
          db.prepare(
            "INSERT INTO websites (domain, account, desired_status, callback_token_hash, created_at, updated_at) VALUES (?, 'kim', 'online', ?, 0, 0)",
          ).run(domain, `hash-${i}`);
        }
        db.close();
        // Each statistics read takes 400 ms, so a sync lasts over a second: long enough to overlap.
        await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 400 });
        const [a, b] = await Promise.all([
          runWpp(['sync-stats', '--no-enforce'], { env }),
          runWpp(['sync-stats', '--no-enforce'], { env }),
        ]);
        const outputs = [a.stdout, b.stdout];
        // The one that did nothing says so with its own exit code: 3, skipped.
        expect([a.code, b.code].sort()).toEqual([0, 3]);
        expect(outputs.filter((out) => /statistics: 6 websites read, 0 failed/.test(out))).toHaveLength(1);
        expect(outputs.filter((out) => /another statistics sync is running/.test(out))).toHaveLength(1);
        const check = openPluginDatabase(testConfig(dataDir, sb, env));
        try {
          expect(
            createStatisticsRepo(check)
              .recentRuns('sync-stats')
              .map((run) => run.status)
              .sort(),
          ).toEqual(['ok', 'skipped']);
        } finally {
          check.close();
        }
      } finally {
        removeTempDir(dataDir);
      }
    });
  }, 30_000);
});

describe('a website paused or resumed outside the plugin, its callbacks lost', () => {
  it('is never claimed nor resumed by enforcement', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [
          ['gina', 'g1.example'],
          ['gina', 'g2.example'],
        ]);
        for (const domain of ['g1.example', 'g2.example']) await sb.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
        // The customer pauses g1 in the provider's own dashboard, with their own key.
        const key = plugin.accounts.getAccount('gina')?.providerApiKey as string;
        const setByCustomer = (domain: string, status: string) =>
          fetch(`${sb.url}/v1.0/website/${domain}`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${key}` },
            body: new URLSearchParams({ status }),
          }).then((r) => r.status);
        expect(await setByCustomer('g1.example', 'paused')).toBe(200);
        // Its callback never reaches the plugin (WPP_PUBLIC_URL points nowhere): the row is stale.
        await waitFor(async () =>
          (await sb.control<{ domain: string; attempts: number }[]>('GET', '/_sandbox/callbacks')).some(
            (c) => c.domain === 'g1.example' && c.attempts > 0,
          ),
        );
        expect(plugin.accounts.getWebsite('g1.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });

        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'g1.example', 1500);
        await traffic(sb, 'g2.example', 1500);
        expect((await syncAndEnforce(plugin)).enforce).toMatchObject({ paused: 1, leftAlone: 1, failed: 0 });
        expect(plugin.accounts.getWebsite('g1.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'external' });
        expect(plugin.accounts.getWebsite('g2.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'enforcement' });
        expect(
          actions(plugin)
            .filter((a) => a.action === 'pause')
            .map((a) => a.domain),
        ).toEqual(['g2.example']);

        // A raised limit undoes enforcement's own pause only.
        plugin.stats.setLimits('global', '', { websiteHits: 5000 });
        expect(await plugin.enforceLimits()).toMatchObject({ resumed: 1, leftAlone: 0 });
        expect(await requested(sb, 'g1.example')).toBe('paused');
        expect(await requested(sb, 'g2.example')).toBe('online');

        // Over again, paused again; the customer resumes g2 in the dashboard (callback lost too).
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        expect((await plugin.enforceLimits()).paused).toBe(1);
        expect(await setByCustomer('g2.example', 'online')).toBe(200);

        // The period rolls over: enforcement sends nothing for g2 (already online) and never resumes g1.
        clock.set('2026-12-02T00:00:00Z');
        const putsBefore = (await sb.control<{ method: string }[]>('GET', '/_sandbox/requests?limit=1000')).filter(
          (r) => r.method === 'PUT',
        ).length;
        expect((await syncAndEnforce(plugin)).enforce).toMatchObject({ paused: 0, resumed: 0, leftAlone: 1, failed: 0 });
        const putsAfter = (await sb.control<{ method: string }[]>('GET', '/_sandbox/requests?limit=1000')).filter(
          (r) => r.method === 'PUT',
        ).length;
        expect(putsAfter).toBe(putsBefore);
        expect(await requested(sb, 'g1.example')).toBe('paused');
        expect(await requested(sb, 'g2.example')).toBe('online');
        expect(plugin.accounts.getWebsite('g1.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'external' });
        expect(plugin.accounts.getWebsite('g2.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
      },
      { now: clock.now, env: { WPP_PUBLIC_URL: 'http://127.0.0.1:9' } },
    );
  });

  it('learns of an outside pause, and of its end, when the callback does arrive', async () => {
    // The plugin's clock, moved past a callback re-read's window (CALLBACK_REREAD_SPACING_MS) before each change.
    const clock = { offset: 0 };
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [['hugo', 'h1.example']]);
        await sb.control('POST', '/_sandbox/websites/h1.example/dns-verified');
        await waitFor(() => plugin.accounts.getWebsite('h1.example')?.providerStatus === 'online', 5000, 'the DNS callback');
        const key = plugin.accounts.getAccount('hugo')?.providerApiKey as string;
        const setByCustomer = (status: string) =>
          fetch(`${sb.url}/v1.0/website/h1.example`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${key}` },
            body: new URLSearchParams({ status }),
          });
        clock.offset += CALLBACK_REREAD_SPACING_MS;
        await setByCustomer('paused');
        await waitFor(
          () => plugin.accounts.getWebsite('h1.example')?.pausedBy === 'external',
          5000,
          'the callback to record the outside pause',
        );
        expect(plugin.accounts.getWebsite('h1.example')).toMatchObject({ desiredStatus: 'paused', providerStatus: 'paused' });
        clock.offset += CALLBACK_REREAD_SPACING_MS;
        await setByCustomer('online');
        await waitFor(
          () => plugin.accounts.getWebsite('h1.example')?.pausedBy === null,
          5000,
          'the callback to record the end of the outside pause',
        );
        expect(plugin.accounts.getWebsite('h1.example')).toMatchObject({ desiredStatus: 'online', providerStatus: 'online' });
      },
      { now: () => Date.now() + clock.offset },
    );
  });
});

describe('quota snapshot', () => {
  it("stores every active website's level as the pass saw it, and rewrites only what changed", async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [
          ['dora', 'd1.example'],
          ['dora', 'd2.example'],
          ['dora', 'd3.example'],
          ['erin', 'e1.example'],
        ]);
        plugin.stats.setLimits('global', '', { websiteHits: 1000, warningPercent: 80 });
        plugin.stats.setLimits('website', 'd3.example', { exempt: true });
        plugin.stats.setLimits('account', 'erin', { accountHits: 100, websiteHits: 5000, warningPercent: 50 });
        await traffic(sb, 'd1.example', 1200);
        await traffic(sb, 'd2.example', 850);
        await traffic(sb, 'd3.example', 5000);
        await traffic(sb, 'e1.example', 60);
        await syncAndEnforce(plugin);

        const quotas = () =>
          plugin.db
            .prepare(
              'SELECT domain, usage, website_limit, account_usage, account_limit, warning_percent, level, updated_at FROM website_quota ORDER BY domain',
            )
            .all();
        const first = clock.now();
        expect(quotas()).toEqual([
          {
            domain: 'd1.example',
            usage: 1200,
            website_limit: 1000,
            account_usage: 7050,
            account_limit: null,
            warning_percent: 80,
            level: 'over',
            updated_at: first,
          },
          {
            domain: 'd2.example',
            usage: 850,
            website_limit: 1000,
            account_usage: 7050,
            account_limit: null,
            warning_percent: 80,
            level: 'near',
            updated_at: first,
          },
          {
            domain: 'd3.example',
            usage: 5000,
            website_limit: 1000,
            account_usage: 7050,
            account_limit: null,
            warning_percent: null,
            level: 'none',
            updated_at: first,
          },
          {
            domain: 'e1.example',
            usage: 60,
            website_limit: 5000,
            account_usage: 60,
            account_limit: 100,
            warning_percent: 50,
            level: 'near',
            updated_at: first,
          },
        ]);

        clock.set('2026-11-22T13:00:00Z');
        await traffic(sb, 'e1.example', 50);
        await syncAndEnforce(plugin);
        const second = quotas() as { domain: string; level: string; updated_at: number }[];
        expect(second.map((row) => [row.domain, row.level, row.updated_at])).toEqual([
          ['d1.example', 'over', first],
          ['d2.example', 'near', first],
          ['d3.example', 'none', first],
          ['e1.example', 'over', clock.now()],
        ]);
      },
      { now: clock.now },
    );
  });
});
