/**
 * The adaptive sync end to end, on one injected clock shared by the sandbox (its traffic is
 * stamped by it) and the plugin: minute by minute, traffic goes into the sandbox and the plugin
 * runs one tick, as `wpp serve` does every minute.
 */
import { describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { notifySecretOf, startTestPlugin, TEST_PANEL_SECRET, testEnv, withPlugin } from '../helpers/plugin.js';
import { signedWith, startReceiver } from '../helpers/receiver.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { removeTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-25T10:00:00Z');

type Plugin = Awaited<ReturnType<typeof startTestPlugin>>;

/** A sandbox and a plugin on one clock the test moves; both closed and removed afterwards. */
async function withClockedPlugin(
  fn: (world: { plugin: Plugin; sb: TestSandbox; clock: { now: () => number; set: (at: number) => void } }) => Promise<void>,
  env: Record<string, string> = {},
) {
  let now = T0;
  const clock = { now: () => now, set: (at: number) => void (now = at) };
  const sb = await startTestSandbox({ now: clock.now, certDelaySeconds: 0 });
  const plugin = await startTestPlugin(sb, { now: clock.now, env });
  try {
    await fn({ plugin, sb, clock });
  } finally {
    await plugin.close();
    await sb.close();
    removeTempDir(plugin.dataDir);
    removeTempDir(sb.dataDir);
  }
}

async function provision(plugin: Plugin, sites: [account: string, domain: string][]) {
  await plugin.postEvents(sites.map(([account, domain]) => ({ type: 'domain.added', account, domain })));
  await plugin.idle();
}

const addTraffic = (sb: TestSandbox, items: { domain: string; hits: number; blocked?: number }[]) =>
  sb.control('POST', '/_sandbox/traffic', items);

/** When each website was read: the samples the sync stored, by domain. */
function readTimes(plugin: Plugin): Map<string, number[]> {
  const rows = plugin.db
    .prepare<[], { domain: string; taken_at: number }>('SELECT domain, taken_at FROM stats_samples ORDER BY taken_at')
    .all();
  const times = new Map<string, number[]>();
  for (const row of rows) times.set(row.domain, [...(times.get(row.domain) ?? []), row.taken_at]);
  return times;
}

const gaps = (times: number[]) => times.slice(1).map((at, i) => at - (times[i] as number));

