import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { pino } from 'pino';
import { z } from 'zod';
import { startSandbox } from '../sandbox/server.js';
import { optionValues, standaloneConfigFromEnv, stopOnSignal, validateOptions } from './shared.js';

const seconds = z.coerce.number().min(0).max(86_400);
/** The defaults are the options' (commander's), so --help shows them. */
const sandboxArgsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65_535),
  host: z.string().min(1),
  data: z.string().min(1).optional(),
  dns: z.enum(['simulated', 'system']),
  'dns-delay': z.union([z.literal('never'), seconds]),
  'cert-delay': seconds,
  'rate-limit': z.coerce.number().int().min(0),
  'domain-limit': z.coerce.number().int().min(0).optional(),
  traffic: z.coerce.number().min(0),
});

async function runSandbox(options: z.output<typeof sandboxArgsSchema>): Promise<void> {
  const config = standaloneConfigFromEnv();
  const dataDir = resolve(options.data ?? join(config.dataDir, 'sandbox'));
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
    logger: pino({ name: 'sandbox', level: config.logLevel }, pino.destination(2)),
  });
  stopOnSignal(sandbox);
  console.log(`Provider sandbox listening on ${sandbox.url} (data: ${dataDir})`);
  console.log(`Partner key: ${sandbox.partnerKey}`);
  console.log(`Try: curl -H "Authorization: Bearer ${sandbox.partnerKey}" ${sandbox.url}/v1.0/user`);
}

export const sandboxCommand = () =>
  new Command('sandbox')
    .description('run the provider sandbox alone and print its partner key')
    .addOption(new Option('--port <n>', 'listen port; 0 picks a free one').default(8080))
    .addOption(new Option('--host <address>', 'listen address').default('127.0.0.1'))
    .option('--data <dir>', 'data folder (default: $WPP_DATA_DIR/sandbox, or ./data/sandbox)')
    .addOption(new Option('--dns <mode>', 'simulated (offline) or system').default('simulated'))
    .addOption(new Option('--dns-delay <seconds>', "seconds until a new website's DNS counts as verified, or never").default(2))
    .addOption(new Option('--cert-delay <seconds>', 'seconds an ACME certificate takes').default(5))
    .addOption(new Option('--rate-limit <n>', 'requests per second per API key, 0 for none').default(50))
    .option('--domain-limit <n>', 'domain limit of each new user (default: none)')
    .addOption(new Option('--traffic <n>', 'background hits per second over online websites').default(0))
    .action((_options, command: Command) => runSandbox(validateOptions(sandboxArgsSchema, optionValues(command))));
