import { constants as osConstants, userInfo } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { z } from 'zod';
import { loadConfig, readMachineFacts, type Config, type StandaloneConfig } from '../config.js';
import { createLogger } from '../logger.js';

/** A mistake in how a command was called: printed with a pointer to its --help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Option values by the option's name as typed (`website-hits`), as the zod schemas read them. */
export type OptionValues = Record<string, unknown>;

/**
 * Makes one command strict the way every `wpp` command is: commander's errors (unknown option,
 * missing value, extra argument) become UsageErrors instead of exiting, and an option given
 * twice is refused. Commander keeps the last of a repeat, and `--website-hits 5 --website-hits 6`
 * is a typo to point out, not a choice to guess. Help still ends with exit code 0. Call it once
 * the command's options are declared.
 */
export function strictOptions(command: Command): Command {
  const given = new Map<string, (string | undefined)[]>();
  for (const option of command.options) {
    command.on(`option:${option.name()}`, (value?: string) => given.set(option.name(), [...(given.get(option.name()) ?? []), value]));
  }
  command.hook('preAction', () => {
    const repeated = [...given].filter(([, values]) => values.length > 1);
    given.clear();
    if (repeated.length === 0) return;
    throw new UsageError(
      repeated
        // A flag's occurrences carry no value.
        .map(
          ([name, values]) =>
            `--${name} given ${values.length} times${values[0] === undefined ? '' : ` (${values.map((v) => JSON.stringify(v)).join(', ')})`}: give each option once`,
        )
        .join('\n'),
    );
  });
  // The caller prints the message (`wpp: ...`), once.
  command.configureOutput({ outputError: () => undefined });
  return command.exitOverride((error) => {
    if (error.exitCode === 0 || error.code === 'commander.help') throw error;
    throw new UsageError(error.message.replace(/^error: /, ''));
  });
}

/** Every option of `command` by the name it is typed with; flags are true or undefined. */
/** `--root DIR` of the commands that write a system (install, uninstall, rollback): every system path goes below this absolute folder. */
export const rootFolderOption = z
  .string()
  .refine(isAbsolute, 'give an absolute folder')
  .transform((dir) => resolve(dir))
  .optional();

export const optionValues = (command: Command): OptionValues =>
  Object.fromEntries(command.options.map((option) => [option.name(), command.getOptionValue(option.attributeName())]));

/** One line per zod issue, named by its option: `--anchor-day: ...`. */
export const optionProblems = (error: z.ZodError): string[] => error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`);

/** Checks option values with a zod schema; one UsageError names every problem. */
export function validateOptions<S extends z.ZodObject>(schema: S, values: OptionValues): z.output<S> {
  const result = schema.safeParse(values);
  if (!result.success) throw new UsageError(optionProblems(result.error).join('\n'));
  return result.data;
}

const printWarnings = <C extends StandaloneConfig>(config: C): C => {
  for (const warning of config.warnings) console.error(`wpp: warning: ${warning}`);
  return config;
};

/** The plugin's configuration from the environment; its warnings (unknown WPP_* variables) printed once to stderr. */
export const configFromEnv = (): Config => printWarnings(loadConfig(process.env));

/** The same for commands that never reach the provider (`standalone` in loadConfig). */
export const standaloneConfigFromEnv = (): StandaloneConfig => printWarnings(loadConfig(process.env, readMachineFacts(), 'standalone'));

/** For the long-running serve and worker: the configuration and the logger its warnings went to, once, with the rest of the log. */
export function configAndLoggerFromEnv(): { config: Config; logger: Logger } {
  const config = loadConfig(process.env);
  const logger = createLogger(config);
  for (const warning of config.warnings) logger.warn(warning);
  return { config, logger };
}

/** For long-running commands (serve, worker): closes `running` on SIGINT/SIGTERM and exits 0; a second signal exits at once. */
export function stopOnSignal(running: { close(): Promise<void> }, log: (line: string) => void = (line) => console.error(line)): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`${signal} received, stopping`);
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** The reason a one-shot command's work was aborted: the signal the process received. */
export class StoppedBySignal extends Error {
  override readonly name = 'StoppedBySignal';
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(`stopped by ${signal}`);
  }
  /** 128 + the signal's number, as shells report a process a signal ended: 130 SIGINT, 143 SIGTERM. */
  get exitCode(): number {
    return 128 + osConstants.signals[this.signal];
  }
}

/**
 * For one-shot commands: the first SIGINT/SIGTERM aborts `controller` with StoppedBySignal,
 * so the command stops its work, stores what it did, says what happened and returns its exit
 * code; a second one exits at once (128 + signal). Returns a function removing the handlers.
 */
export function abortOnSignal(controller: AbortController, log: (line: string) => void = (line) => console.error(line)): () => void {
  const handle = (signal: 'SIGINT' | 'SIGTERM') => {
    const reason = new StoppedBySignal(signal);
    if (controller.signal.aborted) process.exit(reason.exitCode);
    log(`${signal} received, stopping (send it again to exit at once)`);
    controller.abort(reason);
  };
  const onInt = () => handle('SIGINT');
  const onTerm = () => handle('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}

/** Who a CLI change is recorded as: the operating-system user running `wpp`. */
export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    // A uid without a passwd entry (some containers) has no name.
    return 'cli';
  }
}
