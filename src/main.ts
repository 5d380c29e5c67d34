/**
 * Composition root: config -> database -> provider client (or the embedded sandbox) ->
 * services -> worker, schedule and HTTP server, as the process's role asks; and the graceful
 * stop of all of it (lifecycle.ts). Only wiring: what each part does lives in its module.
 */
import type { Logger } from 'pino';
import { ensurePanelSecret, type Config } from './config.js';
import { readPluginSecrets, type PluginSecrets } from './secrets.js';
import { AppError } from './errors.js';
import type { EnforceResult } from './core/enforcement.js';
import { acquireJobLock, describeHolder, SERVE_LOCK } from './core/job-lock.js';
import { createJobQueue, type JobQueue } from './core/job-queue.js';
import { notifyWhileOn } from './core/notifications.js';
import { createPluginSettings, type PluginSettings } from './core/plugin-settings.js';
import { reconcileWebsites } from './core/reconcile.js';
import { createServices, type Services } from './core/services.js';
import type { SyncOptions, SyncResult } from './core/statistics.js';
import type { Website } from './core/types.js';
import { createAdminViewsRepo } from './db/admin-views.repo.js';
import { createJobsRepo, type JobsRepo } from './db/jobs.repo.js';
import type { Db } from './db/open.js';
import { openPluginDatabase, SERVER_BUSY_TIMEOUT_MS } from './db/plugin-database.js';
import { createAccountsRepo, type AccountsRepo } from './db/accounts.repo.js';
import { openApiKeys } from './db/api-keys.js';
import { createSettingsRepo, type SettingsRepo } from './db/settings.repo.js';
import { createStatisticsRepo, type StatisticsRepo } from './db/statistics.repo.js';
import { createReadScheduleRepo, type ReadScheduleRepo } from './db/read-schedule.repo.js';
import { startBackground } from './jobs/background.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';
import { createLogger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { connectProvider, httpUrl } from './provider/connect.js';
import type { ProviderClient, ProviderClientOptions } from './provider/index.js';
import type { RunningSandbox } from './sandbox/server.js';
import { createSessionsRepo, type SessionsRepo } from './db/sessions.repo.js';
import { createUnprotectedRepo } from './db/unprotected.repo.js';
import { createImportRepo, type ImportRepo } from './db/import.repo.js';
import { sendDriftNotice } from './core/import.js';
import { createPanelImport, type PanelImport } from './panel/listings/index.js';
import { createPluginApp } from './web/plugin-app.js';
import { startPluginServer } from './web/plugin-server.js';

/**
 * What a process is for. `serve` (wpp serve): the HTTP server, the embedded sandbox, the
 * server's registration, the worker and the schedule; one per data folder. `worker` (wpp
 * worker): more job workers beside it, reaching its sandbox with the stored key. `command`:
 * a one-shot command (sync-stats, enforce, limits, ...) that runs nothing in the background.
 */
export type PluginRole = 'serve' | 'worker' | 'command';

const ROLES = {
  serve: { serves: true, runsWorker: true, runsSchedule: true },
  worker: { serves: false, runsWorker: true, runsSchedule: false },
  command: { serves: false, runsWorker: false, runsSchedule: false },
} satisfies Record<PluginRole, { serves: boolean; runsWorker: boolean; runsSchedule: boolean }>;

export interface PluginOptions {
  config: Config;
  role: PluginRole;
  logger?: Logger;
  /** Run the job worker loop (default: serve and worker roles); `drain()` works either way. For tests. */
  worker?: boolean;
  /** Run the schedule (default: the serve role). For tests. */
  scheduler?: boolean;
  /** The clock of everything that reads time (jobs, provisioning, statistics, enforcement, the schedule), for tests. Default Date.now. */
  now?: () => number;
  /** Provider client tuning (timeouts, retries), for tests and benchmarks. */
  providerOptions?: Pick<ProviderClientOptions, 'timeoutMs' | 'retry'>;
  /** HTTP server timeouts, for tests (see web/listen.ts for the defaults). */
  serverTimeouts?: { headersMs?: number; requestMs?: number };
  /** The root the panel's tools and files are taken under by the scheduled panel check (`wpp import --root`), for tests. Default '/'. */
  panelRoot?: string;
  /**
   * Whether this process may run the panel's tools, which answer root only. Default: it runs
   * as root. An installed serve runs as the wpp user and leaves the scheduled comparison to
   * `wpp import <panel> --if-due`, run as root by wpp-panel-check.timer.
   */
  panelToolsAsRoot?: boolean;
  /** Worker tuning, for tests. */
  workerOptions?: { pollMs?: number; leaseMs?: number; backoff?: { baseMs?: number; maxMs?: number } };
}

export interface RunningPlugin {
  url: string;
  db: Db;
  jobs: JobsRepo;
  accounts: AccountsRepo;
  provider: ProviderClient;
  sandbox: RunningSandbox | undefined;
  stats: StatisticsRepo;
  /** Auto-protect and the notification URL as they apply now (override ?? environment), and their changes. */
  settings: PluginSettings;
  /** The settings overrides and the audit of every settings, limits and plan change (who, when, before, after). */
  audit: SettingsRepo;
  /** This plugin's metrics registry (GET /metrics serves it). */
  metrics: Metrics;
  /** One statistics sync now (the schedule runs it every WPP_SYNC_INTERVAL_MINUTES, then enforces). */
  syncStatistics(options?: Partial<SyncOptions>): Promise<SyncResult>;
  /** One tick of the adaptive sync now: reads up to `seconds` of the request budget's worth of due websites, enforcing what it read. */
  readTick: Services['readTick'];
  /** The adaptive sync's schedule, forecasts and notices. */
  schedule: ReadScheduleRepo;
  /** One enforcement pass now; throws LockHeldError (recording a skipped run) while another pass runs. */
  enforceLimits(): Promise<EnforceResult>;
  /** An admin resumes a website for the rest of its period. */
  adminResume(domain: string, admin: string): Promise<Website>;
  /** One reconcile pass now (the schedule runs it every minute). */
  reconcile(now?: number): { enqueued: number };
  /** `wpp import`: compares a panel's listing with the plugin and the provider, and queues what is missing when asked. */
  importPanel: PanelImport['run'];
  /** The recorded comparisons (`wpp import`, the scheduled drift check). */
  imports: ImportRepo;
  /** Runs due jobs until none is due (`wpp worker --once`). */
  drain(): Promise<{ done: number; failed: number; dead: number }>;
  close(): Promise<void>;
}

/** Starts what the role runs. `close` stops it in reverse order, letting in-flight jobs and passes finish. */
export async function startPlugin(options: PluginOptions): Promise<RunningPlugin> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  // Each secret has one purpose (secrets.ts): the hook secret verifies panel events and nothing else.
  const secrets = readPluginSecrets(config, ensurePanelSecret(config));
  const db = openPluginDatabase(config, {
    notice: (message) => logger.warn(message),
    ...(ROLES[options.role].serves ? { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS } : {}),
  });
  const life = createLifecycle();
  life.onClose(() => void db.close());
  try {
    return await wire(options, { db, logger, secrets, life });
  } catch (error) {
    await life.close();
    throw error;
  }
}

