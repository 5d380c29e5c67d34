import { z } from 'zod';
import { startPlugin } from '../main.js';
import { configAndLoggerFromEnv, parseOptions, stopOnSignal } from './shared.js';

export const workerUsage = `  worker [--once]            run the job worker alone; --once drains the due jobs and exits`;

/** The worker role: the composition root without the HTTP server and the schedule. */
export async function runWorker(args: string[]): Promise<void> {
  const options = parseOptions(z.object({ once: z.boolean().default(false) }), args, ['once']);
  const { config, logger } = configAndLoggerFromEnv();
  const plugin = await startPlugin({ config, role: 'worker', logger, worker: !options.once });
  if (!options.once) {
    console.error('worker running; SIGTERM stops it after the jobs in flight');
    stopOnSignal(plugin);
    return;
  }
  try {
    const result = await plugin.drain();
    console.log(`drained: ${result.done} done, ${result.failed} retried later, ${result.dead} dead; ${JSON.stringify(plugin.jobs.counts())}`);
  } finally {
    await plugin.close();
  }
}
