import { z } from 'zod';
import { describeHolder, LockHeldError } from '../core/job-lock.js';
import { createStatisticsRepo } from '../db/statistics.repo.js';
import { openPluginDatabase, startPlugin, type RunningPlugin } from '../main.js';
import { abortOnSignal, configFromEnv, parseOptions, StoppedBySignal, UsageError } from './shared.js';

/**
 * Exit codes of `wpp sync-stats` and `wpp enforce` (README, "Exit codes"). Stopped by a signal
 * before the end: 128 + the signal, as shells report it (130 SIGINT, 143 SIGTERM).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, locked: 3 } as const;

export const statsUsage = `  sync-stats [--no-enforce]  read every website's statistics now, then enforce the limits. Exit 0: it ran
                             (some reads may have failed: it says how many); 1: an error, or every
                             read failed; 2: usage; 3: skipped, another sync holds the lock (named);
                             130/143: stopped by SIGINT/SIGTERM (what was read is kept)
  enforce                    one enforcement pass now (pause, resume, warn); exit 3 while another
                             pass runs
  limits [--scope S --subject X --website-hits N --account-hits N --domain-limit N
          --period monthly|daily --anchor-day D --warning-percent P --exempt true|false]
                             show the limits table, or change one row (scope: global, plan, account,
                             website); options not given keep their value, \`none\` clears one
  resume <domain> --admin NAME   resume a website enforcement paused, for the rest of its period`;

/** The plugin without HTTP, worker or scheduler: what a one-shot command needs. */
const oneShot = () => startPlugin({ config: configFromEnv(), http: false, worker: false, scheduler: false });

/**
 * Runs a one-shot command on the plugin. The first SIGINT/SIGTERM aborts `signal` (the command
 * stops its work, stores what it did, says so and returns its code); a second exits at once.
 */
async function withPlugin<T>(fn: (plugin: RunningPlugin, signal: AbortSignal) => Promise<T>): Promise<T> {
  const plugin = await oneShot();
  const stop = new AbortController();
  const removeHandlers = abortOnSignal(stop);
  try {
    return await fn(plugin, stop.signal);
  } finally {
    await plugin.close();
    removeHandlers();
  }
}

const stoppedBy = (signal: AbortSignal): StoppedBySignal => (signal.reason instanceof StoppedBySignal ? signal.reason : new StoppedBySignal('SIGTERM'));

/** One line that rewrites itself on a terminal, or a line per 10% elsewhere (logs, cron mail). */
function progressPrinter() {
  const tty = process.stderr.isTTY;
  let lastDecile = -1;
  return (done: number, total: number) => {
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    if (tty) process.stderr.write(`\rstatistics: ${done}/${total} websites (${percent}%)${done === total ? '\n' : ''}`);
    else if (Math.floor(percent / 10) !== lastDecile) {
      lastDecile = Math.floor(percent / 10);
      console.error(`statistics: ${done}/${total} websites (${percent}%)`);
    }
  };
}

export async function runSyncStats(args: string[]): Promise<number> {
  const options = parseOptions(z.object({ 'no-enforce': z.boolean().default(false) }), args, ['no-enforce']);
  return withPlugin(async (plugin, signal) => {
    const sync = await plugin.syncStatistics({ onProgress: progressPrinter(), signal });
    if (sync.skipped) {
      console.log(`another statistics sync is running (${sync.holder ? describeHolder(sync.holder) : 'unknown holder'}): this one did nothing (run ${sync.runId})`);
      return EXIT.locked;
    }
    if (sync.stopped) {
      const stop = stoppedBy(signal);
      if (process.stderr.isTTY) process.stderr.write('\n');
      console.log(
        `statistics sync stopped by ${stop.signal} after ${sync.read + sync.failed} of ${sync.total} websites (${sync.read} read, ${sync.failed} failed) ` +
          `in ${sync.seconds.toFixed(1)} s (run ${sync.runId}); what was read is stored, the next run reads every website again`,
      );
      return stop.exitCode;
    }
    console.log(`statistics: ${sync.read} websites read, ${sync.failed} failed, in ${sync.seconds.toFixed(1)} s (run ${sync.runId})`);
    const allFailed = sync.failed > 0 && sync.read === 0;
    if (allFailed) console.error(`wpp: every statistics read failed (${sync.failed} of ${sync.total} websites), e.g. ${sync.firstError ?? 'unknown error'}`);
    if (!options['no-enforce']) {
      if (signal.aborted) {
        const stop = stoppedBy(signal);
        console.log(`enforcement: not run, stopped by ${stop.signal}`);
        return stop.exitCode;
      }
      try {
        const result = await plugin.enforceLimits();
        console.log(`enforcement: ${result.paused} paused, ${result.resumed} resumed, ${result.warnings} warnings, ${result.failed} failed`);
      } catch (error) {
        if (!(error instanceof LockHeldError)) throw error;
        // The sync itself ran; the pass in progress enforces.
        console.log(`enforcement: not run, another pass is running (${describeHolder(error.holder)})`);
      }
    }
    return allFailed ? EXIT.failed : EXIT.ok;
  });
}

