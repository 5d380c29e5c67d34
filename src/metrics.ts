/**
 * The plugin's Prometheus metrics (GET /metrics): one registry per started plugin, never the
 * library's global one, so two plugins in one process (the tests) count apart. The parts that
 * do the work only see small observer interfaces (core/services.ts, the provider client's
 * onAttempt, the pages' observer): nothing below the wiring imports prom-client.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PagesObserver } from './web/pages/pages.routes.js';
import type { BudgetReading } from './core/fleet-budget.js';
import type { ServicesObserver } from './core/services.js';
import type { SyncResult } from './core/statistics.js';
import type { ProviderAttempt } from './provider/index.js';

export interface MetricsSources {
  /** Jobs of each kind in each state, read at each scrape (trigger-kept counts: a few rows). */
  jobCounts(): { state: string; kind: string; count: number }[];
  /** Websites whose next read is due now (the adaptive sync's backlog), read at each scrape. Default: not exported. */
  dueWebsites?: () => number;
  /** The server's request budget as it stands and this process's calls waiting for it, read at each scrape. Default: not exported. */
  budget?: { reading(): BudgetReading | undefined; waiting(): { urgent: number; background: number } };
  /** Unix time in ms, for the last successful sync's timestamp. Default Date.now. */
  now?: () => number;
  /** Node's process metrics (CPU, memory, event loop, GC) on the same registry. Default true. */
  processMetrics?: boolean;
}

/** How a sync ended, as the `outcome` label says it. */
export type SyncOutcome = 'ok' | 'partial' | 'failed' | 'stopped' | 'skipped';

export function syncOutcome(result: Pick<SyncResult, 'skipped' | 'stopped' | 'failed' | 'read'>): SyncOutcome {
  if (result.skipped) return 'skipped';
  if (result.stopped) return 'stopped';
  if (result.failed > 0) return result.read === 0 ? 'failed' : 'partial';
  return 'ok';
}

type Registers = Registry[];

/** The queue's and the sync backlog's gauges, read from `sources` at each scrape. */
function registerQueueGauges(registers: Registers, sources: MetricsSources): void {
  new Gauge({
    name: 'wpp_jobs',
    help: 'Jobs in the queue by state (pending, running, done, dead) and kind',
    labelNames: ['state', 'kind'] as const,
    registers,
    collect() {
      this.reset();
      for (const row of sources.jobCounts()) this.set({ state: row.state, kind: row.kind }, row.count);
    },
  });
  if (sources.dueWebsites) {
    const dueWebsites = sources.dueWebsites;
    new Gauge({
      name: 'wpp_sync_due_websites',
      help: 'Websites whose next statistics read is due now: a backlog that keeps growing means WPP_SYNC_RATE is too low for this many websites',
      registers,
      collect() {
        this.set(dueWebsites());
      },
    });
  }
}

/**
 * The request budget (docs/fleet.md, "One budget per server"): the rate it sends at, labelled by
 * where the rate comes from (`learned` from the provider's answers, or the `fleet` budget's
 * lease), and the calls waiting for a token by priority. A low rate and a growing background
 * queue explain a slow sync before the provider's answers do.
 */
function registerBudgetGauges(registers: Registers, budget: NonNullable<MetricsSources['budget']>): void {
  new Gauge({
    name: 'wpp_provider_budget_rate_per_second',
    help: "Provider requests a second the server's request budget allows now, by source: learned (its own answers from the provider) or fleet (its share of the key from the fleet database)",
    labelNames: ['source'] as const,
    registers,
    collect() {
      this.reset();
      const reading = budget.reading();
      if (reading) this.set({ source: reading.source }, reading.ratePerSecond);
    },
  });
  new Gauge({
    name: 'wpp_provider_budget_waiting',
    help: "This process's provider calls waiting for a token of the request budget, by priority (urgent, background)",
    labelNames: ['priority'] as const,
    registers,
    collect() {
      const waiting = budget.waiting();
      this.set({ priority: 'urgent' }, waiting.urgent);
      this.set({ priority: 'background' }, waiting.background);
    },
  });
}

