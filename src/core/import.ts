/**
 * `wpp import` and the scheduled drift check: read the panel's listing, compare it with the
 * plugin and the provider (core/import-diff.ts), record the comparison, and with `apply`
 * queue the missing events through the same ingest as the hooks (replays stay no-ops).
 * Each run is one job_runs row (`panel-import`) and one panel_comparisons row.
 */
import type { Logger } from 'pino';
import type { ImportRepo } from '../db/import.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import { describeError } from '../errors.js';
import { finishEvent, type PanelEvent } from '../panel/events.js';
import type { ProviderClient } from '../provider/index.js';
import { compareListing, describeCounts, eventsToApply, hasDrift, type Comparison } from './import-diff.js';
import type { IngestResult } from './ingest.js';
import type { PanelListing } from './panel-listing.js';
import { postSigned } from './notifications.js';
import { DAY_MS } from '../time.js';
import type { MonitoringChoice } from '../db/monitoring.repo.js';

export const IMPORT_RUN = 'panel-import';

/** The source of the event ids: `import:<hash>`, the same within a minute, so a double --apply is one ingest. */
const EVENT_SOURCE = 'import';

export interface PanelImportDeps {
  repo: Pick<ImportRepo, 'knownState' | 'saveComparison'>;
  stats: Pick<StatisticsRepo, 'startRun' | 'finishRun'>;
  provider: Pick<ProviderClient, 'listUsers'>;
  ingestEvents(events: PanelEvent[]): IngestResult[];
  logger: Logger;
  now: () => number;
  /** Told about drift found by a scheduled comparison (the notification URL); failures are logged, not retried: the next comparison reports it again. */
  notifyDrift?: ((notice: DriftNotice) => Promise<void>) | undefined;
  /** Records the resellers the listing names, with their e-mail addresses (db/import.repo.ts): every run, applied or not. */
  recordResellers?: ((resellers: NonNullable<PanelListing['resellers']>, at: number) => void) | undefined;
  /** Records the run's days of monitoring first for the domains it queues (db/monitoring.repo.ts). */
  chooseMonitoring?: ((choices: MonitoringChoice[]) => void) | undefined;
  /** Records the packages the listing names and whether each includes web protection (the Settings page lists them). */
  recordPackages?: ((packages: { name: string; protection: boolean }[], at: number) => void) | undefined;
}

export interface ImportOptions {
  /** What is being compared (the panel's name, or the listing file's). */
  panel: string;
  source: 'cli' | 'schedule';
  apply: boolean;
  /** With apply: also queue domain.removed for what the panel no longer lists. */
  prune: boolean;
  /**
   * With apply: the days each domain it adds spends monitoring before it is protected (0: at
   * once), whatever its plan says; absent: each plan's days. Applies where auto-protect sets the
   * domains up; with it off they wait in setup, and bulk protect's run chooses.
   */
  monitorDays?: number | undefined;
}

export interface ImportResult {
  runId: number;
  comparisonId: number;
  comparison: Comparison;
  /** Events newly queued (null without apply). */
  queued: number | null;
}

export interface DriftNotice {
  at: number;
  panel: string;
  comparisonId: number;
  counts: Comparison['counts'];
  total: number;
}

/** The provider's user ids; null (with a warning) when it does not answer: the panel and plugin sides are still compared. */
async function providerUserIds(deps: PanelImportDeps): Promise<Set<string> | null> {
  try {
    return new Set((await deps.provider.listUsers()).map((user) => user.id));
  } catch (error) {
    deps.logger.warn({ error: describeError(error) }, 'import: the provider did not list its users; compared without it');
    return null;
  }
}

function queueEvents(deps: PanelImportDeps, comparison: Comparison, options: Pick<ImportOptions, 'prune' | 'monitorDays'>): number {
  const at = new Date(deps.now());
  const events = eventsToApply(comparison, { prune: options.prune }).map((draft) => {
    const parsed = finishEvent(EVENT_SOURCE, draft, at);
    // The listing went through the same schemas as the events: a failure here is a bug, not input.
    if (!parsed.success) throw new Error(`import built an invalid ${draft.type} event: ${parsed.error.message}`);
    return parsed.data;
  });
  if (events.length === 0) return 0;
  if (options.monitorDays !== undefined && deps.chooseMonitoring) {
    // Chosen before the events are queued: the set-up of each domain reads the choice.
    const until = at.getTime() + options.monitorDays * DAY_MS;
    const added = events.filter((event) => event.type === 'domain.added' && event.domain);
    deps.chooseMonitoring(added.map((event) => ({ domain: event.domain as string, until, chosenBy: 'import' })));
  }
  return deps.ingestEvents(events).filter((result) => result.created).length;
}

/** Compares (and applies); throws when the listing cannot be read, after recording the failed run. */
export async function runPanelImport(deps: PanelImportDeps, readListing: () => Promise<PanelListing>, options: ImportOptions) {
  const runId = deps.stats.startRun(IMPORT_RUN, deps.now());
  try {
    const listing = await readListing();
    // Who the panel's resellers are, and their addresses, changes nothing protected: kept on every run.
    if (listing.resellers?.length) deps.recordResellers?.(listing.resellers, deps.now());
    // What the panel says of its packages is recorded with or without --apply: it is a fact about the panel, not a change.
    if (listing.packages && deps.recordPackages) deps.recordPackages(listing.packages, deps.now());
    const providerUsers = await providerUserIds(deps);
    const comparison = compareListing(listing, deps.repo.knownState(), providerUsers);
    const queued = options.apply ? queueEvents(deps, comparison, options) : null;
    const at = deps.now();
    const comparisonId = deps.repo.saveComparison({ at, panel: options.panel, source: options.source, comparison, applied: queued });
    const summary = { comparisonId, ...comparison.listed, differences: comparison.differences.length, queued };
    deps.stats.finishRun(runId, at, { status: 'ok', details: { ...summary, source: options.source, counts: comparison.counts } });
    if (hasDrift(comparison)) await reportDrift(deps, { at, panel: options.panel, comparisonId, comparison }, options.source);
    return { runId, comparisonId, comparison, queued } satisfies ImportResult;
  } catch (error) {
    deps.stats.finishRun(runId, deps.now(), { status: 'failed', details: { error: describeError(error), source: options.source } });
    throw error;
  }
}

async function reportDrift(
  deps: PanelImportDeps,
  { at, panel, comparisonId, comparison }: { at: number; panel: string; comparisonId: number; comparison: Comparison },
  source: ImportOptions['source'],
): Promise<void> {
  const total = comparison.differences.length;
  // The CLI prints the differences itself; its log line would only repeat them on the terminal.
  deps.logger[source === 'schedule' ? 'warn' : 'debug'](
    { panel, comparisonId, source, total, counts: comparison.counts },
    `panel drift: ${describeCounts(comparison.counts)} (see /admin/import; wpp import ${panel} --apply queues what is missing)`,
  );
  if (source !== 'schedule' || !deps.notifyDrift) return;
  await deps.notifyDrift({ at, panel, comparisonId, counts: comparison.counts, total }).catch((error: unknown) => {
    deps.logger.warn({ error: describeError(error) }, 'panel drift: the notification URL did not take the notice');
  });
}

/** POSTs a drift notice to the notification URL, signed as enforcement notifications are (X-WPP-Signature). */
export async function sendDriftNotice(target: { url: string; secret: string; timeoutMs?: number }, notice: DriftNotice): Promise<void> {
  await postSigned(target, { event: 'panel.drift', drift: notice });
}
