import { Command } from 'commander';
import { z } from 'zod';
import { englishTranslate } from './english.js';
import { shareWithFleet } from './fleet-share.js';
import { DEFAULT_PLAN } from '../core/provisioning.js';
import type { EnforceResult } from '../core/enforcement.js';
import { LockHeldError } from '../core/job-lock.js';
import {
  applyLimitsChange,
  LIMIT_VALUE_FIELDS,
  normalizeLimitSubject,
  parseLimitsChange,
  type IsKnown,
  type LimitsChange,
  type LimitsInput,
  type LimitsProblem,
} from '../core/limits-change.js';
import { DEFAULT_LIMITS } from '../core/quota.js';
import type { Db } from '../db/open.js';
import { describeHolder } from '../locks.js';
import { createSettingsRepo } from '../db/settings.repo.js';
import { createStatisticsRepo, type LimitScope } from '../db/statistics.repo.js';
import { openPluginDatabase } from '../db/plugin-database.js';
import { startPlugin, type RunningPlugin } from '../main.js';
import { normalizeDomain } from '../provider/spec.js';
import {
  abortOnSignal,
  cliActor,
  configFromEnv,
  optionValues,
  StoppedBySignal,
  UsageError,
  validateOptions,
  type OptionValues,
} from './shared.js';

/**
 * Exit codes of `wpp sync-stats` and `wpp enforce` (docs/statistics-and-limits.md). Stopped by a signal
 * before the end: 128 + the signal, as shells report it (130 SIGINT, 143 SIGTERM).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, locked: 3 } as const;

const describeEnforcement = (result: EnforceResult) =>
  `enforcement: ${result.paused} paused, ${result.resumed} resumed, ${result.warnings} warnings, ` +
  `${result.leftAlone} left alone (paused or resumed outside the plugin), ${result.failed} failed`;

/** The plugin without HTTP, worker or scheduler: what a one-shot command needs. */
const oneShot = () => startPlugin({ config: configFromEnv(), role: 'command' });

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

const stoppedBy = (signal: AbortSignal): StoppedBySignal =>
  signal.reason instanceof StoppedBySignal ? signal.reason : new StoppedBySignal('SIGTERM');

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

async function runSyncStats(options: { enforce: boolean }): Promise<number> {
  return withPlugin(async (plugin, signal) => {
    const sync = await plugin.syncStatistics({ onProgress: progressPrinter(), signal });
    if (sync.skipped) {
      console.log(
        `another statistics sync is running (${sync.holder ? describeHolder(sync.holder) : 'unknown holder'}): this one did nothing (run ${sync.runId})`,
      );
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
    if (allFailed)
      console.error(
        `wpp: every statistics read failed (${sync.failed} of ${sync.total} websites), e.g. ${sync.firstError ?? 'unknown error'}`,
      );
    if (options.enforce) {
      if (signal.aborted) {
        const stop = stoppedBy(signal);
        console.log(`enforcement: not run, stopped by ${stop.signal}`);
        return stop.exitCode;
      }
      try {
        const result = await plugin.enforceLimits();
        console.log(describeEnforcement(result));
      } catch (error) {
        if (!(error instanceof LockHeldError)) throw error;
        // The sync itself ran; the pass in progress enforces.
        console.log(`enforcement: not run, another pass is running (${describeHolder(error.holder)})`);
      }
    }
    return allFailed ? EXIT.failed : EXIT.ok;
  });
}

/**
 * `wpp sync-stats --due`: the adaptive sync's tick now (wpp serve runs one every minute): only
 * the websites due, within the request budget of serve's tick, enforcing the accounts it read.
 */
async function runDueTick(): Promise<number> {
  return withPlugin(async (plugin, signal) => {
    const tick = await plugin.readDueStatistics(signal);
    if (tick.skipped) {
      console.log('another adaptive tick is running: this one did nothing');
      return EXIT.locked;
    }
    const read = `${tick.read} of ${tick.due} due websites read, ${tick.failed} failed, ${tick.paused} paused, ${tick.spikes} attack spikes`;
    if (tick.stopped) {
      const stop = stoppedBy(signal);
      console.log(`statistics tick stopped by ${stop.signal}: ${read}; what was read is stored (run ${tick.runId})`);
      return stop.exitCode;
    }
    console.log(`statistics: ${read}, in ${tick.seconds.toFixed(1)} s (run ${tick.runId})`);
    if (tick.failed > 0 && tick.read === 0) {
      console.error(`wpp: every statistics read failed (${tick.failed} websites), e.g. ${tick.firstError ?? 'unknown error'}`);
      return EXIT.failed;
    }
    return EXIT.ok;
  });
}

async function runEnforce(): Promise<number> {
  // A signal lets the pass finish (it is short, and every action is keyed so a repeat is a no-op); a second exits at once.
  return withPlugin(async (plugin) => {
    try {
      const result = await plugin.enforceLimits();
      console.log(describeEnforcement(result));
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof LockHeldError)) throw error;
      console.log(`another enforcement pass is running (${describeHolder(error.holder)}): this one did nothing`);
      return EXIT.locked;
    }
  });
}

