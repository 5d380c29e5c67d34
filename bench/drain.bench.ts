/**
 * How fast the worker provisions: `n` `domain.added` events spread over `accounts` panel
 * accounts are ingested first (not timed, straight into the plugin's jobs table), then the
 * plugin starts in a child process with its worker on (HTTP on for callbacks, scheduler
 * off) against a provider sandbox in another child (rate limit off, DNS never verified,
 * certificates at once). Timed: from just before startPlugin until every job is done.
 * Then every job must be done (none dead) and the sandbox must hold `n` websites.
 *
 * per_second: websites provisioned per second. p99_ms: p99 of per-job run time, claim to
 * done, from the jobs table: a trigger added to the bench's own database records each
 * job's claim time (updated_at when it turns running); finished_at is its done time (ms).
 * peak_rss_mb: the plugin process's peak RSS (VmHWM). Medians of `rounds` rounds, each with
 * a fresh sandbox and plugin database.
 *
 *   npm run bench -- drain [--n 5000] [--accounts 50] [--concurrency 8] [--rounds 3] [--cpu-prof DIR]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { ingestEvents } from '../src/core/ingest.js';
import { createJobsRepo } from '../src/db/jobs.repo.js';
import { openPluginDatabase } from '../src/db/plugin-database.js';
import { finishEvent, type PanelEvent } from '../src/panel/events.js';
import { cpuSeconds, peakRssMb, startChild } from './lib/proc.js';
import { median, percentile, round1 } from './lib/stats.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

const SECRET = 'bench-panel-secret-0123456789abcdef';
const CHILD = new URL('./lib/child.ts', import.meta.url).pathname;

interface RoundResult {
  perSecond: number;
  seconds: number;
  p99: number;
  p50: number;
  peakRss: number | null;
  sandboxPeakRss: number | null;
  cpu: string;
}

async function runRound(
  round: number,
  n: number,
  accounts: number,
  concurrency: number,
  cpuProf: string | undefined,
): Promise<RoundResult> {
  const dir = createTempDir('wpp-bench-drain-');
  const sandboxDir = join(dir, 'sandbox');
  const pluginDir = join(dir, 'plugin');
  const sandbox = await startChild<{ url: string; partnerKey: string }>(CHILD, ['sandbox', JSON.stringify({ dataDir: sandboxDir })]);
  let plugin: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    const env = {
      WPP_DATA_DIR: pluginDir,
      WPP_HOST: '127.0.0.1',
      WPP_PORT: '0',
      WPP_PROVIDER_URL: sandbox.ready.url,
      WPP_PROVIDER_API_KEY: sandbox.ready.partnerKey,
      WPP_PANEL_SECRET: SECRET,
      WPP_ACCOUNT_DOMAIN: 'panel.bench.example',
      WPP_WORKER_CONCURRENCY: String(concurrency),
      WPP_LOG_LEVEL: 'info',
    };

    // Ingest (not timed): the same path as POST /hooks/events after its HTTP layer.
    const db = openPluginDatabase(loadConfig(env));
    try {
      const jobs = createJobsRepo(db);
      const tag = `r${round}-${randomUUID().slice(0, 8)}`;
      const occurredAt = new Date().toISOString();
      const events: PanelEvent[] = Array.from({ length: n }, (_, i) => {
        const result = finishEvent('http', {
          id: `${tag}-${i}`,
          type: 'domain.added',
          occurredAt,
          account: `customer${i % accounts}`,
          domain: `site-${i}.${tag}.bench.example`,
          ip: '203.0.113.10',
        });
        if (!result.success) throw new Error(`bad bench event: ${result.error.message}`);
        return result.data;
      });
      for (let i = 0; i < events.length; i += 100) ingestEvents(jobs, events.slice(i, i + 100), 10);
      // Bench-only bookkeeping in this throwaway database: when each job was claimed.
      db.exec(`
        CREATE TABLE bench_claims (job_id INTEGER PRIMARY KEY, claimed_at INTEGER NOT NULL);
        CREATE TRIGGER bench_claim AFTER UPDATE OF state ON jobs
          WHEN NEW.state = 'running' AND OLD.state = 'pending'
          BEGIN INSERT OR REPLACE INTO bench_claims (job_id, claimed_at) VALUES (NEW.id, NEW.updated_at); END;`);
    } finally {
      db.close();
    }

    const sandboxCpu0 = cpuSeconds(sandbox.pid) ?? 0;
    plugin = await startChild(CHILD, ['plugin', JSON.stringify({ worker: true, waitForJobs: n })], {
      env,
      stderr: join(dir, 'plugin.log'),
      nodeFlags: cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [],
    });
    const result = await plugin.nextMessage<{ seconds: number; done: number; dead: number }>(600_000);
    const pluginCpu = cpuSeconds(plugin.pid) ?? 0;
    const sandboxCpu = (cpuSeconds(sandbox.pid) ?? 0) - sandboxCpu0;
    const peakRss = peakRssMb(plugin.pid);
    await plugin.stop();

    const check = openPluginDatabase(loadConfig(env));
    let durations: number[];
    try {
      // Besides the events, the plugin may queue its own jobs (server.register with WPP_SERVER_IP).
      const counts = createJobsRepo(check).counts();
      const { events } = check.prepare("SELECT COUNT(*) AS events FROM jobs WHERE kind = 'panel.event' AND state = 'done'").get() as {
        events: number;
      };
      if (events !== n || counts.dead !== 0 || counts.pending + counts.running !== 0) {
        const errors = check
          .prepare('SELECT last_error AS e, COUNT(*) AS c FROM jobs WHERE last_error IS NOT NULL GROUP BY e LIMIT 5')
          .all();
        throw new Error(
          `expected ${n} done panel.event jobs, got ${events} (${JSON.stringify(counts)}); errors: ${JSON.stringify(errors)}`,
        );
      }
      durations = (
        check
          .prepare(
            "SELECT j.finished_at - c.claimed_at AS ms FROM jobs j JOIN bench_claims c ON c.job_id = j.id WHERE j.kind = 'panel.event'",
          )
          .all() as { ms: number }[]
      ).map((row) => row.ms);
      if (durations.length !== n) throw new Error(`claim times recorded for ${durations.length} of ${n} jobs`);
    } finally {
      check.close();
    }

    const response = await fetch(`${sandbox.ready.url}/v1.0/website`, {
      headers: { authorization: `Bearer ${sandbox.ready.partnerKey}`, accept: 'application/json' },
    });
    const websites = (await response.json()) as unknown[];
    if (!response.ok || !Array.isArray(websites) || websites.length !== n) {
      throw new Error(
        `the sandbox holds ${Array.isArray(websites) ? websites.length : '?'} websites (HTTP ${response.status}), expected ${n}`,
      );
    }
    const sandboxPeakRss = peakRssMb(sandbox.pid);
    return {
      perSecond: n / result.seconds,
      seconds: result.seconds,
      p99: percentile(durations, 99),
      p50: percentile(durations, 50),
      peakRss,
      sandboxPeakRss,
      cpu: `plugin ${Math.round((pluginCpu / result.seconds) * 100)}%, sandbox ${Math.round((sandboxCpu / result.seconds) * 100)}% of a core`,
    };
  } finally {
    await plugin?.stop();
    await sandbox.stop();
    removeTempDir(dir);
  }
}

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      n: { type: 'string', default: '5000' },
      accounts: { type: 'string', default: '50' },
      concurrency: { type: 'string', default: '8' },
      rounds: { type: 'string', default: '3' },
      'cpu-prof': { type: 'string' },
    },
  });
  const n = Number(values.n);
  const accounts = Number(values.accounts);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const results: RoundResult[] = [];
  for (let round = 1; round <= rounds; round++) {
    const result = await runRound(round, n, accounts, concurrency, values['cpu-prof']);
    results.push(result);
    console.error(
      `round ${round}: ${n} websites in ${result.seconds.toFixed(2)} s = ${Math.round(result.perSecond)}/s; ` +
        `job p50 ${result.p50} ms, p99 ${result.p99} ms; plugin peak RSS ${result.peakRss} MB (sandbox ${result.sandboxPeakRss} MB); cpu ${result.cpu}`,
    );
  }
  const perSecond = median(results.map((r) => r.perSecond));
  return {
    n,
    accounts,
    concurrency,
    rounds,
    seconds: Math.round((n / perSecond) * 100) / 100,
    per_second: Math.round(perSecond),
    p99_ms: round1(median(results.map((r) => r.p99))),
    p50_ms: round1(median(results.map((r) => r.p50))),
    peak_rss_mb: Math.max(...results.map((r) => r.peakRss ?? 0)),
    sandbox_peak_rss_mb: Math.max(...results.map((r) => r.sandboxPeakRss ?? 0)),
  };
}
