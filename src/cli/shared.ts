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

/** Closes `running` on SIGINT/SIGTERM and exits 0; a second signal exits at once. */
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
