import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { paths } from '../paths.js';
import { doctorCommand } from './doctor.command.js';
import { backupCommand, restoreCommand } from './backup.command.js';
import { hookCommand } from './hook.command.js';
import { importCommand } from './import.command.js';
import { installCommand, uninstallCommand } from './install.command.js';
import { jobsCommand } from './jobs.command.js';
import { launchUrlCommand } from './launch-url.command.js';
import { directadminLaunchCommand } from './directadmin-launch.command.js';
import { plansCommand } from './plans.command.js';
import { rollbackCommand } from './rollback.command.js';
import { sandboxCommand } from './sandbox.command.js';
import { serveCommand } from './serve.command.js';
import { enforceCommand, limitsCommand, resumeCommand, syncStatsCommand } from './stats.command.js';
import { strictOptions, UsageError } from './shared.js';
import { workerCommand } from './worker.command.js';

const packageVersion = () => (JSON.parse(readFileSync(`${paths.root}/package.json`, 'utf8')) as { version: string }).version;

/** `wpp` and every command, each with its --help; parsing only, the commands run in their actions. */
export function createProgram(): Command {
  const program = new Command('wpp')
    .usage('<command> [options]')
    .description("Hosting control-panel plugin that puts customers' websites behind a web protection service.")
    .addHelpText('after', '\nConfiguration comes from WPP_* environment variables (docs/configuration.md).')
    // What an installed release is: `/usr/local/lib/wpp/wpp --version` names the version the launcher runs.
    .version(packageVersion(), '-V, --version', 'print the version of this wpp')
    // Options after a subcommand are the subcommand's (`jobs retry --limit 5` is refused, not a list option).
    .enablePositionalOptions();
  for (const command of [
    serveCommand(),
    workerCommand(),
    hookCommand(),
    jobsCommand(),
    syncStatsCommand(),
    enforceCommand(),
    limitsCommand(),
    plansCommand(),
    launchUrlCommand(),
    directadminLaunchCommand(),
    importCommand(),
    resumeCommand(),
    installCommand(),
    backupCommand(),
    restoreCommand(),
    uninstallCommand(),
    rollbackCommand(),
    sandboxCommand(),
    doctorCommand(),
  ]) {
    program.addCommand(command);
  }
  const strict = (command: Command): void => {
    strictOptions(command);
    command.commands.forEach(strict);
  };
  strict(program);
  return program;
}

/** The deepest command `args` names (`hook emit` in `hook emit domain.added ...`), for the pointer to its --help. */
function commandNamed(program: Command, args: string[]): Command {
  let command = program;
  for (const arg of args) {
    const sub = command.commands.find((candidate) => candidate.name() === arg);
    if (!sub) break;
    command = sub;
  }
  return command;
}

const commandPath = (command: Command): string => (command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name());

/**
 * Runs `wpp <args>`: a command sets process.exitCode itself (a server keeps running after its
 * action). Resolves with the exit code when it failed or only showed help: usage errors print
 * `wpp: <problem>` and a pointer to the command's --help, exit code 2; other errors
 * `wpp: <message>`, exit code 1.
 */
export async function runCli(args: string[]): Promise<number | undefined> {
  const program = createProgram();
  try {
    // `wpp` alone shows the help on standard output, as `wpp help` does (commander would print it on standard error, exit 1).
    await program.parseAsync(args.length === 0 ? ['help'] : args, { from: 'user' });
    return undefined;
  } catch (error) {
    // Help, asked for (0) or shown for a command that needs a subcommand (1): already printed.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      console.error(`wpp: ${error.message}\nSee \`${commandPath(commandNamed(program, args))} --help\`.`);
      return 2;
    }
    // Configuration errors already list every bad variable; anything else is reported as is.
    console.error(`wpp: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
