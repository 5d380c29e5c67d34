import { Command } from 'commander';
import { startPlugin } from '../main.js';
import { launchUrl } from './launch-url.command.js';
import { configAndLoggerFromEnv, stopOnSignal } from './shared.js';

async function runServe(): Promise<void> {
  const { config, logger } = configAndLoggerFromEnv();
  const plugin = await startPlugin({ config, role: 'serve', logger });
  // Before saying it listens: a supervisor may stop it as soon as it reads that.
  stopOnSignal(plugin);
  console.log(`Plugin listening on ${plugin.url} (data: ${config.dataDir})`);
  if (plugin.sandbox) {
    console.log(`Provider: embedded sandbox at ${plugin.sandbox.url} (set WPP_PROVIDER_URL to use a real provider)`);
    console.log(`Sandbox partner key: ${plugin.sandbox.partnerKey}`);
    // A newcomer's way in: the admin pages, with the demo panel (sandbox mode only).
    const admin = launchUrl(
      { ...config, publicUrl: config.publicUrl ?? plugin.url },
      { role: 'admin', admin: 'admin', panel: 'demo' },
      { now: Date.now(), sandbox: true },
    );
    console.log(`Admin pages (link valid 15 minutes, once; \`npx wpp launch-url --admin NAME\` prints a fresh one):\n  ${admin.url}`);
  }
}

export const serveCommand = () =>
  new Command('serve')
    .description(
      'run the plugin: HTTP server (hooks, callbacks), job worker and scheduler; with the embedded provider sandbox when WPP_PROVIDER_URL is unset',
    )
    .action(runServe);