export async function runEnforce(args: string[]): Promise<number> {
  parseOptions(z.object({}), args);
  // A signal lets the pass finish (it is short, and every action is keyed so a repeat is a no-op); a second exits at once.
  return withPlugin(async (plugin) => {
    try {
      const result = await plugin.enforceLimits();
      console.log(`enforcement: ${result.paused} paused, ${result.resumed} resumed, ${result.warnings} warnings, ${result.failed} failed`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof LockHeldError)) throw error;
      console.log(`another enforcement pass is running (${describeHolder(error.holder)}): this one did nothing`);
      return EXIT.locked;
    }
  });
}

/** A number, or `none` to clear the value so it is inherited again. */
const orNone = (schema: z.ZodType<number>) => z.union([z.literal('none').transform(() => null), schema]);
const count = orNone(z.coerce.number().int().min(0));
const limitsArgs = z.object({
  scope: z.enum(['global', 'plan', 'account', 'website']).optional(),
  subject: z.string().trim().min(1).optional(),
  period: z.union([z.literal('none').transform(() => null), z.enum(['monthly', 'daily'])]).optional(),
  'anchor-day': orNone(z.coerce.number().int().min(1).max(28)).optional(),
  'website-hits': count.optional(),
  'account-hits': count.optional(),
  'domain-limit': count.optional(),
  'warning-percent': orNone(z.coerce.number().int().min(1).max(100)).optional(),
  exempt: z.enum(['true', 'false', 'none']).optional(),
});

/**
 * Shows the limits table, or changes one row: only the options given change (`none` clears
 * one), the rest of the row stays. Needs only the database, not the provider.
 */
export async function runLimits(args: string[]): Promise<number> {
  const options = parseOptions(limitsArgs, args);
  const db = openPluginDatabase(configFromEnv());
  try {
    const stats = createStatisticsRepo(db);
    if (options.scope) {
      if (options.scope !== 'global' && !options.subject) throw new UsageError(`--scope ${options.scope} needs --subject (the ${options.scope} it applies to)`);
      const given = {
        period: options.period,
        anchorDay: options['anchor-day'],
        websiteHits: options['website-hits'],
        accountHits: options['account-hits'],
        domainLimit: options['domain-limit'],
        warningPercent: options['warning-percent'],
        exempt: options.exempt === undefined ? undefined : options.exempt === 'none' ? null : options.exempt === 'true',
      };
      const changes = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
      stats.setLimits(options.scope, options.subject ?? '', { ...stats.limitLayer(options.scope, options.subject ?? ''), ...changes });
    }
    for (const [key, layer] of stats.limitLayers()) console.log(`${key}\t${JSON.stringify(layer)}`);
    return 0;
  } finally {
    db.close();
  }
}

export async function runResume(args: string[]): Promise<number> {
  const [domain, ...rest] = args;
  if (!domain || domain.startsWith('--')) throw new UsageError('resume takes a domain: wpp resume <domain> --admin NAME');
  const options = parseOptions(z.object({ admin: z.string().trim().min(1) }), rest);
  return withPlugin(async (plugin) => {
    const website = await plugin.adminResume(domain.toLowerCase(), options.admin);
    console.log(`${website.domain} resumed by ${options.admin} until ${new Date(website.adminOverrideUntil ?? 0).toISOString()}`);
    return 0;
  });
}
