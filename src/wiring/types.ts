/**
 * What the composition root (src/main.ts) is asked for and what it gives back: the roles a
 * process plays, its options, and the running plugin its callers (the CLI, tests, benches) use.
 */
import type { DirectAdminApiOptions } from '../panel/directadmin-session.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EnforceResult } from '../core/enforcement.js';
import type { PluginSettings } from '../core/plugin-settings.js';
import type { Services } from '../core/services.js';
import type { SyncOptions, SyncResult } from '../core/statistics.js';
import type { Website } from '../core/types.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { ImportRepo } from '../db/import.repo.js';
import type { JobsRepo } from '../db/jobs.repo.js';
import type { Db } from '../db/open.js';
import type { ReadScheduleRepo } from '../db/read-schedule.repo.js';
import type { SettingsRepo } from '../db/settings.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import type { Metrics } from '../metrics.js';
import type { PanelImport } from '../panel/listings/index.js';
import type { ProviderClient, ProviderClientOptions } from '../provider/index.js';
import type { RunningSandbox } from '../sandbox/server.js';

/**
 * What a process is for. `serve` (wpp serve): the HTTP server, the embedded sandbox, the
 * server's registration, the worker and the schedule; one per data folder. `worker` (wpp
 * worker): more job workers beside it, reaching its sandbox with the stored key. `command`:
 * a one-shot command (sync-stats, enforce, limits, ...) that runs nothing in the background.
 */
export type PluginRole = 'serve' | 'worker' | 'command';

export const ROLES = {
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
  /** HTTP server timeouts, for tests (see http-server.ts for the defaults). */
  serverTimeouts?: { headersMs?: number; requestMs?: number };
  /** The root the panel's tools and files are taken under by the scheduled panel check (`wpp import --root`), for tests. Default '/'. */
  panelRoot?: string;
  /**
   * Whether this process may run the panel's tools, which answer root only. Default: it runs
   * as root. An installed serve runs as the wpp user and leaves the scheduled comparison to
   * `wpp import <panel> --if-due`, run as root by wpp-panel-check.timer.
   */
  panelToolsAsRoot?: boolean;
  /** DirectAdmin's API for the pages' sign-in (default: its real address, its listener checked in /proc), for tests. */
  directadmin?: DirectAdminApiOptions;
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