/** The repositories the services share; the API keys' key file is opened (and checked) first. */
function openRepositories(db: Db, config: Config, logger: Logger, now: () => number) {
  const { keys, encrypted } = openApiKeys(db, config.keyFile, (message) => logger.warn(message));
  if (encrypted > 0) logger.info({ accounts: encrypted }, 'stored API keys encrypted with the key file');
  return {
    jobs: createJobsRepo(db, now),
    accounts: createAccountsRepo(db, now, keys),
    stats: createStatisticsRepo(db, now),
    schedule: createReadScheduleRepo(db),
    audit: createSettingsRepo(db, now),
    sessions: createSessionsRepo(db),
  };
}

/** Everything on the open database, in dependency order; what it starts closes with `life`. */
async function wire(
  options: PluginOptions,
  { db, logger, secrets, life }: { db: Db; logger: Logger; secrets: PluginSecrets; life: Lifecycle },
) {
  const { config } = options;
  const { accountDomain, server } = config;
  const role = ROLES[options.role];
  const now = options.now ?? Date.now;
  const { jobs, accounts, stats, schedule, audit, sessions } = openRepositories(db, config, logger, now);
  const settings = createPluginSettings(audit, config);
  if (role.serves) holdServeLock(config, stats, logger, life);
  const metrics = createMetrics({
    jobCounts: () => jobs.countsByKind(),
    dueWebsites: () => schedule.dueCount(now()),
    now,
    processMetrics: role.serves,
  });
  const connected = await connectProvider(config, {
    startsSandbox: role.serves,
    logger,
    life,
    client: options.providerOptions,
    onAttempt: metrics.providerAttempt,
  });
  const { provider, sandbox } = connected;

  // The worker is created once the server has its port (callback URLs need it); queueing wakes it.
  let wakeWorker = () => {};
  const queue = createJobQueue({ jobs, maxAttempts: config.worker.maxAttempts, onQueued: () => wakeWorker() });
  const httpServer = role.serves ? await startPluginServer({ config, logger, life, timeouts: options.serverTimeouts }) : undefined;
  const url = httpServer?.url ?? httpUrl(config.host, config.port);

  const services = wireServices(
    {
      db,
      accounts,
      stats,
      schedule,
      jobs,
      audit,
      sessions,
      provider,
      logger,
      now,
      queue,
      life,
      metrics,
      settings,
      callbackKey: secrets.callback,
    },
    { accountDomain, server, publicUrl: config.publicUrl ?? url, sync: config.sync },
  );
  const reconcile = (at: number = now()) => reconcileWebsites(accounts, queue.refreshWebsites, { now: at });
  const { imports, panelImport, panelCheck } = wirePanelImport(options, {
    db,
    stats,
    provider,
    queue,
    settings,
    notifySecret: secrets.notify.value,
    logger,
    now,
  });
  const worker = startBackground(
    {
      config,
      jobs,
      stats,
      reconcile,
      queue,
      services,
      notifySecret: secrets.notify.value,
      notifyUrl: settings.notifyUrl,
      logger,
      now,
      life,
      panelCheck,
    },
    // Registration belongs to the long-running server; other roles need not queue it.
    {
      runWorker: options.worker ?? role.runsWorker,
      runSchedule: options.scheduler ?? role.runsSchedule,
      registerServer: role.serves,
      workerOverrides: options.workerOptions,
    },
  );
  wakeWorker = worker.wake;
  const repos = { accounts, stats, schedule, audit, sessions, adminViews: createAdminViewsRepo(db), imports };
  httpServer?.serve(createPluginApp({ config, secrets, logger, now, queue, provider, settings, repos, services, sandbox, metrics }));

  // Only the server announces itself; a one-shot command need not, on every run.
  logger[role.serves ? 'info' : 'debug']({ url, provider: sandbox ? `embedded sandbox ${sandbox.url}` : connected.url }, 'plugin started');
  const parts = { url, db, jobs, accounts, provider, sandbox, stats, settings, audit, metrics };
  return {
    ...parts,
    syncStatistics: services.syncStatistics,
    enforceLimits: services.enforceLimits,
    readTick: services.readTick,
    schedule,
    adminResume: services.adminResume,
    reconcile,
    importPanel: panelImport.run,
    imports,
    drain: worker.drain,
    close: life.close,
  } satisfies RunningPlugin;
}

