/** The services (core/services.ts) on the plugin's repositories, queue, provider and settings. */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { createJobQueue } from '../core/job-queue.js';
import type { Mailer } from '../core/mail.js';
import { notifyWhileOn, type EnforcementNotice } from '../core/notifications.js';
import type { createPluginSettings } from '../core/plugin-settings.js';
import { createServices } from '../core/services.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { createJobsRepo } from '../db/jobs.repo.js';
import type { Db } from '../db/open.js';
import type { ReadScheduleRepo } from '../db/read-schedule.repo.js';
import type { SessionsRepo } from '../db/sessions.repo.js';
import type { createSettingsRepo } from '../db/settings.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import { createMonitoringRepo } from '../db/monitoring.repo.js';
import { createUnprotectedRepo } from '../db/unprotected.repo.js';
import type { PackagesRepo } from '../db/packages.repo.js';
import type { Lifecycle } from '../lifecycle.js';
import type { createMetrics } from '../metrics.js';
import type { ProviderClient } from '../provider/index.js';
import type { ServerIdentity } from '../core/server-identity.js';

/** The services (provisioning, sync, enforcement, protection) on the plugin's parts. */
export function wireServices(
  parts: {
    db: Db;
    accounts: AccountsRepo;
    stats: StatisticsRepo;
    schedule: ReadScheduleRepo;
    jobs: ReturnType<typeof createJobsRepo>;
    audit: ReturnType<typeof createSettingsRepo>;
    sessions: SessionsRepo;
    packages: PackagesRepo;
    provider: ProviderClient;
    logger: Logger;
    now: () => number;
    queue: ReturnType<typeof createJobQueue>;
    life: Lifecycle;
    metrics: ReturnType<typeof createMetrics>;
    settings: ReturnType<typeof createPluginSettings>;
    callbackKey: string;
    /** The e-mails (core/mail.ts): told of every action and switch, whatever the webhook's setting. */
    mailer: Mailer;
    /** The server's request budget (wiring/pacer.ts), when WPP_SYNC_RATE limits it: a tick asks for what it can spend. */
    pacer?: { rate(): number } | undefined;
    /** This panel server's id: its websites' served-by tag at the provider (core/serving-server.ts). */
    identity: ServerIdentity;
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
    settings: {
      accountDomain: where.accountDomain,
      server: { ...where.server, id: parts.identity.serverId },
      publicUrl: where.publicUrl,
      callbackKey,
    },
    autoProtect: settings.autoProtect,
    sync: { ...where.sync, ...(parts.pacer ? { learnedRate: parts.pacer.rate } : {}) },
    schedule,
    notify: alsoMail(notifyWhileOn(settings.notifyUrl, queue.notify), parts.mailer.onEnforcementAction),
    onMonitoringSwitched: parts.mailer.onMonitoringSwitched,
    notifySpike: notifyWhileOn(settings.notifyUrl, queue.notifySpike),
    signal: life.signal,
    track: life.track,
    queue,
    jobs,
    unprotected: createUnprotectedRepo(parts.db),
    monitoring: createMonitoringRepo(parts.db, now),
    audit,
    observer: metrics.services,
    endCustomerSessions: (account) => void parts.sessions.deleteSessionsOf('customer', account),
    packages: { repo: parts.packages, graceDays: settings.packageGraceDays },
  });
}

/** The webhook's hook and the mails' hook on one action: the signed webhook stays as it is beside the mails. */
const alsoMail =
  (webhook: (action: EnforcementNotice) => void, mail: (action: EnforcementNotice) => void) =>
  (action: EnforcementNotice): void => {
    webhook(action);
    mail(action);
  };
