/**
 * What runs in the background of a plugin process: the job worker, with the handler of every
 * registered job kind (core/job-kinds.ts) given its payload parsed, and the schedule.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { IMPORT_RUN } from '../core/import.js';
import { jobHandlers, type OwnerLookup } from '../core/job-kinds.js';
import type { JobQueue } from '../core/job-queue.js';
import type { Mailer } from '../core/mail.js';
import { sendNotification, sendSpikeNotice } from '../core/notifications.js';
import { isPermanentProvisioningError } from '../core/provisioning.js';
import type { Services } from '../core/services.js';
import { SYNC_LOCK } from '../core/statistics.js';
import { ENFORCE_LOCK } from '../core/enforcement.js';
import type { JobsRepo } from '../db/jobs.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import type { Lifecycle } from '../lifecycle.js';
import { startPluginSchedule } from './plugin-schedule.js';
import { createWorker, type WorkerOptions } from './worker.js';

export interface BackgroundDeps {
  config: Config;
  jobs: JobsRepo;
  stats: StatisticsRepo;
  /** One reconciliation pass now (core/reconcile.ts, bound to the plugin's repositories and clock). */
  reconcile(): { enqueued: number };
  queue: JobQueue;
  services: Services;
  /** Signs every notification (WPP_NOTIFY_SECRET or the generated one); never the hook secret, which its receiver must not hold. */
  notifySecret: string;
  /** The effective notification URL (core/plugin-settings.ts), read when a notification is sent; null: off. */
  notifyUrl: () => string | null;
  logger: Logger;
  now: () => number;
  life: Lifecycle;
  /** The scheduled panel comparison (core/import.ts bound to the configured panel), or undefined when none is configured. */
  panelCheck?: (() => Promise<Record<string, unknown>>) | undefined;
  /** The e-mails: `email.send` jobs are delivered through it, and the schedule makes the daily digests. */
  mailer: Pick<Mailer, 'deliver' | 'sendDigests'>;
  /** Asks the panel again for the owner of a kept event; undefined where this process may not run the panel's tools (not root). */
  resolveOwner?: ((lookup: OwnerLookup) => Promise<void>) | undefined;
}

/** Between two tries of a kept event by a process that cannot ask the panel: the root timer asks hourly. */
const OWNER_WAIT_MS = 60 * 60_000;

export interface BackgroundOptions {
  /** Run the worker loop; without it, `drain()` still runs due jobs on demand. */
  runWorker: boolean;
  runSchedule: boolean;
  /** Queue this server's registration with the provider (the serving process does). */
  registerServer: boolean;
  /** Worker tuning, for tests. */
  workerOverrides?: Pick<WorkerOptions, 'pollMs' | 'leaseMs' | 'backoff'> | undefined;
}

/** Starts what the options ask for; everything stops with the plugin's lifecycle. */
export function startBackground(deps: BackgroundDeps, options: BackgroundOptions) {
  const { config, services, queue, logger, life } = deps;
  const worker = createWorker({
    jobs: deps.jobs,
    stopSignal: life.signal,
    handlers: jobHandlers({
      // On the last attempt a failure is final too: provisioning shows it on the website as it is.
      // An import's events are background jobs: their provider calls take background tokens.
      'panel.event': (event, job) =>
        services.provisioning.handle(event, { finalAttempt: job.attempts >= job.maxAttempts, background: job.background }),
      'website.refresh': ({ domain }) => services.provisioning.refreshWebsite(domain),
      'server.register': async () => void (await services.provisioning.registerServer()),
      // Queued only while a URL is effective. The URL is read at send time: a job queued before an admin
      // changed it goes to the new URL, and one queued before notifications were turned off finishes
      // as done without sending (turning them off stops what is still pending too).
      'notification.send': async (action) => {
        const url = deps.notifyUrl();
        if (url !== null) await sendNotification({ url, secret: deps.notifySecret }, action);
      },
      'spike.notify': async (notice) => {
        const url = deps.notifyUrl();
        if (url !== null) await sendSpikeNotice({ url, secret: deps.notifySecret }, notice);
      },
      'website.protect': ({ domain, admin }) => services.bulkProtect.protectQueued(domain, admin),
      'package.release': ({ account }) => services.provisioning.releasePackage(account),
      'email.send': (mail) => deps.mailer.deliver(mail),
      'panel.owner': async (lookup) => {
        if (deps.resolveOwner) return deps.resolveOwner(lookup);
        // The panel's tools answer root only: the hourly root timer (`wpp import <panel> --if-due`) asks instead.
        throw Object.assign(
          new Error(
            `waiting for the ${lookup.panel} panel check: this process may not run the panel's tools (root only); wpp-panel-check.timer asks for the owner of ${lookup.domain} hourly`,
          ),
          { retryAfterMs: OWNER_WAIT_MS },
        );
      },
    }),
    logger: logger.child({ component: 'worker' }),
    concurrency: config.worker.concurrency,
    leaseMs: config.worker.leaseMs,
    isPermanent: isPermanentProvisioningError,
    now: deps.now,
    ...options.workerOverrides,
  });
  life.onClose(() => worker.stop());
  if (options.runWorker) worker.start();
  if (options.registerServer && config.server.ip) queue.registerServer(config.server.ip);
  if (options.runSchedule) {
    const schedule = startPluginSchedule({
      logger: logger.child({ component: 'scheduler' }),
      now: deps.now,
      syncEveryMinutes: config.sync.intervalMinutes,
      mode: config.sync.mode,
      lastSuccessfulSync: deps.stats.lastSuccessfulRun(SYNC_LOCK),
      lastSuccessfulEnforce: deps.stats.lastSuccessfulRun(ENFORCE_LOCK),
      readTick: (seconds) => services.readTick(seconds),
      reconcile: () => deps.reconcile(),
      syncStatistics: () => services.syncStatistics(),
      enforceLimits: () => services.enforceLimits(),
      switchMonitoring: async () => ({ ...(await services.switchMonitoring()) }),
      sendMailDigests: async () => deps.mailer.sendDigests(),
      panelCheck:
        deps.panelCheck && config.panel.checkEveryMinutes !== null
          ? { everyMinutes: config.panel.checkEveryMinutes, run: deps.panelCheck, lastRun: deps.stats.lastSuccessfulRun(IMPORT_RUN) }
          : undefined,
    });
    life.onClose(() => schedule.stop());
  }
  return { wake: options.runWorker ? () => worker.wake() : () => {}, drain: () => worker.drain() };
}
