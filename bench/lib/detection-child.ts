/**
 * `node .bench-dist/bench/lib/detection-child.js <adaptive|round-robin> <settings JSON> <sandbox JSON> <database file>`:
 * one schedule of the detection bench against the sandbox {url, partnerKey} (its own process)
 * on the plugin database the parent seeded; progress on stderr, its report as one JSON line on stdout.
 */
import { simulate, type Settings, type Strategy } from './detection-sim.js';

const [strategy, settings, sandbox, databaseFile] = process.argv.slice(2);
if (strategy !== 'adaptive' && strategy !== 'round-robin') throw new Error(`unknown schedule ${strategy}`);
const report = await simulate(
  strategy as Strategy,
  JSON.parse(settings ?? '{}') as Settings,
  JSON.parse(sandbox ?? '{}') as { url: string; partnerKey: string },
  databaseFile as string,
);
process.stdout.write(`${JSON.stringify(report)}\n`);
