/**
 * What the composition root (src/main.ts) is asked for and what it gives back: the roles a
 * process plays, its options, and the running plugin its callers (the `wpp` commands, the benches) use.
 */
import type { DirectAdminApiOptions } from '../panel/directadmin-session.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EnforceResult } from '../core/enforcement.js';
import type { KeptEventsOutcome } from '../core/kept-events.js';
import type { MonitoringSwitch } from '../core/monitoring.js';
import type { ReadTickResult } from '../core/read-tick.js';
import type { SyncOptions, SyncResult } from '../core/statistics.js';
import type { Website } from '../core/types.js';
import type { JobState } from '../db/jobs.repo.js';
import type { PanelImport } from '../panel/listings/index.js';
import type { ProviderClientOptions } from '../provider/index.js';

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
  /** Between the fleet view's publishing rounds (default 30 s), for tests. */
  fleetPublishEveryMs?: number;
  /** Worker tuning, for tests. */
  workerOptions?: { pollMs?: number; leaseMs?: number; backoff?: { baseMs?: number; maxMs?: number } };
}

/**
 * What a started plugin offers its callers (the `wpp` commands and the benches): its address,
 * the embedded sandbox's if it started one, the one-shot commands, and its stop. No
 * repository, database or provider handle: a caller that wants to look at the data opens the
 * database file itself, as an operator's sqlite3 would (docs/architecture.md, "The composition root").
 */
export interface RunningPlugin {
  /** Where the HTTP server listens (serve), or would (the other roles): callback URLs and links are built on it. */
  url: string;
  /** This panel server's id (core/server-identity.ts): kept in its SQLite, the same for every process of the data folder. */
  serverId: string;
  /** The provider sandbox this serve started because no provider is configured, printed for the demo; otherwise undefined. */
  sandbox: { url: string; partnerKey: string } | undefined;
  /** One statistics sync now (the schedule runs it every WPP_SYNC_INTERVAL_MINUTES, then enforces). */
  syncStatistics(options?: Partial<SyncOptions>): Promise<SyncResult>;
  /** One tick of the adaptive sync now (`wpp sync-stats --due`), with the request budget of the tick `wpp serve` runs every minute: the websites due read, enforcing the accounts it read. */
  readDueStatistics(signal?: AbortSignal): Promise<ReadTickResult>;
  /** One enforcement pass now; throws LockHeldError (recording a skipped run) while another pass runs. */
  enforceLimits(): Promise<EnforceResult>;
  /** The scheduled switch now: websites whose monitoring is over go to protecting (the schedule runs it every few minutes). */
  switchMonitoring(): Promise<MonitoringSwitch>;
  /** The daily e-mail digests now (resellers', the admin's): the tests, as the schedule of `wpp serve` runs them at 00:00 UTC. */
  sendMailDigests(): Promise<{ resellers: number; admin: boolean }>;
  /** An admin resumes a website for the rest of its period. */
  adminResume(domain: string, admin: string): Promise<Website>;
  /** `wpp import`: compares a panel's listing with the plugin and the provider, and queues what is missing when asked. */
  importPanel: PanelImport['run'];
  /** `wpp import plesk` as root: asks Plesk (its tools under `root`, default /) again for the owners of the kept Plesk events, queueing those it names. */
  resolveKeptPleskEvents(root?: string): Promise<KeptEventsOutcome>;
  /** When the last successful panel comparison ran (`wpp import --if-due`), or null. */
  lastPanelImportAt(): number | null;
  /** How many jobs are in each state now (`wpp worker --once` prints it). */
  jobCounts(): Record<JobState, number>;
  /** Runs due jobs until none is due (`wpp worker --once`). */
  drain(): Promise<{ done: number; failed: number; dead: number }>;
  close(): Promise<void>;
}
