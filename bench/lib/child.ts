/**
 * The server side of the benchmarks, run in its own process by proc.ts:
 *
 *   node --import tsx bench/lib/child.ts sandbox '{"dataDir": "..."}'
 *     a provider sandbox (rate limit off, DNS never verified, certificates at once);
 *     prints {"url","partnerKey","pid"}.
 *   node --import tsx bench/lib/child.ts plugin '{"worker": false, "waitForJobs": 0}'
 *     startPlugin with the configuration of the WPP_* environment, scheduler off; prints
 *     {"url","pid"}. With waitForJobs N (worker on) it also prints, once at least N jobs
 *     are done or dead and none is pending or running, {"seconds","done","dead","failed"} counted from just before startPlugin.
 *
 * Both stop when stdin closes (or on SIGTERM), closing cleanly so --cpu-prof is written.
 */
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startPlugin } from '../../src/main.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { stopRequested } from './proc.js';

const [mode, json] = process.argv.slice(2);
const options = JSON.parse(json ?? '{}') as { dataDir?: string; worker?: boolean; waitForJobs?: number };
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

if (mode === 'sandbox') {
  const sandbox = await startSandbox({
    dataDir: options.dataDir as string,
    host: '127.0.0.1',
    port: 0,
    rateLimitPerSecond: 0,
    dnsDelaySeconds: null,
    certDelaySeconds: 0,
    logger: pino({ level: 'warn' }, pino.destination(2)),
  });
  print({ url: sandbox.url, partnerKey: sandbox.partnerKey, pid: process.pid });
  await stopRequested();
  await sandbox.close();
} else if (mode === 'plugin') {
  const config = loadConfig(process.env);
  const started = performance.now();
  const plugin = await startPlugin({ config, role: 'serve', worker: options.worker ?? false, scheduler: false });
  print({ url: plugin.url, pid: process.pid });
  const stop = stopRequested();
  const target = options.waitForJobs ?? 0;
  if (target > 0) {
    // Polls the same counts `wpp jobs` shows; cheap (an index) next to a provider round trip.
    for (;;) {
      const counts = plugin.jobCounts();
      if (counts.done + counts.dead >= target && counts.pending + counts.running === 0) {
        print({ seconds: (performance.now() - started) / 1000, done: counts.done, dead: counts.dead });
        break;
      }
      const stopped = await Promise.race([stop.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20))]);
      if (stopped) break;
    }
  }
  await stop;
  await plugin.close();
} else {
  console.error('usage: child.ts sandbox|plugin JSON');
  process.exit(2);
}
process.exit(0);
