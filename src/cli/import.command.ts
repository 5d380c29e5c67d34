import { Command } from 'commander';
import { z } from 'zod';
import { describeCounts, type Comparison, type Difference } from '../core/import-diff.js';
import { monitorDaysSchema } from '../core/monitoring.js';
import { PANELS } from '../core/panel-listing.js';
import type { Config } from '../config.js';
import { startPlugin } from '../main.js';
import type { ListingSource } from '../panel/listings/index.js';
import { configFromEnv, optionValues, UsageError, validateOptions } from './shared.js';

/** Differences printed one a line; the rest are counted (all of them with --json). */
const PRINTED = 25;

const optionsSchema = z.object({
  file: z.string().min(1).optional(),
  root: z.string().min(1).optional(),
  apply: z.boolean().optional(),
  prune: z.boolean().optional(),
  json: z.boolean().optional(),
  'if-due': z.boolean().optional(),
  'monitor-days': monitorDaysSchema.optional(),
});

function sourceOf(panel: string | undefined, options: z.output<typeof optionsSchema>): ListingSource {
  if (options.prune && !options.apply) throw new UsageError('--prune only goes with --apply');
  if (options['monitor-days'] !== undefined && !options.apply) throw new UsageError('--monitor-days only goes with --apply');
  if (options.file !== undefined) {
    if (panel !== undefined) throw new UsageError('give a panel or --file, not both');
    if (options.root !== undefined) throw new UsageError('--root is for reading a panel, not a file');
    return { file: options.file };
  }
  if (panel === undefined) throw new UsageError(`name the panel (${PANELS.join(', ')}) or give --file FILE`);
  const parsed = z.enum(PANELS).safeParse(panel);
  if (!parsed.success) throw new UsageError(`unknown panel "${panel}": one of ${PANELS.join(', ')}`);
  return { panel: parsed.data, ...(options.root ? { root: options.root } : {}) };
}

/** A rewriting line on a terminal (Plesk reads each domain); nothing elsewhere, where the summary says it all. */
function progress(): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  return (done, total) => process.stderr.write(`\rreading the panel: ${done}/${total} domains${done === total ? '\n' : ''}`);
}

const n = (value: number) => value.toLocaleString('en-US');

function describeDifference(d: Difference): string {
  const where = [d.account, d.domain, d.subdomain].filter((part) => part !== undefined).join(' ');
  const extra = d.knownAccount
    ? ` (protected for ${d.knownAccount})`
    : d.kind === 'suspension.differs'
      ? ` (panel: ${d.suspended ? 'suspended' : 'active'})`
      : d.kind === 'reseller.differs'
        ? ` (transferred from ${d.knownReseller ?? 'the host'} to ${d.reseller ?? 'the host'})`
        : '';
  return `  ${d.kind.padEnd(24)} ${where}${extra}${d.queued ? ' [queued]' : ''}`;
}

function printComparison(panel: string, comparison: Comparison, result: { comparisonId: number; runId: number; queued: number | null }) {
  const { listed, known, differences } = comparison;
  console.log(`panel ${panel}: ${n(listed.accounts)} accounts, ${n(listed.domains)} domains, ${n(listed.subdomains)} subdomains`);
  console.log(
    `plugin: ${n(known.accounts)} accounts, ${n(known.websites)} websites protected; provider: ${comparison.providerChecked ? 'users compared' : 'did not answer, not compared'}`,
  );
  console.log(`differences: ${describeCounts(comparison.counts)}`);
  for (const difference of differences.slice(0, PRINTED)) console.log(describeDifference(difference));
  if (differences.length > PRINTED)
    console.log(`  ... and ${n(differences.length - PRINTED)} more (all of them with --json, or on /admin/import)`);
  const queuedBefore = differences.filter((d) => d.queued).length;
  if (result.queued === 0 && queuedBefore === 0) {
    console.log('nothing to queue');
  } else if (result.queued !== null) {
    console.log(
      `queued ${n(result.queued)} events${queuedBefore ? ` (${n(queuedBefore)} were queued already)` : ''}; the worker carries them out`,
    );
  } else if (comparison.actionable > 0) {
    console.log(`run again with --apply to queue ${n(comparison.actionable)} events for what is missing`);
  }
  const gone = comparison.counts['domain.gone'];
  if (gone > 0 && result.queued === null) console.log(`${n(gone)} domains are no longer in the panel: --apply --prune pauses them`);
  console.log(`comparison ${result.comparisonId} recorded (run ${result.runId})`);
}

