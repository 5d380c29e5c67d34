/** The plugin's repositories on its open database, and the one-server-per-data-folder lock. */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { acquireJobLock } from '../core/job-lock.js';
import { createAccountsRepo } from '../db/accounts.repo.js';
import { openApiKeys } from '../db/api-keys.js';
import { createJobsRepo } from '../db/jobs.repo.js';
import { createPackagesRepo } from '../db/packages.repo.js';
import type { Db } from '../db/open.js';
import { createReadScheduleRepo } from '../db/read-schedule.repo.js';
import { createSessionsRepo } from '../db/sessions.repo.js';
import { createSettingsRepo } from '../db/settings.repo.js';
import { createStatisticsRepo, type StatisticsRepo } from '../db/statistics.repo.js';
import { AppError } from '../errors.js';
import type { Lifecycle } from '../lifecycle.js';
import { describeHolder, SERVE_LOCK } from '../locks.js';

/** The repositories the services share; the API keys' key file is opened (and checked) first. */
export function openRepositories(db: Db, config: Config, logger: Logger, now: () => number) {
  const { keys, encrypted } = openApiKeys(db, config.keyFile, (message) => logger.warn(message));
  if (encrypted > 0) logger.info({ accounts: encrypted }, 'stored API keys encrypted with the key file');
  return {
    jobs: createJobsRepo(db, now),
    accounts: createAccountsRepo(db, now, keys),
    stats: createStatisticsRepo(db, now),
    schedule: createReadScheduleRepo(db),
    audit: createSettingsRepo(db, now),
    sessions: createSessionsRepo(db),
    packages: createPackagesRepo(db),
  };
}

/** One server per data folder: two would run every scheduled job and enforcement twice. */
export function holdServeLock(config: Config, stats: StatisticsRepo, logger: Logger, life: Lifecycle): void {
  const serving = acquireJobLock(stats, SERVE_LOCK, logger);
  if (!serving.taken) {
    throw new AppError(
      'CONFLICT',
      `Another wpp serve already runs on the data folder ${config.dataDir} (${describeHolder(serving.holder)}): stop it first, or give this one its own WPP_DATA_DIR`,
    );
  }
  life.onClose(() => serving.release());
}