/** The rules' types, where the CLI's callers have always found them. */
export type { IsKnown, LimitsChange } from '../core/limits-change.js';

const VALUE_OPTIONS = LIMIT_VALUE_FIELDS.map((name) => `--${name}`).join(', ');

/** A problem as `wpp limits` has always worded it: by its --options. */
function usageLine(problem: LimitsProblem, input: LimitsInput): string {
  const scope = input.scope ?? '';
  switch (problem.reason) {
    case 'invalid':
      return `--${problem.field}: ${problem.message}`;
    case 'nothing-to-change':
      return `nothing to change: give at least one of ${VALUE_OPTIONS}`;
    case 'required':
      return problem.field === 'scope'
        ? '--scope is required to change a limit (global, plan, account, website or reseller); without options, wpp limits only shows the table'
        : `--scope ${scope} needs --subject (the ${scope} it applies to)`;
    case 'not-applicable':
      if (problem.field === 'subject')
        return '--subject does not apply to --scope global (the global row applies to every account and website)';
      if (problem.field === 'allow-unknown') return '--allow-unknown does not apply to --scope global';
      if (problem.field === 'pool-hits') return `--pool-hits is a reseller's pool: only with --scope reseller (not ${scope})`;
      if (scope === 'reseller')
        return `--${problem.field} does not apply to --scope reseller: its row sets --pool-hits, --period, --anchor-day and --warning-percent only`;
      return `--${problem.field} does not apply to --scope website: it is the account's (set it at account, plan or global scope)`;
    case 'unknown-subject': {
      const subject = input.subject ?? '';
      const normalized = normalizeLimitSubject(scope as Exclude<LimitScope, 'global'>, subject, englishTranslate());
      const spelled = !normalized.ok || normalized.subject === subject ? `"${subject}"` : `"${subject}" (${normalized.subject})`;
      return `--subject: the plugin knows no ${scope} ${spelled}; check the spelling, or give --allow-unknown to set it before the ${scope} exists`;
    }
  }
}

/** The option values of `wpp limits` as the rules read them (commander gives strings, and true for a flag). */
function limitsInput(raw: OptionValues): LimitsInput {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    scope: text(raw.scope),
    subject: text(raw.subject),
    allowUnknown: raw['allow-unknown'] === true,
    ...Object.fromEntries(LIMIT_VALUE_FIELDS.map((name) => [name, text(raw[name])])),
  };
}

/**
 * Reads `wpp limits` option values into one change, or null when none is asked for (show the
 * table), by the rules of core/limits-change.ts. Every problem lands in one UsageError, so
 * nothing is stored unless all of it is right.
 */
export function limitsChange(raw: OptionValues, isKnown: IsKnown): LimitsChange | null {
  const input = limitsInput(raw);
  const result = parseLimitsChange(input, isKnown, englishTranslate());
  if (result === null) return null;
  if (!result.ok) throw new UsageError(result.problems.map((problem) => usageLine(problem, input)).join('\n'));
  return result.change;
}

/**
 * Shows the limits table, or changes one row: only the options given change (`none` clears
 * one), the rest of the row stays; the change is recorded with the OS user. Needs only the
 * database, not the provider.
 */
async function runLimits(options: OptionValues): Promise<number> {
  const opened: { db?: Db } = {};
  const config = configFromEnv();
  const database = () => (opened.db ??= openPluginDatabase(config));
  try {
    const change = limitsChange(
      options,
      // The default plan is every plan-less account's, so it is always known.
      (scope, subject) =>
        (scope === 'plan' && subject === DEFAULT_PLAN) || createStatisticsRepo(database()).limitSubjectExists(scope, subject),
    );
    if (options.fleet === true && !change)
      throw new UsageError('--fleet shares a change with every server: give --scope and a value to change');
    const db = database();
    const stats = createStatisticsRepo(db);
    // With --fleet, stored for every server first, then applied here from the fleet database (cli/fleet-share.ts).
    if (change && options.fleet === true) console.log(await shareWithFleet(config, db, { kind: 'limits', change }, cliActor()));
    else if (change) applyLimitsChange({ stats, audit: createSettingsRepo(db) }, change, cliActor());
    for (const [key, layer] of stats.limitLayers()) console.log(`${key}\t${JSON.stringify(layer)}`);
    return 0;
  } finally {
    opened.db?.close();
  }
}

