/**
 * Composition root: config -> database -> provider client (or the embedded sandbox) ->
 * provisioning -> worker, scheduler and HTTP server; and the graceful stop of all of it.
 */
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { ensurePanelSecret, PANEL_SECRET_FILE, type Config } from './config.js';
import { AppError } from './errors.js';
import { ingestEvents, PANEL_EVENT_JOB } from './core/ingest.js';
import { createProvisioning, isPermanentProvisioningError } from './core/provisioning.js';
import { createEnforcement, type EnforceResult } from './core/enforcement.js';
import { acquireJobLock, describeHolder, LockHeldError } from './core/job-lock.js';
import { accountLimitsOf } from './core/limits.js';
import { reconcileWebsites } from './core/reconcile.js';
import { SYNC_JOB, syncStatistics, type SyncOptions, type SyncResult } from './core/statistics.js';
import type { Website } from './db/provisioning.repo.js';
import { createStatisticsRepo, type StatisticsRepo } from './db/statistics.repo.js';
import { createJobsRepo, type Job, type JobsRepo } from './db/jobs.repo.js';
import { REQUEST_BUSY_RETRY, retryWhileBusy } from './db/busy.js';
import type { Notice } from './db/files.js';
import { openMigratedDatabase, type Db } from './db/open.js';
import { createProvisioningRepo, type ProvisioningRepo } from './db/provisioning.repo.js';
import { createScheduler } from './jobs/scheduler.js';
import { createWorker } from './jobs/worker.js';
import { panelEventSchema } from './panel/events.js';
import { paths } from './paths.js';
import { createProviderClient, type ProviderClient, type ProviderClientOptions } from './provider/index.js';
import { readPartnerKey, startSandbox, type RunningSandbox } from './sandbox/server.js';
import { clientProblemBody, createApp } from './web/app.js';
import { listen } from './web/listen.js';
import { signBody } from './web/signature.js';

export const REFRESH_JOB = 'website.refresh';
export const NOTIFY_JOB = 'notify';
export const REGISTER_SERVER_JOB = 'server.register';
/** Held by the one `wpp serve` of a data folder (the locks table, like the job locks). */
const SERVE_LOCK = 'serve';

export interface PluginOptions {
  config: Config;
  logger?: Logger;
  /** Answer HTTP (hooks, callbacks). Default true; `wpp worker` runs without. */
  http?: boolean;
  /** Run the job worker loop in this process. Default true; `drain()` works either way. */
  worker?: boolean;
  /** Run the scheduled jobs (reconciliation). Default true. */
  scheduler?: boolean;
  /** The clock of statistics and enforcement (periods, samples), for tests. Default Date.now. */
  now?: () => number;
  /** Provider client tuning (timeouts, retries), for tests and benchmarks. */
  providerOptions?: Pick<ProviderClientOptions, 'timeoutMs' | 'retry'>;
  /** HTTP server timeouts, for tests (see web/listen.ts for the defaults). */
  serverTimeouts?: { headersMs?: number; requestMs?: number };
  /** Worker tuning, for tests. */
  workerOptions?: { pollMs?: number; leaseMs?: number; backoff?: { baseMs?: number; maxMs?: number } };
}

export interface RunningPlugin {
  url: string;
  db: Db;
  jobs: JobsRepo;
  repo: ProvisioningRepo;
  provider: ProviderClient;
  sandbox: RunningSandbox | undefined;
  stats: StatisticsRepo;
  /** One statistics sync now (the scheduler runs it every WPP_SYNC_INTERVAL_MINUTES, then enforces). */
  syncStatistics(options?: Partial<SyncOptions>): Promise<SyncResult>;
  /** One enforcement pass now; throws LockHeldError (recording a skipped run) while another pass runs. */
  enforceLimits(): Promise<EnforceResult>;
  /** An admin resumes a website for the rest of its period. */
  adminResume(domain: string, admin: string): Promise<Website>;
  /** One reconcile pass now (the scheduler runs it every minute). */
  reconcile(now?: number): { enqueued: number };
  /** Runs due jobs until none is due (`wpp worker --once`). */
  drain(): Promise<{ done: number; failed: number; dead: number }>;
  close(): Promise<void>;
}