describe('the adaptive sync', () => {
  it('reads a website that starts using hits fast again within minutes and pauses it; quiet ones at least every max age', async () => {
    await withClockedPlugin(
      async ({ plugin, sb, clock }) => {
        const quiet = Array.from({ length: 6 }, (_, i) => `quiet${i}.example`);
        await provision(plugin, [['alice', 'runaway.example'], ...quiet.map((domain) => ['bob', domain] as [string, string])]);
        plugin.stats.setLimits('global', '', { websiteHits: 10_000 });
        await addTraffic(sb, [{ domain: 'runaway.example', hits: 2000 }, ...quiet.map((domain) => ({ domain, hits: 100 }))]);

        // Runaway: 5 hits a minute, then from minute 10 on 800 a minute; it crosses 10,000 hits in minute 20.
        let runawayHits = 2000;
        let crossedAt: number | null = null;
        for (let minute = 0; minute <= 90; minute++) {
          clock.set(T0 + minute * MINUTE);
          if (minute > 0) {
            const paused = plugin.accounts.getWebsite('runaway.example')?.desiredStatus === 'paused';
            // A paused website serves nothing: its hits stop.
            const add = paused ? 0 : minute > 10 ? 800 : 5;
            runawayHits += add;
            if (crossedAt === null && runawayHits >= 10_000) crossedAt = clock.now();
            await addTraffic(sb, [
              ...(add > 0 ? [{ domain: 'runaway.example', hits: add }] : []),
              ...quiet.map((domain) => ({ domain, hits: 2 })),
            ]);
          }
          const tick = await plugin.readDueStatistics();
          expect(tick).toMatchObject({ skipped: false, stopped: false, failed: 0 });
        }

        expect(crossedAt).toBe(T0 + 20 * MINUTE);
        const pause = plugin.stats.recentActions(100).find((action) => action.action === 'pause' && action.domain === 'runaway.example');
        expect(pause).toBeDefined();
        // Paused within 5 minutes of crossing, by the tick that read it: no full enforcement pass ran.
        expect((pause?.at ?? Infinity) - (crossedAt as number)).toBeLessThanOrEqual(5 * MINUTE);
        expect(plugin.stats.recentRuns('enforce')).toEqual([]);
        expect((await sb.control<{ requested_status: string }>('GET', '/v1.0/website?domain=runaway.example')).requested_status).toBe(
          'paused',
        );

        const times = readTimes(plugin);
        // Once a read showed it speeding up (minute 15), it was read again within minutes until the pause.
        const runaway = (times.get('runaway.example') ?? []).filter((at) => at > T0 + 10 * MINUTE && at <= (pause?.at ?? 0));
        expect(runaway.length).toBeGreaterThanOrEqual(2);
        for (const gap of gaps(runaway)) expect(gap).toBeLessThanOrEqual(10 * MINUTE);

        // Quiet websites: never more than the max age (30 minutes) unread, and read rarely: a few times in 90 minutes.
        for (const domain of quiet) {
          const own = times.get(domain) ?? [];
          expect(own.length).toBeGreaterThanOrEqual(4);
          expect(own.length).toBeLessThanOrEqual(7);
          for (const gap of gaps(own)) expect(gap).toBeLessThanOrEqual(31 * MINUTE);
          expect(T0 + 90 * MINUTE - (own.at(-1) as number)).toBeLessThanOrEqual(31 * MINUTE);
        }
        // The forecast stored with its last read: 9,720 hits left at 2 a minute, about 81 hours.
        const forecast = plugin.schedule.get('quiet0.example')?.limitReachedAt as number;
        const lastRead = plugin.schedule.get('quiet0.example')?.lastReadAt as number;
        expect(forecast - lastRead).toBeGreaterThan(80 * 60 * MINUTE);
        expect(forecast - lastRead).toBeLessThan(82 * 60 * MINUTE);
      },
      { WPP_SYNC_MAX_AGE_MINUTES: '30' },
    );
  });

  it('reads an account near its aggregate limit as a group, and forecasts when it is reached', async () => {
    await withClockedPlugin(async ({ plugin, sb, clock }) => {
      const domains = ['c1.example', 'c2.example', 'c3.example'];
      await provision(plugin, [...domains.map((domain) => ['carol', domain] as [string, string]), ['dave', 'd1.example']]);
      plugin.stats.setLimits('account', 'carol', { accountHits: 10_000 });
      await addTraffic(sb, [...domains.map((domain) => ({ domain, hits: 2000 })), { domain: 'd1.example', hits: 2000 }]);
      await plugin.readDueStatistics();
      // A second read 15 minutes after the first measures the rates: 0.2 hits a second each.
      clock.set(T0 + 15 * MINUTE);
      await addTraffic(sb, [...domains.map((domain) => ({ domain, hits: 180 })), { domain: 'd1.example', hits: 180 }]);
      expect(await plugin.readDueStatistics()).toMatchObject({ read: 4 });
      // Dave has no limit: read again after the max age.
      expect((plugin.schedule.get('d1.example')?.nextReadAt as number) - clock.now()).toBe(60 * MINUTE);

      // c2 and c3 were planned far ahead (carol far from her limit); then c1 alone is read, busy.
      plugin.db
        .prepare("UPDATE read_schedule SET next_read_at = ? WHERE domain IN ('c2.example', 'c3.example')")
        .run(clock.now() + 55 * MINUTE);
      clock.set(T0 + 20 * MINUTE);
      await addTraffic(sb, [{ domain: 'c1.example', hits: 2500 }]);
      plugin.schedule.markDue(['c1.example'], clock.now());
      expect(await plugin.readDueStatistics()).toMatchObject({ read: 1 });

      // Carol now has 9,040 of 10,000 hits: the whole group is read together, within minutes.
      const next = domains.map((domain) => plugin.schedule.get(domain)?.nextReadAt as number);
      expect(new Set(next).size).toBe(1);
      expect((next[0] as number) - clock.now()).toBeLessThanOrEqual(10 * MINUTE);
      // The account's forecast: reached this period, in the future.
      const forecast = plugin.schedule.accountForecast('carol');
      expect(forecast?.limitReachedAt).toBeGreaterThan(clock.now());
      expect(forecast?.limitReachedAt).toBeLessThan(forecast?.periodEnd as number);
    });
  });

  it('notices an attack spike once, tells the notification URL and keeps it for the pages', async () => {
    const receiver = await startReceiver();
    try {
      await withClockedPlugin(
        async ({ plugin, sb, clock }) => {
          await provision(plugin, [['erin', 'attacked.example']]);
          await addTraffic(sb, [{ domain: 'attacked.example', hits: 1000, blocked: 10 }]);
          // A day of normal traffic, read every hour: about 60 blocked hits an hour.
          for (let hour = 0; hour <= 24; hour++) {
            clock.set(T0 + hour * 60 * MINUTE);
            if (hour > 0) await addTraffic(sb, [{ domain: 'attacked.example', hits: 1000, blocked: 60 }]);
            await plugin.readDueStatistics();
          }
          // Then 20,000 blocked hits in a quarter of an hour, still coming a quarter of an hour later.
          for (const minutes of [15, 30]) {
            clock.set(T0 + 24 * 60 * MINUTE + minutes * MINUTE);
            await addTraffic(sb, [{ domain: 'attacked.example', hits: 20_000, blocked: 20_000 }]);
            // Without a limit it is due only hourly: read it now (as its next hourly read would).
            plugin.schedule.markDue(['attacked.example'], clock.now());
            await plugin.readDueStatistics();
          }
          const notices = plugin.schedule.notices('attacked.example');
          expect(notices).toHaveLength(1);
          expect(notices[0]).toMatchObject({ kind: 'attack_spike', startedAt: T0 + 24 * 60 * MINUTE + 15 * MINUTE, endedAt: null });
          expect(notices[0]?.blockedPerHour).toBeGreaterThan(10_000);
          expect(notices[0]?.baselinePerHour).toBeLessThan(200);

          await waitFor(() => receiver.received.length > 0 || undefined, 5000, 'the spike notification');
          const sent = JSON.parse(receiver.received[0]?.body ?? '{}') as { event: string; notice: { domain: string } };
          expect(sent).toMatchObject({ event: 'website.attack_spike', notice: { domain: 'attacked.example', kind: 'attack_spike' } });
          expect(receiver.received).toHaveLength(1);
          // Signed with the notification secret the receiver holds, not with the hook secret.
          const [request] = receiver.received;
          if (!request) throw new Error('no spike notification');
          expect(signedWith(request, notifySecretOf(plugin))).toBe(true);
          expect(signedWith(request, TEST_PANEL_SECRET)).toBe(false);
        },
        { WPP_NOTIFY_URL: `${receiver.url}/wpp-events` },
      );
    } finally {
      await receiver.close();
    }
  });

  it('sends a warning with the forecast of when the limit will be reached at the current rate', async () => {
    const receiver = await startReceiver();
    try {
      await withClockedPlugin(
        async ({ plugin, sb, clock }) => {
          await provision(plugin, [['hana', 'warned.example']]);
          plugin.stats.setLimits('global', '', { websiteHits: 10_000 });
          await addTraffic(sb, [{ domain: 'warned.example', hits: 7000 }]);
          await plugin.readDueStatistics();
          // 1,800 hits in the next 15 minutes (2 a second): 8,800 of 10,000, past the 80% warning.
          clock.set(T0 + 15 * MINUTE);
          await addTraffic(sb, [{ domain: 'warned.example', hits: 1800 }]);
          await plugin.readDueStatistics();

          const stored = plugin.schedule.get('warned.example')?.limitReachedAt as number;
          // 1,200 hits left at 2 a second: 10 minutes.
          expect(stored).toBe(clock.now() + 10 * MINUTE);
          await waitFor(() => receiver.received.length > 0 || undefined, 5000, 'the warning notification');
          const sent = JSON.parse(receiver.received[0]?.body ?? '{}') as { event: string; action: { action: string; forecastAt: number } };
          expect(sent).toMatchObject({
            event: 'enforcement.action',
            action: { action: 'warning', domain: 'warned.example', forecastAt: stored },
          });
        },
        { WPP_NOTIFY_URL: `${receiver.url}/wpp-events` },
      );
    } finally {
      await receiver.close();
    }
  });

  it('stays correct through a counter reset, failed reads, a held lock, a stop and a removed website', async () => {
    await withClockedPlugin(async ({ plugin, sb, clock }) => {
      await provision(plugin, [
        ['gina', 'g1.example'],
        ['gina', 'g2.example'],
      ]);
      await addTraffic(sb, [
        { domain: 'g1.example', hits: 500 },
        { domain: 'g2.example', hits: 100 },
      ]);
      expect(await plugin.readDueStatistics()).toMatchObject({ read: 2, failed: 0 });
      const usage = (domain: string) => plugin.stats.websiteUsage(domain, Date.parse('2026-11-01T00:00:00Z'));

      // A provider-side counter reset: the new counts are hits, never negative traffic.
      await sb.control('POST', '/_sandbox/websites/g1.example/counters/reset');
      await addTraffic(sb, [{ domain: 'g1.example', hits: 50 }]);
      clock.set(T0 + 15 * MINUTE);
      expect(await plugin.readDueStatistics()).toMatchObject({ read: 2, failed: 0 });
      expect(usage('g1.example')).toBe(550);

      // Failed reads are recorded and tried again a minute later, not after the website's usual gap.
      plugin.schedule.markDue(['g1.example', 'g2.example'], clock.now());
      await sb.control('POST', '/_sandbox/faults', { mode: 'error' });
      expect(await plugin.readDueStatistics()).toMatchObject({ read: 0, failed: 2 });
      expect(plugin.schedule.get('g1.example')?.nextReadAt).toBe(clock.now() + MINUTE);
      expect(plugin.stats.recentRuns('sync-stats')[0]).toMatchObject({ status: 'failed', websitesFailed: 2 });
      await sb.control('POST', '/_sandbox/faults', { mode: 'none' });

      // Another process's sync holds the lock: the tick is skipped and reads nothing.
      const held = plugin.stats.takeLock('sync-stats', 60_000);
      if (!held.taken) throw new Error('the lock should be free');
      clock.set(T0 + 16 * MINUTE);
      expect(await plugin.readDueStatistics()).toMatchObject({ skipped: true, read: 0 });
      held.lock.release();
      expect(await plugin.readDueStatistics()).toMatchObject({ skipped: false, read: 2, failed: 0 });

      // Stopped: a tick whose reads are slow stops at the signal, keeps what it read, frees the lock.
      plugin.schedule.markDue(['g1.example', 'g2.example'], clock.now());
      await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 3000 });
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 200);
      const stopped = await plugin.readDueStatistics(stop.signal);
      expect(stopped).toMatchObject({ stopped: true, read: 0 });
      expect(plugin.stats.recentRuns('sync-stats')[0]?.status).toBe('stopped');
      await sb.control('POST', '/_sandbox/faults', { mode: 'none' });
      expect(plugin.stats.takeLock('sync-stats', 1000).taken).toBe(true);

      // A removed website is parked: never read again, whatever marks it due.
      await plugin.postEvents([{ type: 'domain.removed', account: 'gina', domain: 'g2.example' }]);
      await plugin.idle();
      plugin.schedule.markDue(['g2.example'], clock.now());
      clock.set(T0 + 20 * MINUTE);
      const after = await plugin.readDueStatistics();
      expect(after.read + after.failed).toBeLessThanOrEqual(1);
      expect(plugin.schedule.get('g2.example')?.nextReadAt).toBe(Number.MAX_SAFE_INTEGER);
      expect(plugin.schedule.dueCount(clock.now() + 24 * 60 * MINUTE)).toBe(1);
    });
  });
});

