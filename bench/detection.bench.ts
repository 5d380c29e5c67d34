/**
 * How soon a website that crosses its hit limit is paused, at 100,000 websites on a fixed
 * request budget: the adaptive schedule against plain round-robin, on the same traffic.
 *
 * A simulated period on one injected clock: the plugin's `now`, and the clock the traffic is
 * computed for. Each schedule runs on its own: a provider sandbox in its own process (real
 * HTTP on 127.0.0.1), and the plugin's side (core/read-tick.ts and enforcement on a real
 * SQLite file, compiled, plain node) in another, so its peak RSS is the plugin's alone; the
 * two schedules run side by side. This process seeds both beforehand: the sandbox's users and
 * websites with their hits at the start, and the plugin's database as an installation that
 * has been running (every website read once in the last 45 minutes, as a full pass leaves
 * it). Traffic (lib/detection-world.ts: heavy tailed; 1% of websites cross their limit at
 * random times of the window; 0.2% see an attack) goes into the sandbox before each tick
 * (one POST /_sandbox/traffic) for exactly the websites the tick will read, each up to the
 * time of its read, and stops at the website's pause.
 *
 * Every provider request (statistics reads, enforcement's lookups and pauses) moves the clock
 * by 1/rate seconds: the request budget is the clock's own pace. Each simulated minute is one
 * tick, as `wpp serve` runs it:
 *   - adaptive: core/read-tick.ts as scheduled (the websites due within the tick, most
 *     overdue first, at most rate * 55 of them; enforcement on each page just read);
 *   - round-robin: the same tick code given the next rate * 60 websites in domain order,
 *     wrapping around (every website read in turn, at the full rate, enforcing each page).
 * The periodic full enforcement pass is left out of both: it acts on stored usage only.
 *
 * Measured over the crossings of the window: detection latency (crossing to the pause the
 * sandbox received; a website still unpaused at the end counts until the end), hits served
 * over the limit before the pause, requests spent over the whole simulation, peak RSS.
 *
 *   npm run bench -- detection [--websites 100000] [--users N] [--limit 100000] [--rate 40]
 *                              [--window-minutes 120] [--cpu-prof DIR]
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seedRun, TAIL_MS, WARMUP_MS, type Settings, type Strategy, type StrategyReport } from './lib/detection-sim.js';
import { peakRssMb, startChild } from './lib/proc.js';
import { round1 } from './lib/stats.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

const MINUTE = 60_000;
const ROOT = new URL('..', import.meta.url).pathname;
const COMPILED = `${ROOT}.bench-dist`;
const SANDBOX_CHILD = new URL('./lib/child.ts', import.meta.url).pathname;

const settingsFrom = (values: Record<string, string | boolean | undefined>): Settings => {
  const n = Number(values.websites);
  const settings = {
    n,
    users: Number(values.users ?? Math.round(n / 5)),
    limit: Number(values.limit),
    rate: Number(values.rate),
    windowMinutes: Number(values['window-minutes']),
  };
  if (!Object.values(settings).every((value) => Number.isInteger(value) && value > 0) || settings.users > n) throw new Error('bad options');
  return settings;
};

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      websites: { type: 'string', default: '100000' },
      users: { type: 'string' },
      limit: { type: 'string', default: '100000' },
      rate: { type: 'string', default: '40' },
      'window-minutes': { type: 'string', default: '120' },
      /** Writes a CPU profile of each schedule's process into this folder (node --cpu-prof). */
      'cpu-prof': { type: 'string' },
    },
  });
  const settings = settingsFrom(values);
  compile();

  const started = performance.now();
  console.error(`detection: ${settings.n} websites, ${settings.users} accounts, ${settings.rate} requests/s; both schedules side by side`);
  const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
  const [adaptive, roundRobin] = await Promise.all([runChild('adaptive', settings, profile), runChild('round-robin', settings, profile)]);
  return {
    websites: settings.n,
    rate: settings.rate,
    simulated_minutes: (WARMUP_MS + settings.windowMinutes * MINUTE + TAIL_MS) / MINUTE,
    adaptive,
    round_robin: roundRobin,
    p95_ratio: round1(roundRobin.latency_minutes.p95 / Math.max(adaptive.latency_minutes.p95, 1e-9)),
    requests_ratio: Math.round((adaptive.requests / roundRobin.requests) * 1000) / 1000,
    wall_seconds: round1((performance.now() - started) / 1000),
  };
}

/**
 * Compiles src/ and bench/ (tsconfig.bench.json) for the children, which run them with plain
 * node; the migrations sit next to the compiled src/ as they do next to src/.
 */
function compile(): void {
  console.error('compiling src/ and bench/ into .bench-dist/ ...');
  execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.bench.json`], {
    stdio: ['ignore', 2, 2],
  });
  if (!existsSync(`${COMPILED}/migrations`)) symlinkSync(`${ROOT}migrations`, `${COMPILED}/migrations`);
}

/**
 * Runs one schedule: a provider sandbox in its own process (bench/lib/child.ts), and the
 * plugin's side in another (lib/detection-child.ts, compiled; its progress goes to stderr).
 * Returns the schedule's report with the sandbox's peak RSS.
 */
async function runChild(
  strategy: Strategy,
  settings: Settings,
  nodeFlags: string[],
): Promise<StrategyReport & { sandbox_peak_rss_mb: number | null }> {
  const dir = createTempDir(`wpp-bench-detection-sandbox-${strategy}-`);
  const sandbox = await startChild<{ url: string; partnerKey: string }>(SANDBOX_CHILD, [
    'sandbox',
    JSON.stringify({ dataDir: join(dir, 'sandbox') }),
  ]);
  try {
    const started = performance.now();
    const databaseFile = join(dir, 'plugin.sqlite');
    await seedRun(settings, sandbox.ready, databaseFile);
    console.error(`[${strategy}] seeded in ${round1((performance.now() - started) / 1000)} s`);
    const child = spawn(
      process.execPath,
      [
        ...nodeFlags,
        `${COMPILED}/bench/lib/detection-child.js`,
        strategy,
        JSON.stringify(settings),
        JSON.stringify(sandbox.ready),
        databaseFile,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`the ${strategy} run exited with ${code}`);
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as StrategyReport;
    return { ...report, sandbox_peak_rss_mb: peakRssMb(sandbox.pid) };
  } finally {
    await sandbox.stop();
    removeTempDir(dir);
  }
}
