import { z } from 'zod';
import { startPlugin } from '../main.js';
import { configAndLoggerFromEnv, parseOptions, stopOnSignal } from './shared.js';

export const serveUsage = `  serve                      the plugin: HTTP server (hooks, callbacks), job worker and scheduler;
                             with the embedded provider sandbox when WPP_PROVIDER_URL is unset`;

export async function runServe(args: string[]): Promise<void> {
  parseOptions(z.object({}), args);
  const { config, logger } = configAndLoggerFromEnv();
  const plugin = await startPlugin({ config, role: 'serve', logger });
  // Before saying it listens: a supervisor may stop it as soon as it reads that.
  stopOnSignal(plugin);
  console.log(`Plugin listening on ${plugin.url} (data: ${config.dataDir})`);
  if (plugin.sandbox) {
    console.log(`Provider: embedded sandbox at ${plugin.sandbox.url} (set WPP_PROVIDER_URL to use a real provider)`);
    console.log(`Sandbox partner key: ${plugin.sandbox.partnerKey}`);
  }
}
