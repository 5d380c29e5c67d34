/** `wpp import` on the plugin's parts, and the scheduled panel comparison where this process may run the panel's tools. */
import type { Logger } from 'pino';
import { IMPORT_RUN, sendDriftNotice } from '../core/import.js';
import type { OwnerLookup } from '../core/job-kinds.js';
import type { JobQueue } from '../core/job-queue.js';
import { runKeptEvents } from '../core/kept-events.js';
import type { PluginSettings } from '../core/plugin-settings.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import { createImportRepo } from '../db/import.repo.js';
import { createMonitoringRepo } from '../db/monitoring.repo.js';
import type { PackagesRepo } from '../db/packages.repo.js';
import type { JobsRepo } from '../db/jobs.repo.js';
import type { Db } from '../db/open.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import { createToolRunner } from '../install/tools.js';
import { createPanelImport } from '../panel/listings/index.js';
import { resolveOwnerLookup } from '../panel/plesk-owner.js';
import type { ProviderClient } from '../provider/index.js';
import type { PluginOptions } from './types.js';

/** `wpp import` on this plugin, and the scheduled panel check when WPP_PANEL names a panel. */
export function wirePanelImport(
  options: Pick<PluginOptions, 'config' | 'role' | 'panelRoot' | 'panelToolsAsRoot'>,
  parts: {
    db: Db;
    jobs: JobsRepo;
    accounts: Pick<AccountsRepo, 'saveResellers'>;
    stats: StatisticsRepo;
    packages: PackagesRepo;
    provider: ProviderClient;
    queue: JobQueue;
    settings: PluginSettings;
    notifySecret: string;
    logger: Logger;
    now: () => number;
  },
) {
  const { queue, settings, notifySecret } = parts;
  const imports = createImportRepo(parts.db);
  const panelImport = createPanelImport({
    repo: imports,
    stats: parts.stats,
    provider: parts.provider,
    // An import's events are background work: a new domain from the panel's hook goes first.
    ingestEvents: (events) => queue.ingestEvents(events, { background: true }),
    recordResellers: (resellers) => parts.accounts.saveResellers(resellers),
    chooseMonitoring: createMonitoringRepo(parts.db, parts.now).save,
    recordPackages: (packages, at) => {
      for (const { name, protection } of packages) parts.packages.savePackage(name, protection, at);
    },
    logger: parts.logger.child({ component: 'import' }),
    now: parts.now,
    notifyDrift: async (notice) => {
      const url = settings.notifyUrl();
      if (url !== null) await sendDriftNotice({ url, secret: notifySecret }, notice);
    },
  });
  const panelName = options.config.panel.name;
  const mayRunPanelTools = options.panelToolsAsRoot ?? process.getuid?.() === 0;
  if (panelName && options.config.panel.checkEveryMinutes !== null && !mayRunPanelTools && options.role === 'serve')
    parts.logger.info(
      { panel: panelName },
      'the scheduled panel comparison is left to wpp-panel-check.timer: the panel tools answer root only',
    );
  const panelCheck =
    panelName && mayRunPanelTools
      ? async () => {
          const source = { panel: panelName, ...(options.panelRoot ? { root: options.panelRoot } : {}) };
          const result = await panelImport.run(source, { source: 'schedule', apply: false, prune: false });
          return { comparisonId: result.comparisonId, differences: result.comparison.differences.length };
        }
      : undefined;
  // A kept Plesk event asks Plesk again for its owner where this process may run its tools (root).
  const askPlesk = (root: string) => async (lookup: OwnerLookup) =>
    void (await resolveOwnerLookup(lookup, { tools: createToolRunner(root), ingest: (events) => queue.ingestEvents(events) }));
  const resolveOwner = mayRunPanelTools ? askPlesk(options.panelRoot ?? '/') : undefined;
  return {
    imports,
    panelImport,
    panelCheck,
    resolveOwner,
    /** `wpp import plesk`, run as root: every kept Plesk event asked about again, whatever this process's role. */
    resolveKeptPleskEvents: (root = '/') => runKeptEvents({ jobs: parts.jobs, resolve: askPlesk(root) }),
    lastPanelImportAt: () => parts.stats.lastSuccessfulRun(IMPORT_RUN),
  };
}