/** The services (provisioning, sync, enforcement, protection) on the plugin's parts. */
function wireServices(
  parts: {
    db: Db;
    accounts: AccountsRepo;
    stats: StatisticsRepo;
    schedule: ReadScheduleRepo;
    jobs: ReturnType<typeof createJobsRepo>;
    audit: ReturnType<typeof createSettingsRepo>;
    sessions: SessionsRepo;
    provider: ProviderClient;
    logger: Logger;
    now: () => number;
    queue: ReturnType<typeof createJobQueue>;
    life: Lifecycle;
    metrics: ReturnType<typeof createMetrics>;
    settings: ReturnType<typeof createPluginSettings>;
    callbackKey: string;
  },
  where: { accountDomain: string; server: Config['server']; publicUrl: string; sync: Config['sync'] },
) {
  const { accounts, stats, schedule, provider, logger, now, queue, jobs, audit, life, metrics, settings, callbackKey } = parts;
  return createServices({
    accounts,
    stats,
    provider,
    logger,
    now,
    settings: { accountDomain: where.accountDomain, server: where.server, publicUrl: where.publicUrl, callbackKey },
    autoProtect: settings.autoProtect,
    sync: where.sync,
    schedule,
    notify: notifyWhileOn(settings.notifyUrl, queue.notify),
    notifySpike: notifyWhileOn(settings.notifyUrl, queue.notifySpike),
    signal: life.signal,
    track: life.track,
    queue,
    jobs,
    unprotected: createUnprotectedRepo(parts.db),
    audit,
    observer: metrics.services,
    endCustomerSessions: (account) => void parts.sessions.deleteSessionsOf('customer', account),
  });
}

