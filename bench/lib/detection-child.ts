/**
 * `node .bench-dist/bench/lib/detection-child.js <adaptive|round-robin> <settings JSON>`: one
 * schedule of the detection bench; progress on stderr, its report as one JSON line on stdout.
 */
import { simulate, type Settings, type Strategy } from './detection-sim.js';

const [strategy, settings] = process.argv.slice(2);
if (strategy !== 'adaptive' && strategy !== 'round-robin') throw new Error(`unknown schedule ${strategy}`);
const report = await simulate(strategy as Strategy, JSON.parse(settings ?? '{}') as Settings);
process.stdout.write(`${JSON.stringify(report)}\n`);