async function runResume(domain: string, options: { admin: string }): Promise<number> {
  // As panel events spell it: `Bücher.example` is the website xn--bcher-kva.example.
  const normalized = normalizeDomain(domain);
  if (normalized === null) throw new UsageError(`resume: ${JSON.stringify(domain)} is not a valid domain name`);
  return withPlugin(async (plugin) => {
    const website = await plugin.adminResume(normalized, options.admin);
    console.log(`${website.domain} resumed by ${options.admin} until ${new Date(website.adminOverrideUntil ?? 0).toISOString()}`);
    return 0;
  });
}

export const syncStatsCommand = () =>
  new Command('sync-stats')
    .description("read every website's statistics now (progress on standard error), then enforce the limits")
    .option('--no-enforce', 'only read the statistics')
    .option(
      '--due',
      "only the websites due now, as wpp serve's adaptive sync reads them every minute (at most WPP_SYNC_RATE × 55), enforcing the accounts it read",
    )
    .addHelpText(
      'after',
      `
Exit codes: ${EXIT.ok} it ran (some reads may have failed: it says how many); ${EXIT.failed} an error, or every read failed;
${EXIT.usage} usage; ${EXIT.locked} skipped, another sync holds the lock (named); 130/143 stopped by SIGINT/SIGTERM
(what was read is kept).`,
    )
    .action(async (options: { enforce: boolean; due?: boolean }) => {
      if (options.due && !options.enforce) throw new UsageError('--due enforces the accounts it read: it does not go with --no-enforce');
      process.exitCode = options.due ? await runDueTick() : await runSyncStats(options);
    });

export const enforceCommand = () =>
  new Command('enforce').description('one enforcement pass now (pause, resume, warn); exit 3 while another pass runs').action(async () => {
    process.exitCode = await runEnforce();
  });

const none = '`none` clears it';
const notForWebsites = 'not with --scope website';
export const limitsCommand = () =>
  new Command('limits')
    .description('show the limits table, or change one row of it (then show it); options not given keep their value')
    .option('--scope <scope>', 'the row to change: global, plan, account, website or reseller')
    .option('--subject <name>', 'its plan, account, website or reseller (not with global), normalised as enforcement looks it up')
    .option('--allow-unknown', 'accept a subject the plugin does not know yet (an account about to be created)')
    .option('--website-hits <n>', `hits per period of one website; ${none}`)
    .option('--account-hits <n>', `hits per period of all an account's websites together (${notForWebsites}); ${none}`)
    .option('--domain-limit <n>', `websites an account may protect (${notForWebsites}); ${none}`)
    .option('--period <period>', `monthly or daily (${notForWebsites}; ${DEFAULT_LIMITS.period} where no row sets it); ${none}`)
    .option(
      '--anchor-day <day>',
      `day a monthly period starts, 1-28 (${notForWebsites}; ${DEFAULT_LIMITS.anchorDay} where no row sets it); ${none}`,
    )
    .option(
      '--warning-percent <p>',
      `warn at this share of a limit, 1-100 (${DEFAULT_LIMITS.warningPercent} where no row sets it); ${none}`,
    )
    .option('--exempt <bool>', `true: never paused by enforcement, or false; ${none}`)
    .option(
      '--pool-hits <n>',
      `hits per period of all a reseller's customers' websites together (only with --scope reseller; its period: the reseller row's, else global); ${none}`,
    )
    .option(
      '--fleet',
      'change it on every server of the fleet (WPP_FLEET_DATABASE_URL): stored in the fleet database, then applied here and by every other server',
    )
    .addHelpText('after', '\nNumbers are plain decimal digits. Every bad option is refused (exit 2) and nothing changes.')
    .action(async (_options, command: Command) => {
      process.exitCode = await runLimits(optionValues(command));
    });

export const resumeCommand = () =>
  new Command('resume')
    .description('resume a website enforcement paused, for the rest of its period')
    .argument('<domain>', 'the domain as the panel spells it (IDN and upper case are fine)')
    .requiredOption('--admin <name>', 'who resumes it, recorded with the action')
    .action(async (domain: string, _options, command: Command) => {
      process.exitCode = await runResume(domain, validateOptions(z.object({ admin: z.string().trim().min(1) }), optionValues(command)));
    });
