/**
 * What `wpp serve` runs on a schedule: the reconciliation every minute; the statistics sync,
 * either adaptive (a tick every minute reading the websites due, enforcing as it reads, and a
 * full enforcement pass every WPP_SYNC_INTERVAL_MINUTES) or full (every website every
 * WPP_SYNC_INTERVAL_MINUTES, then an enforcement pass); and, with WPP_PANEL set, the
 * comparison of the panel's accounts every WPP_PANEL_CHECK_HOURS; and the switch of websites
 * whose monitoring is over to protecting, every MONITORING_SWITCH_MINUTES.
 */
import type { Logger } from 'pino';
import type { EnforceResult } from '../core/enforcement.js';
import { LockHeldError } from '../core/job-lock.js';
import type { ReadTickResult } from '../core/read-tick.js';
import { SYNC_LOCK, type SyncResult } from '../core/statistics.js';
import { createScheduler, type Scheduler } from './schedule.js';

export interface PluginScheduleDeps {
  logger: Logger;
  now: () => number;
  syncEveryMinutes: number;
  /** `adaptive`: `readTick` every minute; `full`: `syncStatistics` every syncEveryMinutes. */
  mode: 'adaptive' | 'full';
  /** When the last full enforcement pass succeeded (job_runs), or null. */
  lastSuccessfulEnforce: number | null;
  /** When the last sync succeeded (job_runs), or null: decides the catch-up at start. */
  lastSuccessfulSync: number | null;
  reconcile(): { enqueued: number };
  syncStatistics(): Promise<SyncResult>;
  /** One adaptive tick spending at most `seconds` of the request budget. */
  readTick(seconds: number): Promise<ReadTickResult>;
  enforceLimits(): Promise<EnforceResult>;
  /** Switches websites whose monitoring is over to protecting (core/monitoring.ts). */
  switchMonitoring?: (() => Promise<Record<string, unknown>>) | undefined;
  /** The daily e-mail digests of resellers and the admin (core/mail.ts), at 00:00 UTC. */
  sendMailDigests?: (() => Promise<Record<string, unknown>>) | undefined;
  /** The panel drift check (`wpp import` without --apply), when a panel is configured. */
  panelCheck?: { everyMinutes: number; run(): Promise<Record<string, unknown>>; lastRun: number | null } | undefined;
}

export const PANEL_CHECK = 'panel-check';
export const MONITORING_SWITCH = 'monitoring-switch';
export const MAIL_DIGESTS = 'mail-digests';
/** Monitoring is counted in days: a website switches within minutes of its day, and the switch costs nothing when none is due. */
export const MONITORING_SWITCH_MINUTES = 5;

/** Starts the schedule; a sync missed while the plugin was stopped runs now, not at the next slot. */
export function startPluginSchedule(deps: PluginScheduleDeps): Scheduler {
  const scheduler = createScheduler({
    logger: deps.logger,
    now: deps.now,
    jobs: [
      {
        name: 'reconcile',
        // Websites stuck in a non-final state (pending DNS, issuing a certificate, or never read) are looked up again.
        everyMinutes: 1,
        run: async () => deps.reconcile(),
      },
      deps.mode === 'adaptive'
        ? { name: SYNC_LOCK, everyMinutes: 1, run: tickThenEnforce(deps) }
        : { name: SYNC_LOCK, everyMinutes: deps.syncEveryMinutes, run: () => syncThenEnforce(deps) },
      ...(deps.panelCheck ? [{ name: PANEL_CHECK, everyMinutes: deps.panelCheck.everyMinutes, run: deps.panelCheck.run }] : []),
      ...(deps.sendMailDigests ? [{ name: MAIL_DIGESTS, everyMinutes: 24 * 60, run: deps.sendMailDigests }] : []),
      ...(deps.switchMonitoring ? [{ name: MONITORING_SWITCH, everyMinutes: MONITORING_SWITCH_MINUTES, run: deps.switchMonitoring }] : []),
    ],
  });
  scheduler.start();
  const last = deps.lastSuccessfulSync;
  if (last === null || deps.now() - last > deps.syncEveryMinutes * 60_000) scheduler.runNow(SYNC_LOCK);
  // The same for the panel check: a server that was down at its daily slot still compares once a day.
  const check = deps.panelCheck;
  if (check && (check.lastRun === null || deps.now() - check.lastRun > check.everyMinutes * 60_000)) scheduler.runNow(PANEL_CHECK);
  return scheduler;
}

/** The seconds of request budget one tick spends: under the minute between ticks, so one ends before the next begins. */
export const TICK_BUDGET_SECONDS = 55;

/** An adaptive tick, then a full enforcement pass when WPP_SYNC_INTERVAL_MINUTES have passed since the last. */
function tickThenEnforce(deps: PluginScheduleDeps): () => Promise<Record<string, unknown>> {
  let lastEnforce = deps.lastSuccessfulEnforce;
  return async () => {
    const tick = await deps.readTick(TICK_BUDGET_SECONDS);
    if (tick.skipped || tick.stopped) return { ...tick };
    if (lastEnforce !== null && deps.now() - lastEnforce < deps.syncEveryMinutes * 60_000) return { ...tick };
    lastEnforce = deps.now();
    return { ...tick, enforcement: await fullEnforcement(deps) };
  };
}

/** A full enforcement pass; one that another process is running already is left to it. */
const fullEnforcement = (deps: PluginScheduleDeps) =>
  deps.enforceLimits().catch((error: unknown) => {
    if (error instanceof LockHeldError) return { skipped: true, holder: error.holder };
    throw error;
  });

async function syncThenEnforce(deps: PluginScheduleDeps): Promise<Record<string, unknown>> {
  const sync = await deps.syncStatistics();
  if (sync.skipped || sync.stopped) return { ...sync };
  // Another process's pass (wpp enforce) may be at it: this one then has nothing to add.
  const enforcement = await fullEnforcement(deps);
  return { ...sync, enforcement };
}
