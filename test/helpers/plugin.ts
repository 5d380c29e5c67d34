import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { startPlugin, type PluginOptions, type RunningPlugin } from '../../src/main.js';
import { signBody } from '../../src/core/signature.js';
import { readCallbackKey, readNotifySecret } from '../../src/secrets.js';
import { startTestSandbox, type TestSandbox } from './sandbox.js';
import { createTempDir, removeTempDir } from './temp.js';
import { waitFor } from './wait.js';

/** The hook secret of plugins under test (WPP_PANEL_SECRET): it signs their panel events, nothing else. */
export const TEST_PANEL_SECRET = 'test-panel-secret-0123456789abcdef';

/** The notification secret a plugin under test signs with (WPP_NOTIFY_SECRET, else the one generated in its data folder). */
export const notifySecretOf = (plugin: { config: Pick<Config, 'notifySecret' | 'dataDir'> }) => readNotifySecret(plugin.config).value;

/** The callback key of a plugin under test (in its data folder): its callback URL tokens derive from it. */
export const callbackKeyOf = (plugin: { dataDir: string }) => readCallbackKey(plugin.dataDir);

export interface TestPlugin extends RunningPlugin {
  config: Config;
  sandbox: undefined;
  provider: RunningPlugin['provider'];
  /** POSTs a body to /hooks/events, signed with the panel secret unless `signature` is given. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
  postEvents(body: unknown, signature?: string | null): Promise<{ status: number; body: any }>;
  /**
   * Waits until no job is running, due or waiting to be retried: only jobs queued for later
   * (a callback's re-read held back for its window, never attempted) may still wait.
   */
  idle(timeoutMs?: number): Promise<void>;
}

/** The WPP_* environment of a plugin under test: temp data folder, port 0, the given provider. */
export function testEnv(dataDir: string, sandbox: TestSandbox, env: Record<string, string> = {}): Record<string, string> {
  return {
    WPP_DATA_DIR: dataDir,
    WPP_PORT: '0',
    WPP_PROVIDER_URL: sandbox.url,
    WPP_PROVIDER_API_KEY: sandbox.partnerKey,
    WPP_PANEL_SECRET: TEST_PANEL_SECRET,
    WPP_SERVER_IP: '192.0.2.5',
    WPP_SERVER_NAME: 'web1.host.example',
    WPP_ACCOUNT_DOMAIN: 'panel.example',
    WPP_LOG_LEVEL: 'silent',
    ...env,
  };
}

/** Config for a plugin under test, from testEnv. */
export function testConfig(dataDir: string, sandbox: TestSandbox, env: Record<string, string> = {}): Config {
  // No default origin from the test machine: tests say which IP they mean.
  return loadConfig(testEnv(dataDir, sandbox, env), { hostname: 'test-host', primaryIp: undefined });
}

export async function startTestPlugin(
  sandbox: TestSandbox,
  options: { dataDir?: string; env?: Record<string, string> } & Partial<PluginOptions> = {},
): Promise<TestPlugin & { dataDir: string }> {
  const dataDir = options.dataDir ?? createTempDir('wpp-plugin-');
  const config = testConfig(dataDir, sandbox, options.env);
  const plugin = await startPlugin({
    config,
    role: 'serve',
    logger: pino({ level: 'silent' }),
    workerOptions: { pollMs: 20, backoff: { baseMs: 20, maxMs: 200 } },
    // Tests run syncs and reconciliation themselves, when they mean to.
    scheduler: false,
    // Job retries carry the recovery in tests; the client's own retries would only slow them down.
    providerOptions: { timeoutMs: 5000, retry: { limit: 1, baseDelayMs: 10, maxDelayMs: 50 } },
    ...options,
  });
  return {
    ...plugin,
    config,
    dataDir,
    sandbox: undefined,
    async postEvents(body, signature) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const sig = signature === undefined ? signBody(raw, TEST_PANEL_SECRET) : signature;
      if (sig !== null) headers['x-wpp-signature'] = sig;
      const response = await fetch(`${plugin.url}/hooks/events`, { method: 'POST', headers, body: raw });
      return { status: response.status, body: await response.json() };
    },
    async idle(timeoutMs = 10_000) {
      await waitFor(
        () => {
          if (plugin.jobs.counts().running > 0) return false;
          const at = (options.now ?? Date.now)();
          return plugin.jobs.list({ state: 'pending', limit: 10_000 }).every((job) => job.attempts === 0 && job.runAt > at);
        },
        timeoutMs,
        'the job queue to drain',
      );
    },
  };
}

/** A sandbox and a plugin provisioning into it, both on port 0, always stopped and removed. */
export async function withPlugin<T>(
  fn: (plugin: Awaited<ReturnType<typeof startTestPlugin>>, sandbox: TestSandbox) => Promise<T>,
  options: { env?: Record<string, string>; now?: () => number; worker?: boolean } = {},
): Promise<T> {
  const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  const plugin = await startTestPlugin(sandbox, options);
  try {
    return await fn(plugin, sandbox);
  } finally {
    await plugin.close();
    await sandbox.close();
    removeTempDir(plugin.dataDir);
    removeTempDir(sandbox.dataDir);
  }
}

/**
 * A plugin whose provider is the embedded sandbox, as `npm start` without configuration runs
 * it (the demo pages exist), on port 0 with its own data folder; always stopped and removed.
 */
export async function withDemoPlugin<T>(
  fn: (plugin: RunningPlugin & { dataDir: string }) => Promise<T>,
  options: { logger?: Logger } = {},
): Promise<T> {
  const dataDir = createTempDir('wpp-demo-');
  const config = loadConfig(
    {
      WPP_DATA_DIR: dataDir,
      WPP_PORT: '0',
      WPP_SANDBOX_PORT: '0',
      WPP_PANEL_SECRET: TEST_PANEL_SECRET,
      WPP_ACCOUNT_DOMAIN: 'panel.example',
      WPP_LOG_LEVEL: 'silent',
    },
    { hostname: 'test-host', primaryIp: undefined },
  );
  const plugin = await startPlugin({
    config,
    role: 'serve',
    logger: options.logger ?? pino({ level: 'silent' }),
    scheduler: false,
    workerOptions: { pollMs: 20, backoff: { baseMs: 20, maxMs: 200 } },
  });
  try {
    return await fn({ ...plugin, dataDir });
  } finally {
    await plugin.close();
    removeTempDir(dataDir);
  }
}