describe('wpp sync-stats --due', () => {
  it('runs one tick of the adaptive sync beside wpp serve: the websites due read and their accounts enforced, then nothing is due', async () => {
    await withPlugin(async (plugin, sb) => {
      await provision(plugin, [
        ['hana', 'h1.example'],
        ['ivan', 'i1.example'],
      ]);
      plugin.stats.setLimits('global', '', { websiteHits: 100 });
      await addTraffic(sb, [
        { domain: 'h1.example', hits: 500 },
        { domain: 'i1.example', hits: 50 },
      ]);
      const env = testEnv(plugin.dataDir, sb);
      const tick = await runWpp(['sync-stats', '--due'], { env });
      expect(tick.stdout).toMatch(/^statistics: 2 of 2 due websites read, 0 failed, 1 paused, 0 attack spikes, in [\d.]+ s \(run \d+\)$/m);
      expect(tick.code).toBe(0);
      expect(plugin.accounts.getWebsite('h1.example')).toMatchObject({ pausedBy: 'enforcement' });
      expect(plugin.stats.recentRuns('sync-stats')[0]).toMatchObject({ status: 'ok', websitesRead: 2 });

      // Both were just read: the next tick finds nothing due.
      const again = await runWpp(['sync-stats', '--due'], { env });
      expect(again.stdout).toMatch(/^statistics: 0 of 0 due websites read/m);
      expect(again.code).toBe(0);

      const both = await runWpp(['sync-stats', '--due', '--no-enforce'], { env });
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('--due enforces the accounts it read');
    });
  }, 30_000);
});