/**
 * `--if-due`: the scheduled comparison, run as root by wpp-panel-check.timer (the serve, as the
 * wpp user, may not run the panel tools). Why it does nothing now, or undefined when it is due.
 */
function notDue(panel: string, config: Config, lastRun: number | null, now: number): string | undefined {
  if (config.panel.name !== panel) return `no scheduled comparison of ${panel}: WPP_PANEL is ${config.panel.name ?? 'none'}`;
  const every = config.panel.checkEveryMinutes;
  if (every === null) return 'no scheduled comparison: WPP_PANEL_CHECK_HOURS is 0';
  if (lastRun === null || now - lastRun >= every * 60_000) return undefined;
  const at = (ms: number) => new Date(ms).toISOString();
  return `not due: the last comparison ran at ${at(lastRun)}; the next after ${at(lastRun + every * 60_000)} (WPP_PANEL_CHECK_HOURS=${every / 60})`;
}

async function runImport(panel: string | undefined, values: z.output<typeof optionsSchema>): Promise<number> {
  const source = sourceOf(panel, values);
  const scheduled = values['if-due'] === true;
  if (scheduled && (!('panel' in source) || values.apply || values.prune))
    throw new UsageError('--if-due is the scheduled comparison of a panel: name the panel, without --file, --apply or --prune');
  const config = configFromEnv();
  const plugin = await startPlugin({ config, role: 'command' });
  try {
    if ('panel' in source && source.panel === 'plesk') {
      // Root runs this (the timer, an admin): ask Plesk again for the owners the serve's worker may not ask about.
      const kept = await plugin.resolveKeptPleskEvents(source.root);
      // Standard error under --json: standard output is the comparison's JSON alone.
      const say = values.json ? console.error : console.log;
      if (kept.resolved > 0) say(`${kept.resolved} kept Plesk event${kept.resolved === 1 ? '' : 's'} queued: Plesk named the owner`);
      for (const waiting of kept.waiting)
        say(`kept Plesk event (job ${waiting.job}) still waits for the owner of ${waiting.domain}: ${waiting.error}`);
    }
    if (scheduled) {
      const skip = notDue(panel as string, config, plugin.lastPanelImportAt(), Date.now());
      if (skip !== undefined) {
        console.log(skip);
        return 0;
      }
    }
    const options = {
      source: scheduled ? ('schedule' as const) : ('cli' as const),
      apply: values.apply === true,
      prune: values.prune === true,
      monitorDays: values['monitor-days'],
    };
    const result = await plugin.importPanel(source, options, values.json ? undefined : progress());
    const label = 'file' in source ? source.file : source.panel;
    if (values.json) {
      const { comparison, comparisonId, runId, queued } = result;
      console.log(JSON.stringify({ panel: label, comparisonId, runId, queued, ...comparison }, null, 2));
    } else printComparison(label, result.comparison, result);
    return 0;
  } finally {
    await plugin.close();
  }
}

export function importCommand(): Command {
  return new Command('import')
    .description(
      "Compare the panel's accounts, domains and subdomains with the plugin's and the provider's; --apply queues what is missing",
    )
    .argument('[panel]', `the panel to read: ${PANELS.join(', ')}`)
    .option('--file <file>', 'read a JSON listing instead of a panel (docs/panel-events.md, "Bringing existing accounts in")')
    .option('--root <dir>', "take the panel's tools and files under this folder (tests, a server image)")
    .option('--apply', 'queue account.created, domain.added, subdomain.added (and suspensions) for what is missing')
    .option('--prune', 'with --apply: also queue domain.removed (pausing them) for domains the panel no longer lists')
    .option(
      '--monitor-days <days>',
      "with --apply: days each domain added is monitored (watched, nothing blocked) before it is protected, 0: at once (0 to 90); default: each plan's",
    )
    .option('--json', 'print the comparison as JSON')
    .option(
      '--if-due',
      'the scheduled comparison (wpp-panel-check.timer): only when WPP_PANEL names this panel and WPP_PANEL_CHECK_HOURS have passed',
    )
    .addHelpText('after', '\nWithout --apply nothing changes: the differences are printed and recorded for /admin/import.')
    .action(async (panel: string | undefined, _options: unknown, command: Command) => {
      process.exitCode = await runImport(panel, validateOptions(optionsSchema, optionValues(command)));
    });
}
