/**
 * How fast the plugin takes panel events in: `n` distinct signed `domain.added` events, one
 * per POST /hooks/events, `concurrency` at a time over keep-alive connections, against the
 * plugin serving HTTP in a child process (worker and scheduler off: ingest only, not
 * provisioning). In the same run and under the same load, `GET /healthz` on the same server
 * gives `raw_per_second`, what express answers on this machine, so `ratio` reads ingest as a
 * share of that. Every answer must be 202 and the jobs table must hold every event.
 * Medians of `rounds` rounds; peak_rss_mb is the server child's peak RSS (VmHWM).
 *
 *   npm run bench -- ingest [--n 20000] [--concurrency 32] [--rounds 3] [--raw-n 20000] [--cpu-prof DIR]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { signBody } from '../src/core/signature.js';
import { createAgent, runLoad, type PreparedRequest } from './lib/load.js';
import { cpuSeconds, peakRssMb, startChild } from './lib/proc.js';
import { median, percentileSorted, round1 } from './lib/stats.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

const SECRET = 'bench-panel-secret-0123456789abcdef';
const CHILD = new URL('./lib/child.ts', import.meta.url).pathname;

function eventRequests(prefix: string, n: number): PreparedRequest[] {
  const occurredAt = new Date().toISOString();
  return Array.from({ length: n }, (_, i) => {
    const body = Buffer.from(
      JSON.stringify({
        id: `${prefix}-${i}`,
        type: 'domain.added',
        occurredAt,
        account: `customer${i % 500}`,
        domain: `site-${i}.${prefix}.bench.example`,
        ip: '203.0.113.10',
      }),
    );
    return {
      method: 'POST',
      path: '/hooks/events',
      headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-wpp-signature': signBody(body, SECRET) },
      body,
    };
  });
}

const HEALTHZ: PreparedRequest = { method: 'GET', path: '/healthz', headers: {} };

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      n: { type: 'string', default: '20000' },
      'raw-n': { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '32' },
      rounds: { type: 'string', default: '3' },
      'cpu-prof': { type: 'string' },
    },
  });
  const n = Number(values.n);
  const rawN = Number(values['raw-n']);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const dataDir = createTempDir('wpp-bench-ingest-');
  const server = await startChild<{ url: string }>(CHILD, ['plugin', JSON.stringify({ worker: false })], {
    nodeFlags: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [],
    env: {
      WPP_DATA_DIR: dataDir,
      WPP_HOST: '127.0.0.1',
      WPP_PORT: '0',
      // The embedded sandbox (never called: the worker is off), on a free port.
      WPP_PROVIDER_URL: '',
      WPP_SANDBOX_PORT: '0',
      WPP_PANEL_SECRET: SECRET,
      WPP_ACCOUNT_DOMAIN: 'panel.bench.example',
      WPP_LOG_LEVEL: 'info',
    },
  });
  const agent = createAgent(concurrency);
  const db = new Database(join(dataDir, 'plugin.sqlite'), { readonly: true });
  const countEvents = db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'panel.event' AND state = 'pending'");
  const url = server.ready.url;
  try {
    console.error(`plugin (pid ${server.pid}) on ${url}; warming up`);
    await runLoad({ agent, url, concurrency, requests: () => HEALTHZ, n: 2000, expect: 200 });
    await runLoad({ agent, url, concurrency, requests: eventRequests(`warm-${randomUUID().slice(0, 8)}`, 2000), n: 2000, expect: 202 });

    const raw: number[] = [];
    const perSecond: number[] = [];
    const p99s: number[] = [];
    const rawP99s: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const requests = eventRequests(`r${round}-${randomUUID().slice(0, 8)}`, n);
      const before = (countEvents.get() as { n: number }).n;

      const cpu = () => ({ server: cpuSeconds(server.pid) ?? 0, generator: process.cpuUsage() });
      const cpu0 = cpu();
      const healthz = await runLoad({ agent, url, concurrency, requests: () => HEALTHZ, n: rawN, expect: 200 });
      const cpu1 = cpu();
      if (healthz.firstFailure) throw new Error(`GET /healthz failed: ${healthz.firstFailure}`);
      const ingest = await runLoad({ agent, url, concurrency, requests, n, expect: 202, timeoutMs: 600_000 });
      const cpu2 = cpu();
      // CPU used per second of each phase (100% = one core), to see which side limits the rate.
      const share = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>, seconds: number) => {
        const generator = (b.generator.user - a.generator.user + b.generator.system - a.generator.system) / 1e6;
        return `server ${Math.round(((b.server - a.server) / seconds) * 100)}%, generator ${Math.round((generator / seconds) * 100)}% of a core`;
      };
      console.error(`  cpu during healthz: ${share(cpu0, cpu1, healthz.seconds)}; during ingest: ${share(cpu1, cpu2, ingest.seconds)}`);
      const failures = n - (ingest.statuses[202] ?? 0);
      if (failures > 0)
        throw new Error(
          `${failures} of ${n} events were not answered 202 (${JSON.stringify(ingest.statuses)}); first: ${ingest.firstFailure}`,
        );
      const stored = (countEvents.get() as { n: number }).n - before;
      if (stored !== n) throw new Error(`the jobs table holds ${stored} new panel.event jobs, expected ${n}`);

      raw.push(healthz.perSecond);
      rawP99s.push(percentileSorted(healthz.latencies, 99));
      perSecond.push(ingest.perSecond);
      p99s.push(percentileSorted(ingest.latencies, 99));
      console.error(
        `round ${round}: healthz ${Math.round(healthz.perSecond)}/s (p99 ${round1(rawP99s.at(-1) ?? 0)} ms), ` +
          `ingest ${Math.round(ingest.perSecond)} events/s (p99 ${round1(p99s.at(-1) ?? 0)} ms, ratio ${(ingest.perSecond / healthz.perSecond).toFixed(2)}), ${stored} jobs stored`,
      );
    }
    const perSecondMedian = median(perSecond);
    const rawMedian = median(raw);
    const peak = peakRssMb(server.pid);
    return {
      n,
      concurrency,
      rounds,
      seconds: Math.round((n / perSecondMedian) * 100) / 100,
      per_second: Math.round(perSecondMedian),
      p99_ms: round1(median(p99s)),
      peak_rss_mb: peak,
      raw_per_second: Math.round(rawMedian),
      raw_p99_ms: round1(median(rawP99s)),
      ratio: Math.round((perSecondMedian / rawMedian) * 100) / 100,
      // Per-round ratios: both rates of one round share the machine's state of that moment.
      round_ratios: perSecond.map((rate, i) => Math.round((rate / (raw[i] ?? 1)) * 100) / 100),
    };
  } finally {
    agent.destroy();
    db.close();
    await server.stop();
    removeTempDir(dataDir);
  }
}