/** Syncs, ticks and enforcement, counted as core/services.ts reports them. */
function createServicesMetrics(registers: Registers, now: () => number): ServicesObserver {
  const syncDuration = new Histogram({
    name: 'wpp_sync_duration_seconds',
    help: 'Duration of statistics syncs that ran (not skipped)',
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600],
    registers,
  });
  const syncRuns = new Counter({
    name: 'wpp_sync_runs_total',
    help: 'Statistics syncs by outcome: ok, partial (some reads failed), failed (every read failed, or the sync threw), stopped, skipped (another held the lock)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const syncReadFailures = new Counter({
    name: 'wpp_sync_read_failures_total',
    help: 'Websites whose statistics a sync could not read (read again next sync)',
    registers,
  });
  const syncReads = new Counter({
    name: 'wpp_sync_reads_total',
    help: 'Websites whose statistics were read (full syncs and adaptive ticks): the provider requests the sync spent',
    registers,
  });
  const attackSpikes = new Counter({
    name: 'wpp_attack_spikes_total',
    help: 'Attack spikes noticed (blocked hits in the last hour far above the website normal), one per spike',
    registers,
  });
  const syncLastSuccess = new Gauge({
    name: 'wpp_sync_last_success_timestamp_seconds',
    help: 'Unix time at which the last sync that read statistics (ok or partial) ended; 0 before the first',
    registers,
  });
  const enforcementActions = new Counter({
    name: 'wpp_enforcement_actions_total',
    help: 'Enforcement actions recorded, by action (pause, resume, warning, admin_resume, repause) and reason',
    labelNames: ['action', 'reason'] as const,
    registers,
  });

  /** A sync or a tick ended: its outcome, and unless skipped, its duration, reads and failures. */
  const syncEnded = (result: Pick<SyncResult, 'skipped' | 'stopped' | 'failed' | 'read' | 'seconds'>) => {
    const outcome = syncOutcome(result);
    syncRuns.inc({ outcome });
    if (outcome === 'skipped') return;
    syncDuration.observe(result.seconds);
    syncReadFailures.inc(result.failed);
    syncReads.inc(result.read);
    if (outcome === 'ok' || outcome === 'partial') syncLastSuccess.set(Math.floor(now() / 1000));
  };
  syncLastSuccess.set(0);
  return {
    syncFinished: syncEnded,
    tickFinished(result) {
      syncEnded(result);
      if (!result.skipped) attackSpikes.inc(result.spikes);
    },
    syncFailed() {
      syncRuns.inc({ outcome: 'failed' });
    },
    enforcementAction(action) {
      enforcementActions.inc({ action: action.action, reason: action.reason });
    },
  };
}

/** Refused launches and sessions, as the pages report them. */
function createPagesMetrics(registers: Registers): PagesObserver {
  const launchRefusals = new Counter({
    name: 'wpp_launch_refusals_total',
    help: 'Launch tokens refused at GET /launch, by reason (malformed, bad_signature, expired, not_yet_valid, replayed, wrong_role, missing)',
    labelNames: ['reason'] as const,
    registers,
  });
  const sessionRefusals = new Counter({
    name: 'wpp_session_refusals_total',
    help: 'Page requests refused for want of a session, by role and reason (none, unknown, idle, expired, wrong_role: a session of the other role, which is ended)',
    labelNames: ['role', 'reason'] as const,
    registers,
  });
  return {
    launchRefused: (reason) => launchRefusals.inc({ reason }),
    sessionRefused: (role, reason) => sessionRefusals.inc({ role, reason }),
  };
}

/** The provider's answers and failed attempts, as the provider client's onAttempt reports them. */
function createProviderMetrics(registers: Registers): (attempt: ProviderAttempt) => void {
  const providerResponses = new Counter({
    name: 'wpp_provider_responses_total',
    help: "The provider's answers by HTTP method and status code, each retry counted",
    labelNames: ['method', 'code'] as const,
    registers,
  });
  const providerErrors = new Counter({
    name: 'wpp_provider_request_errors_total',
    help: 'Provider requests that got no answer, by HTTP method and transport error (ECONNREFUSED, ETIMEDOUT, ...), each retry counted',
    labelNames: ['method', 'error'] as const,
    registers,
  });
  return (attempt: ProviderAttempt) => {
    if ('status' in attempt) providerResponses.inc({ method: attempt.method, code: String(attempt.status) });
    else providerErrors.inc({ method: attempt.method, error: attempt.error });
  };
}

export function createMetrics(sources: MetricsSources) {
  const registry = new Registry();
  const registers = [registry];
  if (sources.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  registerQueueGauges(registers, sources);
  if (sources.budget) registerBudgetGauges(registers, sources.budget);
  // Each observer holds only its own metrics: the parts that report never see prom-client.
  const services = createServicesMetrics(registers, sources.now ?? Date.now);
  const pages = createPagesMetrics(registers);
  const providerAttempt = createProviderMetrics(registers);

  return {
    registry,
    services,
    pages,
    providerAttempt,
    /** The exposition text and its content type, for GET /metrics. */
    async render(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
