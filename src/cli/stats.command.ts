import { z } from 'zod';
import { createStatisticsRepo } from '../db/statistics.repo.js';
import { openPluginDatabase, startPlugin, type RunningPlugin } from '../main.js';
import { configFromEnv, parseOptions, stopOnSignal, UsageError } from './shared.js';

export const statsUsage = `  sync-stats [--no-enforce]  read every website's statistics now, then enforce the limits
  enforce                    one enforcement pass now (pause, resume, warn)
  limits [--scope S --subject X --website-hits N --account-hits N --domain-limit N
          --period monthly|daily --anchor-day D --warning-percent P --exempt true|false]
                             show the limits table, or change one row (scope: global, plan, account,
                             website); options not given keep their value, \`none\` clears one
  resume <domain> --admin NAME   resume a website enforcement paused, for the rest of its period`;

/** The plugin without HTTP, worker or scheduler: what a one-shot command needs. */
const oneShot = () => startPlugin({ config: configFromEnv(), http: false, worker: false, scheduler: false });

async function withPlugin<T>(fn: (plugin: RunningPlugin) => Promise<T>): Promise<T> {
  const plugin = await oneShot();
  // Ctrl-C or SIGTERM: stop between pages, store what was read, release the sync lock.
  stopOnSignal(plugin);
  try {
    return await fn(plugin);
  } finally {
    await plugin.close();
  }
}

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
  return withPlugin(async (plugin) => {
    const sync = await plugin.syncStatistics({ onProgress: progressPrinter() });
    if (sync.skipped) {
      console.log('another statistics sync is running: this one did nothing');
      return 0;
    }
    console.log(`statistics: ${sync.read} websites read, ${sync.failed} failed, in ${sync.seconds.toFixed(1)} s (run ${sync.runId})`);
    if (!options['no-enforce']) {
      const result = await plugin.enforceLimits();
      console.log(`enforcement: ${result.paused} paused, ${result.resumed} resumed, ${result.warnings} warnings, ${result.failed} failed`);
    }
    return 0;
  });
}

export async function runEnforce(args: string[]): Promise<number> {
  parseOptions(z.object({}), args);
  return withPlugin(async (plugin) => {
    const result = await plugin.enforceLimits();
    console.log(`enforcement: ${result.paused} paused, ${result.resumed} resumed, ${result.warnings} warnings, ${result.failed} failed`);
    return 0;
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
