/**
 * What `wpp serve` runs on a schedule: the reconciliation every minute, the statistics
 * sync every WPP_SYNC_INTERVAL_MINUTES followed by an enforcement pass on what it read, and,
 * with WPP_PANEL set, the comparison of the panel's accounts every WPP_PANEL_CHECK_HOURS.
 */
import type { Logger } from 'pino';
import type { EnforceResult } from '../core/enforcement.js';
import { LockHeldError } from '../core/job-lock.js';
import { SYNC_LOCK, type SyncResult } from '../core/statistics.js';
import { createScheduler, type Scheduler } from './schedule.js';

export interface PluginScheduleDeps {
  logger: Logger;
  now: () => number;
  syncEveryMinutes: number;
  /** When the last sync succeeded (job_runs), or null: decides the catch-up at start. */
  lastSuccessfulSync: number | null;
  reconcile(): { enqueued: number };
  syncStatistics(): Promise<SyncResult>;
  enforceLimits(): Promise<EnforceResult>;
  /** The panel drift check (`wpp import` without --apply), when a panel is configured. */
  panelCheck?: { everyMinutes: number; run(): Promise<Record<string, unknown>>; lastRun: number | null } | undefined;
}

export const PANEL_CHECK = 'panel-check';

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
      { name: SYNC_LOCK, everyMinutes: deps.syncEveryMinutes, run: () => syncThenEnforce(deps) },
      ...(deps.panelCheck ? [{ name: PANEL_CHECK, everyMinutes: deps.panelCheck.everyMinutes, run: deps.panelCheck.run }] : []),
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

async function syncThenEnforce(deps: PluginScheduleDeps): Promise<Record<string, unknown>> {
  const sync = await deps.syncStatistics();
  if (sync.skipped || sync.stopped) return { ...sync };
  const enforcement = await deps.enforceLimits().catch((error: unknown) => {
    // Another process's pass (wpp enforce) is at it: this one has nothing to add.
    if (error instanceof LockHeldError) return { skipped: true, holder: error.holder };
    throw error;
  });
  return { ...sync, enforcement };
}