/** `wpp import` on this plugin, and the scheduled panel check when WPP_PANEL names a panel. */
function wirePanelImport(
  options: PluginOptions,
  parts: {
    db: Db;
    stats: StatisticsRepo;
    provider: ProviderClient;
    queue: JobQueue;
    settings: PluginSettings;
    notifySecret: string;
    logger: Logger;
    now: () => number;
  },
) {
  const { queue, settings, notifySecret } = parts;
  const imports = createImportRepo(parts.db);
  const panelImport = createPanelImport({
    repo: imports,
    stats: parts.stats,
    provider: parts.provider,
    ingestEvents: (events) => queue.ingestEvents(events),
    logger: parts.logger.child({ component: 'import' }),
    now: parts.now,
    notifyDrift: async (notice) => {
      const url = settings.notifyUrl();
      if (url !== null) await sendDriftNotice({ url, secret: notifySecret }, notice);
    },
  });
  const panelName = options.config.panel.name;
  const mayRunPanelTools = options.panelToolsAsRoot ?? process.getuid?.() === 0;
  if (panelName && options.config.panel.checkEveryMinutes !== null && !mayRunPanelTools && options.role === 'serve')
    parts.logger.info(
      { panel: panelName },
      'the scheduled panel comparison is left to wpp-panel-check.timer: the panel tools answer root only',
    );
  const panelCheck =
    panelName && mayRunPanelTools
      ? async () => {
          const source = { panel: panelName, ...(options.panelRoot ? { root: options.panelRoot } : {}) };
          const result = await panelImport.run(source, { source: 'schedule', apply: false, prune: false });
          return { comparisonId: result.comparisonId, differences: result.comparison.differences.length };
        }
      : undefined;
  return { imports, panelImport, panelCheck };
}

/** One server per data folder: two would run every scheduled job and enforcement twice. */
function holdServeLock(config: Config, stats: StatisticsRepo, logger: Logger, life: Lifecycle): void {
  const serving = acquireJobLock(stats, SERVE_LOCK, logger);
  if (!serving.taken) {
    throw new AppError(
      'CONFLICT',
      `Another wpp serve already runs on the data folder ${config.dataDir} (${describeHolder(serving.holder)}): stop it first, or give this one its own WPP_DATA_DIR`,
    );
  }
  life.onClose(() => serving.release());
}
