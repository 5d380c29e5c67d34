import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { z } from 'zod';
import { startSandbox } from '../sandbox/server.js';
import { parseOptions, standaloneConfigFromEnv, stopOnSignal } from './shared.js';

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

export const sandboxUsage = `  sandbox [options]          run the provider sandbox alone and print its partner key
      --port N               listen port (default 8080; 0 picks a free one)
      --host H               listen address (default 127.0.0.1)
      --data DIR             data folder (default $WPP_DATA_DIR/sandbox, or ./data/sandbox)
      --dns MODE             simulated (default, offline) | system
      --dns-delay S|never    seconds until a new website's DNS counts as verified (default 2)
      --cert-delay S         seconds an ACME certificate takes (default 5)
      --rate-limit N         requests per second per API key, 0 for none (default 50)
      --domain-limit N       domain limit of each new user (default none)
      --traffic N            background hits per second over online websites (default 0)`;

export async function runSandbox(args: string[]): Promise<void> {
  const options = parseOptions(sandboxArgsSchema, args);
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
