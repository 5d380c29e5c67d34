import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { startPlugin, type PluginOptions, type RunningPlugin } from '../../src/main.js';
import { createJobQueue } from '../../src/core/job-queue.js';
import { createPluginSettings } from '../../src/core/plugin-settings.js';
import { reconcileWebsites } from '../../src/core/reconcile.js';
import { signBody } from '../../src/core/signature.js';
import { createImportRepo } from '../../src/db/import.repo.js';
import { openDatabase } from '../../src/db/open.js';
import { createProviderClient } from '../../src/provider/index.js';
import { openRepositories } from '../../src/wiring/repositories.js';
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

/** The provider client options of plugins under test, and of the tests' own clients. */
const TEST_PROVIDER_OPTIONS = { timeoutMs: 5000, retry: { limit: 1, baseDelayMs: 10, maxDelayMs: 50 } };

/**
 * What a test looks at beside a running plugin, opened the way an operator would look: a second
 * connection to the plugin's SQLite file in its data folder (WAL and a busy timeout, so it reads
 * what the plugin committed and waits for its write lock: src/db/open.ts) with the repositories
 * on it, and a provider client of the test's own against the same provider. The running plugin
 * keeps nothing of these in memory (the runtime settings are read from the database at every
 * use), so what a test writes here the plugin sees, as it would a `wpp` command's.
 */
export function inspectPlugin(config: Config, provider: { url: string; apiKey: string }, now: () => number = Date.now) {
  const db = openDatabase(config.databaseFile);
  const logger = pino({ level: 'silent' });
  const { jobs, accounts, stats, schedule, audit } = openRepositories(db, config, logger, now);
  const { autoProtect, notifyUrl, current, overrides } = createPluginSettings(audit, config);
  // Queued jobs wait for the worker's next poll: the test's connection cannot wake it.
  const queue = createJobQueue({ jobs, maxAttempts: config.worker.maxAttempts, onQueued: () => {} });
  return {
    db,
    jobs,
    accounts,
    stats,
    schedule,
    audit,
    imports: createImportRepo(db),
    /** The runtime settings as every process of the data folder reads them; tests change them as an admin does, on the admin pages. */
    settings: { autoProtect, notifyUrl, current, overrides },
    provider: createProviderClient({ baseUrl: provider.url, apiKey: provider.apiKey, logger, ...TEST_PROVIDER_OPTIONS }),
    /** The schedule's reconcile pass (every minute in wpp serve; tests run the schedule off), as another process of the data folder runs it. */
    reconcile: (at: number = now()) => reconcileWebsites(accounts, queue.refreshWebsites, { now: at }),
    close: () => void db.close(),
  };
}

export type PluginInspection = Omit<ReturnType<typeof inspectPlugin>, 'close'>;

export interface TestPlugin extends Omit<RunningPlugin, 'sandbox'>, PluginInspection {
  config: Config;
  sandbox: undefined;
  /** POSTs a body to /hooks/events, signed with the panel secret unless `signature` is given. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
  postEvents(body: unknown, signature?: string | null): Promise<{ status: number; body: any }>;
  /**
   * Waits until no job is running, due or waiting to be retried: only jobs queued for later
   * (a callback's re-read held back for its window, never attempted) may still wait.
   */
  idle(timeoutMs?: number): Promise<void>;
}

/** A running plugin and what the test looks at, closed together (the plugin first: its jobs in flight still write). */
function inspected<P extends RunningPlugin>(plugin: P, inspection: ReturnType<typeof inspectPlugin>) {
  const { close, ...parts } = inspection;
  return {
    ...plugin,
    ...parts,
    async close() {
      try {
        await plugin.close();
      } finally {
        close();
      }
    },
  };
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
    providerOptions: TEST_PROVIDER_OPTIONS,
    ...options,
  });
  const inspection = inspectPlugin(config, { url: sandbox.url, apiKey: sandbox.partnerKey }, options.now);
  const { jobs } = inspection;
  return {
    ...inspected(plugin, inspection),
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
          if (jobs.counts().running > 0) return false;
          const at = (options.now ?? Date.now)();
          return jobs.list({ state: 'pending', limit: 10_000 }).every((job) => job.attempts === 0 && job.runAt > at);
        },
        timeoutMs,
        'the job queue to drain',
      );
    },
  };
}

/**
 * An account with one domain, provisioned and online at the sandbox (its DNS marked verified),
 * as a customer's page sees a protected website.
 */
export async function protectedWebsite(
  plugin: Awaited<ReturnType<typeof startTestPlugin>>,
  sandbox: TestSandbox,
  account: string,
  domain: string,
): Promise<void> {
  await plugin.postEvents([
    { type: 'account.created', account },
    { type: 'domain.added', account, domain },
  ]);
  await plugin.idle();
  await sandbox.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
  await waitFor(() => plugin.accounts.getWebsite(domain)?.providerStatus === 'online', 10_000, `${domain} to be online`);
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
  fn: (plugin: DemoPlugin) => Promise<T>,
  options: { logger?: Logger; now?: () => number } = {},
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
    ...(options.now ? { now: options.now } : {}),
  });
  const sandbox = plugin.sandbox as NonNullable<RunningPlugin['sandbox']>;
  const demo = inspected(plugin, inspectPlugin(config, { url: sandbox.url, apiKey: sandbox.partnerKey }));
  try {
    return await fn({ ...demo, config, dataDir });
  } finally {
    await demo.close();
    removeTempDir(dataDir);
  }
}

/** A plugin on the embedded sandbox (withDemoPlugin), with what the test looks at. */
export type DemoPlugin = RunningPlugin & PluginInspection & { config: Config; dataDir: string };
