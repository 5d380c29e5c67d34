import { constants as osConstants } from 'node:os';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { loadConfig, type Config } from '../config.js';

/** A mistake in how a command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses `--name value` options (all strings) with a zod schema; one UsageError names every problem. */
export function parseOptions<S extends z.ZodObject>(schema: S, args: string[], flags: string[] = []): z.output<S> {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args,
      options: Object.fromEntries(
        Object.keys(schema.shape).map((name) => [name, { type: flags.includes(name) ? ('boolean' as const) : ('string' as const) }]),
      ),
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const result = schema.safeParse(values);
  if (!result.success) {
    throw new UsageError(result.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('\n'));
  }
  return result.data;
}

export const configFromEnv = (): Config => loadConfig(process.env);

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
