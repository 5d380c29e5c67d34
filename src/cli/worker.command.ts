import { Command } from 'commander';
import { startPlugin } from '../main.js';
import { configAndLoggerFromEnv, stopOnSignal } from './shared.js';

/** The worker role: the composition root without the HTTP server and the schedule. */
async function runWorker(options: { once?: boolean }): Promise<void> {
  const { config, logger } = configAndLoggerFromEnv();
  const plugin = await startPlugin({ config, role: 'worker', logger, worker: !options.once });
  if (!options.once) {
    console.error('worker running; SIGTERM stops it after the jobs in flight');
    stopOnSignal(plugin);
    return;
  }
  try {
    const result = await plugin.drain();
    console.log(`drained: ${result.done} done, ${result.failed} retried later, ${result.dead} dead; ${JSON.stringify(plugin.jobCounts())}`);
  } finally {
    await plugin.close();
  }
}

export const workerCommand = () =>
  new Command('worker')
    .description('run the job worker alone, until SIGTERM')
    .option('--once', 'drain the due jobs, then exit')
    .action(runWorker);
