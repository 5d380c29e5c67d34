import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { z } from 'zod';
import { startSandbox, type RunningSandbox } from './sandbox/server.js';

const USAGE = `Usage: wpp <command> [options]

Commands:
  serve                      run the plugin (today: the provider sandbox, on WPP_HOST:WPP_PORT)
  sandbox [options]          run the provider sandbox alone and print its partner key
      --port N               listen port (default 8080; 0 picks a free one)
      --host H               listen address (default 127.0.0.1)
      --data DIR             data folder (default $WPP_DATA_DIR/sandbox, or ./data/sandbox)
      --dns MODE             simulated (default, offline) | system
      --dns-delay S|never    seconds until a new website's DNS counts as verified (default 2)
      --cert-delay S         seconds an ACME certificate takes (default 5)
      --rate-limit N         requests per second per API key, 0 for none (default 50)
      --domain-limit N       domain limit of each new user (default none)
      --traffic N            background hits per second over online websites (default 0)
  help                       this text
`;

const seconds = z.coerce.number().min(0).max(86_400);
const sandboxArgsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65_535).default(8080),
  host: z.string().min(1).default('127.0.0.1'),
  data: z.string().min(1).optional(),
  dns: z.enum(['simulated', 'system']).default('simulated'),
  'dns-delay': z.union([z.literal('never'), seconds]).default(2),
  'cert-delay': seconds.default(5),
  'rate-limit': z.coerce.number().int().min(0).default(50),
  'domain-limit': z.coerce.number().int().min(0).optional(),
  traffic: z.coerce.number().min(0).default(0),
});

class UsageError extends Error {
  override readonly name = 'UsageError';
}

function parseOptions<S extends z.ZodType>(schema: S, args: string[], names: string[]): z.output<S> {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args,
      options: Object.fromEntries(names.map((name) => [name, { type: 'string' as const }])),
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

/** Closes `running` on SIGINT/SIGTERM and exits 0; a second signal exits at once. */
function stopOnSignal(running: { close(): Promise<void> }): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.error(`${signal} received, stopping`);
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

function printSandboxBanner(sandbox: RunningSandbox, dataDir: string): void {
  console.log(`Provider sandbox listening on ${sandbox.url} (data: ${dataDir})`);
  console.log(`Partner key: ${sandbox.partnerKey}`);
  console.log(`Try: curl -H "Authorization: Bearer ${sandbox.partnerKey}" ${sandbox.url}/v1.0/user`);
}

async function runSandbox(args: string[]): Promise<void> {
  const options = parseOptions(sandboxArgsSchema, args, Object.keys(sandboxArgsSchema.shape));
  const dataDir = resolve(options.data ?? resolve(process.env.WPP_DATA_DIR ?? 'data', 'sandbox'));
  const sandbox = await startSandbox({
    dataDir,
    host: options.host,
    port: options.port,
    dns: options.dns,
    dnsDelaySeconds: options['dns-delay'] === 'never' ? null : options['dns-delay'],
    certDelaySeconds: options['cert-delay'],
    rateLimitPerSecond: options['rate-limit'],
    defaultDomainLimit: options['domain-limit'] ?? null,
    trafficPerSecond: options.traffic,
    logger: pino({ name: 'sandbox', level: process.env.WPP_LOG_LEVEL ?? 'info' }, pino.destination(2)),
  });
  printSandboxBanner(sandbox, dataDir);
  stopOnSignal(sandbox);
}

async function runServe(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`serve takes no options yet (got ${args.join(' ')})`);
  const port = z.coerce.number().int().min(0).max(65_535).default(8080).parse(process.env.WPP_PORT);
  const host = process.env.WPP_HOST || '127.0.0.1';
  console.log('The plugin itself is not built yet: serving the embedded provider sandbox instead.');
  await runSandbox(['--port', String(port), '--host', host]);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return runServe(rest);
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

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`wpp: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  console.error(`wpp: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
