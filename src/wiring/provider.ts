/**
 * The composition root's provider: the configured one, or the embedded sandbox, which only the
 * serving process starts. Starting the sandbox is the wiring's choice: the provider client
 * itself (src/provider) never knows its test double.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import { readPartnerKey, startSandbox, type RunningSandbox } from '../sandbox/server.js';
import { createProviderClient, type ProviderClient, type ProviderClientOptions } from '../provider/index.js';

export interface ConnectedProvider {
  provider: ProviderClient;
  /** The embedded sandbox, when this process started it. */
  sandbox: RunningSandbox | undefined;
  /** Where the provider answers. */
  url: string;
}

/**
 * The provider client: for the configured provider, or else the embedded sandbox, which
 * the serving process starts (and stops at close) and other processes reach with the
 * partner key it stored in its data folder.
 */
export async function connectProvider(
  config: Config,
  options: {
    startsSandbox: boolean;
    logger: Logger;
    life: Lifecycle;
    client?: Pick<ProviderClientOptions, 'timeoutMs' | 'retry'>;
    /** Told of every provider attempt (the metrics). */
    onAttempt?: ProviderClientOptions['onAttempt'];
    /** The server's request budget (wiring/pacer.ts) every call takes a token from. */
    budget?: ProviderClientOptions['budget'];
  },
): Promise<ConnectedProvider> {
  const { logger, life } = options;
  let sandbox: RunningSandbox | undefined;
  let target: { url: string; apiKey: string };
  if (!('embedded' in config.provider) || !options.startsSandbox) {
    target = providerTarget(config);
  } else {
    const started = await startSandbox({
      dataDir: join(config.dataDir, 'sandbox'),
      host: config.host,
      port: config.provider.sandboxPort,
      listenSetting: 'WPP_HOST and WPP_SANDBOX_PORT',
      logger: logger.child({ component: 'sandbox' }),
    });
    life.onClose(() => started.close());
    sandbox = started;
    target = { url: started.url, apiKey: started.partnerKey };
  }
  const provider = createProviderClient({
    baseUrl: target.url,
    apiKey: target.apiKey,
    logger: logger.child({ component: 'provider' }),
    ...options.client,
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
    // Closing stops the calls still waiting for a token instead of waiting for each in turn.
    signal: life.signal,
  });
  return { provider, sandbox, url: target.url };
}

/**
 * Where a process that does not start the embedded sandbox reaches the provider, and with
 * which key: the configured provider, or the sandbox `wpp serve` runs, with the partner key
 * it stored in its data folder.
 */
export function providerTarget(config: Config): { url: string; apiKey: string } {
  if (!('embedded' in config.provider)) return config.provider;
  return { url: httpUrl(config.host, config.provider.sandboxPort), apiKey: readPartnerKey(join(config.dataDir, 'sandbox')) };
}

/** `http://host:port`, with an IPv6 host in brackets. */
export const httpUrl = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
