/**
 * One full statistics sync plus one enforcement pass over `websites` websites, against a
 * provider sandbox in its own process (rate limit off, DNS never verified, certificates at
 * once), by the plugin in another process (HTTP, worker and scheduler off; WPP_SYNC_RATE=0).
 *
 * Not timed: the sandbox is seeded with `users` users (default websites / 100) via
 * /v1.0/user, their websites via POST /_sandbox/websites/bulk and each website's cumulative
 * hits via POST /_sandbox/traffic (deterministic: 1% over the global per-website limit,
 * 2% in its warning band, see lib/sync-seed.ts); the plugin's database gets the matching
 * accounts, websites and the global limit straight from this process (so the plugin's peak
 * RSS is the sync's, not the seeding's).
 *
 * Then, before the sync and in the same run, `raw_per_second`: a plain keep-alive node:http
 * client (lib/load.ts), `concurrency` at a time, `raw-n` GET /v1.0/website/{domain}/statistics
 * over the seeded domains with the partner key; median of `raw-rounds` rounds after a
 * warm-up. Then the plugin child runs the sync and the enforcement pass and reports.
 *
 * seconds: sync + enforcement wall time (inside the plugin process, from just before
 * syncStatistics to just after enforceLimits). per_second: websites / sync seconds. ratio:
 * per_second / raw_per_second. peak_rss_mb: the plugin process's VmHWM (sandbox: its own).
 * The run fails unless every website was read, none failed, usage adds up to the seeded
 * hits and enforcement paused exactly the websites over the limit.
 *
 *   npm run bench -- sync [--websites 10000] [--users N] [--limit 100000] [--raw-n 20000]
 *                         [--raw-rounds 3] [--concurrency 32] [--sync-concurrency N] [--cpu-prof DIR]
 *                         [--plugin-node-flags=--max-semi-space-size=4]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { openPluginDatabase } from '../src/db/plugin-database.js';
import { createAgent, runLoad, type PreparedRequest } from './lib/load.js';
import { buildDist, cpuSeconds, peakRssMb, startChild, type ChildServer } from './lib/proc.js';
import { median, percentileSorted, round1 } from './lib/stats.js';
import { ACCOUNT_DOMAIN, domainOf, expectations, seedPluginDatabase, seedSandbox } from './lib/sync-seed.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

const CHILD = new URL('./lib/child.ts', import.meta.url).pathname;
const SYNC_CHILD = new URL('./lib/sync-child.mjs', import.meta.url).pathname;

interface SyncReport {
  sync_seconds: number;
  enforce_seconds: number;
  sync: { skipped: boolean; read: number; failed: number; seconds: number };
  enforce: { paused: number; resumed: number; warnings: number };
  cpu_sync_seconds: number;
  cpu_enforce_seconds: number;
  rss_before_mb: number | null;
  rss_after_mb: number | null;
  peak_heap_total_mb: number;
  peak_heap_used_mb: number;
  peak_external_mb: number;
  check: { latest_ok: number; latest_failed: number; usage_hits: number; paused_by_enforcement: number; actions: Record<string, number> };
  error?: string;
}

const seconds = (from: number) => (performance.now() - from) / 1000;
const round2 = (value: number) => Math.round(value * 100) / 100;

export async function run(args: string[]) {
  // The plugin child runs the compiled build, as a deployment does: build it first.
  buildDist();
  const { values } = parseArgs({
    args,
    options: {
      websites: { type: 'string', default: '10000' },
      users: { type: 'string' },
      limit: { type: 'string', default: '100000' },
      'raw-n': { type: 'string', default: '20000' },
      'raw-rounds': { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '32' },
      'sync-concurrency': { type: 'string' },
      'cpu-prof': { type: 'string' },
      /** Extra Node flags for the plugin process, space-separated (e.g. "--max-semi-space-size=4"). */
      'plugin-node-flags': { type: 'string' },
    },
  });
  const n = Number(values.websites);
  const users = Math.max(1, Number(values.users ?? Math.round(n / 100)));
  const limit = Number(values.limit);
  const rawN = Number(values['raw-n']);
  const rawRounds = Number(values['raw-rounds']);
  const concurrency = Number(values.concurrency);
  if (!(n > 0 && users <= n && limit > 0 && rawN > 0 && rawRounds > 0 && concurrency > 0)) throw new Error('bad options');

  const dir = createTempDir('wpp-bench-sync-');
  const sandbox = await startChild<{ url: string; partnerKey: string }>(
    CHILD,
    ['sandbox', JSON.stringify({ dataDir: join(dir, 'sandbox') })],
    {
      stderr: join(dir, 'sandbox.log'),
    },
  );
  let plugin: ChildServer<{ pid: number; rss_mb: number }> | undefined;
  const agent = createAgent(concurrency);
  try {
    const { url, partnerKey } = sandbox.ready;
    let t = performance.now();
    const seededUsers = await seedSandbox({ url, partnerKey, n, users, limit });
    console.error(`sandbox (pid ${sandbox.pid}) on ${url}: ${users} users, ${n} websites with hits seeded in ${seconds(t).toFixed(1)} s`);

    const env: Record<string, string> = {
      WPP_DATA_DIR: join(dir, 'plugin'),
      WPP_HOST: '127.0.0.1',
      WPP_PORT: '0',
      WPP_PROVIDER_URL: url,
      WPP_PROVIDER_API_KEY: partnerKey,
      WPP_PANEL_SECRET: 'bench-panel-secret-0123456789abcdef',
      WPP_ACCOUNT_DOMAIN: ACCOUNT_DOMAIN,
      WPP_SERVER_IP: '203.0.113.1',
      WPP_SYNC_RATE: '0',
      WPP_LOG_LEVEL: 'info',
      ...(values['sync-concurrency'] ? { WPP_SYNC_CONCURRENCY: values['sync-concurrency'] } : {}),
    };
    t = performance.now();
    const db = openPluginDatabase(loadConfig(env));
    try {
      seedPluginDatabase(db, { n, users: seededUsers, limit });
    } finally {
      db.close();
    }
    console.error(`plugin database seeded in ${seconds(t).toFixed(1)} s`);

    plugin = await startChild<{ pid: number; rss_mb: number }>(SYNC_CHILD, [], {
      env,
      stderr: join(dir, 'plugin.log'),
      nodeFlags: [
        ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []),
        ...(values['plugin-node-flags']?.split(/\s+/).filter(Boolean) ?? []),
      ],
    });
    console.error(`plugin (pid ${plugin.pid}) ready, RSS ${plugin.ready.rss_mb} MB`);

    // raw_per_second, before the sync: the same endpoint, the same sandbox, a plain client.
    const headers = { authorization: `Bearer ${partnerKey}`, accept: 'application/json' };
    // A stride that is coprime with n walks the seeded domains evenly.
    const stride = [7919, 7907, 7901].find((p) => n % p !== 0) ?? 1;
    const statistics =
      (offset: number) =>
      (i: number): PreparedRequest => ({
        method: 'GET',
        path: `/v1.0/website/${domainOf((offset + i * stride) % n)}/statistics`,
        headers,
      });
    await runLoad({ agent, url, concurrency, requests: statistics(0), n: Math.min(2000, rawN), expect: 200 });
    const raw: number[] = [];
    const rawP99: number[] = [];
    for (let round = 1; round <= rawRounds; round++) {
      const sandboxCpu = cpuSeconds(sandbox.pid) ?? 0;
      const cpu = process.cpuUsage();
      const load = await runLoad({ agent, url, concurrency, requests: statistics(round * 1013), n: rawN, expect: 200 });
      const used = process.cpuUsage(cpu);
      if (load.firstFailure) throw new Error(`raw statistics reads failed: ${JSON.stringify(load.statuses)}; first: ${load.firstFailure}`);
      raw.push(load.perSecond);
      rawP99.push(percentileSorted(load.latencies, 99));
      console.error(
        `raw round ${round}: ${Math.round(load.perSecond)} requests/s, p99 ${round1(rawP99.at(-1) ?? 0)} ms; cpu sandbox ` +
          `${Math.round((((cpuSeconds(sandbox.pid) ?? 0) - sandboxCpu) / load.seconds) * 100)}%, client ${Math.round(((used.user + used.system) / 1e6 / load.seconds) * 100)}% of a core`,
      );
    }
    agent.destroy();
    const rawPerSecond = median(raw);

    const sandboxCpu0 = cpuSeconds(sandbox.pid) ?? 0;
    t = performance.now();
    plugin.send({ run: true });
    const report = await plugin.nextMessage<SyncReport>(900_000);
    const wall = seconds(t);
    const sandboxCpu = (cpuSeconds(sandbox.pid) ?? 0) - sandboxCpu0;
    if (report.error) throw new Error(`the plugin's sync failed: ${report.error} (log: ${join(dir, 'plugin.log')})`);
    const peakRss = peakRssMb(plugin.pid);
    const sandboxPeakRss = peakRssMb(sandbox.pid);
    const total = report.sync_seconds + report.enforce_seconds;
    console.error(
      `sync: ${report.sync.read} read, ${report.sync.failed} failed in ${report.sync_seconds.toFixed(2)} s ` +
        `(its own count ${report.sync.seconds.toFixed(2)} s) = ${Math.round(n / report.sync_seconds)}/s; ` +
        `enforcement ${report.enforce_seconds.toFixed(2)} s: ${JSON.stringify(report.enforce)}; ` +
        `cpu plugin ${Math.round((report.cpu_sync_seconds / report.sync_seconds) * 100)}% during sync, ` +
        `sandbox ${Math.round((sandboxCpu / wall) * 100)}% of a core; plugin RSS ${report.rss_before_mb} -> ${report.rss_after_mb} MB, peak ${peakRss} MB ` +
        `(V8 heap total at most ${report.peak_heap_total_mb} MB, used ${report.peak_heap_used_mb} MB, external ${report.peak_external_mb} MB)`,
    );
    console.error(`check: ${JSON.stringify(report.check)}`);

    const expected = expectations(n, limit);
    const problems: string[] = [];
    if (report.sync.skipped || report.sync.read !== n || report.sync.failed !== 0) {
      problems.push(`read ${report.sync.read} and failed ${report.sync.failed} of ${n}${report.sync.skipped ? ' (skipped)' : ''}`);
    }
    if (report.check.latest_ok !== n) problems.push(`stats_latest holds ${report.check.latest_ok} good reads, expected ${n}`);
    if (report.check.usage_hits !== expected.totalHits)
      problems.push(`usage adds up to ${report.check.usage_hits} hits, seeded ${expected.totalHits}`);
    if (report.enforce.paused !== expected.over || report.check.paused_by_enforcement !== expected.over) {
      problems.push(
        `enforcement paused ${report.enforce.paused} (${report.check.paused_by_enforcement} in the database), expected ${expected.over}`,
      );
    }
    if (problems.length > 0) throw new Error(`the sync bench's checks failed: ${problems.join('; ')}`);
    if (report.enforce.warnings !== expected.warning) {
      console.error(`note: ${report.enforce.warnings} warnings, ${expected.warning} websites seeded in the warning band`);
    }

    const perSecond = n / report.sync_seconds;
    return {
      n,
      websites: n,
      users,
      seconds: round2(total),
      per_second: Math.round(perSecond),
      peak_rss_mb: peakRss,
      // The plugin process's RSS once started, before the sync.
      ready_rss_mb: plugin.ready.rss_mb,
      peak_heap_total_mb: report.peak_heap_total_mb,
      raw_per_second: Math.round(rawPerSecond),
      raw_p99_ms: round1(median(rawP99)),
      ratio: round2(perSecond / rawPerSecond),
      sync_seconds: round2(report.sync_seconds),
      enforce_seconds: round2(report.enforce_seconds),
      paused: report.enforce.paused,
      warnings: report.enforce.warnings,
      plugin_cpu_percent: Math.round((report.cpu_sync_seconds / report.sync_seconds) * 100),
      sandbox_cpu_percent: Math.round((sandboxCpu / wall) * 100),
      sandbox_peak_rss_mb: sandboxPeakRss,
    };
  } finally {
    agent.destroy();
    await plugin?.stop();
    await sandbox.stop();
    removeTempDir(dir);
  }
}