/**
 * How long `wpp serve` waits for another process's write lock in one go. better-sqlite3
 * waits synchronously, stopping the event loop, so the server waits briefly and tries again
 * later without blocking (retryWhileBusy): a request for about a second, then 503.
 * Short writes of other processes (a hook's one row) fit in the wait itself.
 */
export const SERVER_BUSY_TIMEOUT_MS = 50;

/**
 * Opens the plugin's database, migrated to the newest schema, after the data folder's start
 * check (db/open.ts). Used by every entry point.
 */
export function openPluginDatabase(config: Config, options: { notice?: Notice; busyTimeoutMs?: number } = {}): Db {
  return openMigratedDatabase(config.databaseFile, paths.migrations, { ...options, ownNames: [PANEL_SECRET_FILE, 'sandbox'] });
}

export function createLogger(config: Config): Logger {
  return pino({ name: 'wpp', level: config.logLevel }, pino.destination(2));
}

/** Starts everything `wpp serve` runs. `close` stops it in reverse order, letting in-flight jobs finish. */
export async function startPlugin(options: PluginOptions): Promise<RunningPlugin> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  const panelSecret = ensurePanelSecret(config);
  const db = openPluginDatabase(config, {
    notice: (message) => logger.warn(message),
    ...(options.http === false ? {} : { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS }),
  });
  const jobs = createJobsRepo(db);
  const repo = createProvisioningRepo(db);
  const now = options.now ?? Date.now;
  const stats = createStatisticsRepo(db, now);
  const closers: (() => Promise<void> | void)[] = [() => void db.close()];
  // Closing first tells a sync in progress to stop: queued reads are dropped, those in flight abandoned.
  const stopping = new AbortController();
  // Syncs and enforcement passes in progress, awaited before the database closes under them.
  const passes = new Set<Promise<unknown>>();
  const tracked = <T>(pass: Promise<T>): Promise<T> => {
    passes.add(pass);
    void pass.finally(() => passes.delete(pass)).catch(() => undefined);
    return pass;
  };
  const closeAll = async () => {
    stopping.abort();
    await Promise.allSettled([...passes]);
    for (const close of closers.reverse()) await close();
  };

  try {
    if (options.http !== false) {
      // One server per data folder: two would run every scheduled job and enforcement twice.
      const serving = acquireJobLock(stats, SERVE_LOCK, logger);
      if (!serving.taken) {
        throw new AppError(
          'CONFLICT',
          `Another wpp serve already runs on the data folder ${config.dataDir} (${describeHolder(serving.holder)}): stop it first, or give this one its own WPP_DATA_DIR`,
        );
      }
      closers.push(() => serving.release());
    }
    let sandbox: RunningSandbox | undefined;
    let providerTarget: { url: string; apiKey: string };
    if ('embedded' in config.provider) {
      const sandboxDir = join(config.dataDir, 'sandbox');
      if (options.http === false) {
        // A second process (wpp worker) talks to the sandbox `wpp serve` runs, with its stored key.
        providerTarget = { url: `http://${config.host}:${config.provider.sandboxPort}`, apiKey: readPartnerKey(sandboxDir) };
      } else {
        sandbox = await startSandbox({
          dataDir: sandboxDir,
          host: config.host,
          port: config.provider.sandboxPort,
          listenSetting: 'WPP_HOST and WPP_SANDBOX_PORT',
          logger: logger.child({ component: 'sandbox' }),
        });
        closers.push(() => sandbox?.close());
        providerTarget = { url: sandbox.url, apiKey: sandbox.partnerKey };
      }
    } else {
      providerTarget = config.provider;
    }
    const provider = createProviderClient({
      baseUrl: providerTarget.url,
      apiKey: providerTarget.apiKey,
      logger: logger.child({ component: 'provider' }),
      ...options.providerOptions,
    });

    // The worker is created once the server has its port (callback URLs need it); ingest wakes it.
    let wakeWorker = () => {};
    const ingest = (events: Parameters<typeof ingestEvents>[1]) => {
      const results = ingestEvents(jobs, events, config.worker.maxAttempts);
      wakeWorker();
      return results;
    };
    // An HTTP request waits about a second for another process's write lock, without blocking the server.
    const ingestFromRequest = (events: Parameters<typeof ingestEvents>[1]) => retryWhileBusy(() => ingest(events), REQUEST_BUSY_RETRY);
    /**
     * Queues provider re-reads of websites, in one transaction. One waiting re-read per
     * website is enough (it reads whatever is true when it runs), so a flood of callbacks
     * for one website, replays included, costs one job and one provider read.
     */
    const enqueueRefreshes = (refreshes: { domain: string; account: string }[]) => {
      if (refreshes.length === 0) return;
      jobs.enqueueMany(
        refreshes.map(({ domain, account }) => ({ kind: REFRESH_JOB, pendingKey: `${REFRESH_JOB}:${domain}`, account, domain, payload: { domain }, maxAttempts: config.worker.maxAttempts })),
      );
      wakeWorker();
    };

    const app = createApp({
      logger,
      hooks: { panelSecret, ingest: ingestFromRequest },
      callbacks: {
        findWebsiteByTokenHash: (hash) => repo.getWebsiteByTokenHash(hash),
        signingKeyFor: (website) => repo.getAccount(website.account)?.providerApiKey ?? null,
        enqueueRefresh: (website) => retryWhileBusy(() => enqueueRefreshes([{ domain: website.domain, account: website.account }]), REQUEST_BUSY_RETRY),
      },
    });
    let url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
    if (options.http !== false) {
      const server = await listen(app, {
        host: config.host,
        port: config.port,
        what: 'The plugin',
        setting: 'WPP_HOST and WPP_PORT',
        errorBody: clientProblemBody,
        ...(options.serverTimeouts ? { timeouts: options.serverTimeouts } : {}),
      });
      closers.push(() => server.close());
      url = server.url;
    }

    const provisioning = createProvisioning({
      repo,
      provider,
      logger,
      settings: {
        accountDomain: config.accountDomain,
        publicUrl: config.publicUrl ?? url,
        panelSecret,
        autoProtect: config.autoProtect,
        server: config.server,
      },
      domainLimitFor: (account) => accountLimitsOf(stats, repo, account).domainLimit,
    });
    const enforcement = createEnforcement({
      stats,
      provisioning: repo,
      provider,
      logger: logger.child({ component: 'enforcement' }),
      now,
      concurrency: config.sync.concurrency,
      requestsPerSecond: config.sync.ratePerSecond,
      // Each action reaches the notification URL through the jobs table: retried, never lost.
      notify: config.notifyUrl
        ? (action) => {
            jobs.enqueue({ kind: NOTIFY_JOB, dedupeKey: `notify:${action.actionKey}`, account: null, payload: action, maxAttempts: config.worker.maxAttempts });
            wakeWorker();
          }
        : undefined,
    });
    const runSync = (overrides: Partial<SyncOptions> = {}) =>
      tracked(
        syncStatistics(
          { stats, provisioning: repo, provider, logger: logger.child({ component: 'sync' }), now },
          {
            concurrency: config.sync.concurrency,
            ratePerSecond: config.sync.ratePerSecond,
            ...overrides,
            // Closing the plugin stops the sync, and so does the caller's own signal (a one-shot command's SIGTERM).
            signal: overrides.signal ? AbortSignal.any([stopping.signal, overrides.signal]) : stopping.signal,
          },
        ),
      );
    const runEnforcement = () => tracked(enforcement.enforceLimits());

    const handlers = {
      [PANEL_EVENT_JOB]: async (job: Job) => provisioning.handle(panelEventSchema.parse(job.payload)),
      [REFRESH_JOB]: async (job: Job) => provisioning.refreshWebsite((job.payload as { domain: string }).domain),
      [REGISTER_SERVER_JOB]: async () => void (await provisioning.registerServer()),
      [NOTIFY_JOB]: async (job: Job) => sendNotification(config.notifyUrl, panelSecret, job.payload),
    };
    const worker = createWorker({
      jobs,
      handlers,
      logger: logger.child({ component: 'worker' }),
      concurrency: config.worker.concurrency,
      leaseMs: config.worker.leaseMs,
      isPermanent: isPermanentProvisioningError,
      ...options.workerOptions,
    });
    closers.push(() => worker.stop());
    if (options.worker !== false) {
      wakeWorker = () => worker.wake();
      worker.start();
    }

    // Registration belongs to the long-running plugin; one-shot commands need not queue it.
    if (config.server.ip && options.http !== false) {
      jobs.enqueue({ kind: REGISTER_SERVER_JOB, dedupeKey: `server.register:${config.server.ip}`, payload: {}, maxAttempts: config.worker.maxAttempts });
      wakeWorker();
    }

    if (options.scheduler !== false) {
      const scheduler = createScheduler(logger.child({ component: 'scheduler' }), [
        {
          name: 'reconcile',
          // Websites stuck in a non-final state (pending DNS, issuing a certificate, or never read) are looked up again.
          schedule: '* * * * *',
          run: async () => reconcileWebsites(repo, enqueueRefreshes),
        },
        {
          name: SYNC_JOB,
          schedule: intervalSchedule(config.sync.intervalMinutes),
          run: async () => {
            const sync = await runSync();
            if (sync.skipped || sync.stopped) return { ...sync };
            const enforcement = await runEnforcement().catch((error: unknown) => {
              if (error instanceof LockHeldError) return { skipped: true, holder: error.holder };
              throw error;
            });
            return { ...sync, enforcement };
          },
        },
      ]);
      scheduler.start();
      // Catch up after downtime: a sync missed while the plugin was stopped runs now, not at the next tick.
      const lastSync = stats.lastSuccessfulRun(SYNC_JOB);
      if (lastSync === null || now() - lastSync > config.sync.intervalMinutes * 60_000) scheduler.runNow(SYNC_JOB);
      closers.push(() => scheduler.stop());
    }

    // A one-shot command (no HTTP) need not announce itself on every run.
    (options.http === false ? logger.debug.bind(logger) : logger.info.bind(logger))(
      { url, provider: sandbox ? `embedded sandbox ${sandbox.url}` : providerTarget.url },
      'plugin started',
    );
    let closing: Promise<void> | undefined;
    return {
      url,
      db,
      jobs,
      repo,
      provider,
      sandbox,
      stats,
      syncStatistics: (options) => runSync(options),
      enforceLimits: () => runEnforcement(),
      adminResume: (domain, admin) => enforcement.adminResume(domain, admin),
      reconcile: (now?: number) => reconcileWebsites(repo, enqueueRefreshes, now === undefined ? {} : { now }),
      drain: () => worker.drain(),
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** A cron expression firing every `minutes` minutes (hourly steps past an hour). */
export function intervalSchedule(minutes: number): string {
  if (minutes < 60) return `*/${minutes} * * * *`;
  return `0 */${Math.max(1, Math.round(minutes / 60))} * * *`;
}

/** POSTs one enforcement action to the notification URL, signed like panel hooks; throws to be retried. */
async function sendNotification(url: string | undefined, secret: string, action: unknown): Promise<void> {
  if (!url) return;
  const body = JSON.stringify({ event: 'enforcement.action', action });
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wpp-signature': signBody(body, secret) },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`the notification URL answered ${response.status}`);
}
