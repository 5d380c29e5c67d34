/**
 * `node .bench-dist/bench/lib/fleet-child.js <mode> <settings JSON> <sandbox JSON> <folder> [fleet database URL]`: one
 * mode of the fleet bench (lib/fleet-sim.ts) on the servers' databases the parent seeded in
 * the folder; progress on stderr, its report as one JSON line on stdout.
 */
import { MODES, simulateFleet, type FleetSettings, type Mode } from './fleet-sim.js';

const [mode, settings, sandbox, dir, fleetUrl] = process.argv.slice(2);
if (!MODES.includes(mode as Mode)) throw new Error(`unknown mode ${mode}`);
const report = await simulateFleet(
  mode as Mode,
  JSON.parse(settings ?? '{}') as FleetSettings,
  JSON.parse(sandbox ?? '{}') as { url: string; partnerKey: string },
  dir as string,
  fleetUrl,
);
process.stdout.write(`${JSON.stringify(report)}\n`);
