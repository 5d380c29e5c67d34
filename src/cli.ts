import { AppError } from './errors.js';
import { hookUsage, runHook } from './cli/hook.command.js';
import { jobsUsage, runJobs } from './cli/jobs.command.js';
import { runSandbox, sandboxUsage } from './cli/sandbox.command.js';
import { runServe, serveUsage } from './cli/serve.command.js';
import { runEnforce, runLimits, runResume, runSyncStats, statsUsage } from './cli/stats.command.js';
import { UsageError } from './cli/shared.js';
import { runWorker, workerUsage } from './cli/worker.command.js';

const USAGE = `Usage: wpp <command> [options]

Commands:
${serveUsage}
${workerUsage}
${hookUsage}
${jobsUsage}
${statsUsage}
${sandboxUsage}
  help                       this text

Configuration comes from WPP_* environment variables (see README).
`;

async function main(argv: string[]): Promise<number | void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return runServe(rest);
    case 'worker':
      return runWorker(rest);
    case 'hook':
      return runHook(rest);
    case 'jobs':
      return runJobs(rest);
    case 'sync-stats':
      return runSyncStats(rest);
    case 'enforce':
      return runEnforce(rest);
    case 'limits':
      return runLimits(rest);
    case 'resume':
      return runResume(rest);
    case 'sandbox':
      return runSandbox(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`wpp: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    // Configuration errors already list every bad variable; anything else is reported as is.
    console.error(`wpp: ${error instanceof AppError || error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
