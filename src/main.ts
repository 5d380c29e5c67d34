/**
 * Composition root: config -> database -> provider client (or the embedded sandbox) ->
 * services -> worker, schedule and HTTP server, as the process's role asks; and the graceful
 * stop of all of it (lifecycle.ts). Only wiring: each area assembles itself in src/wiring/.
 */
import type { Logger } from 'pino';
import { ensurePanelSecret } from './config.js';
import { readPluginSecrets, type PluginSecrets } from './secrets.js';
import { createJobQueue } from './core/job-queue.js';
import { createPluginSettings } from './core/plugin-settings.js';
import { createProviderContactRecorder } from './core/provider-contact.js';
import { reconcileWebsites } from './core/reconcile.js';
import { serverIdentity } from './core/server-identity.js';
import { createAdminViewsRepo } from './db/admin-views.repo.js';
import { createSettingsSnapshotsRepo } from './db/settings-snapshots.repo.js';
import type { Db } from './db/open.js';
import { openPluginDatabase, SERVER_BUSY_TIMEOUT_MS } from './db/plugin-database.js';
import { startBackground } from './jobs/background.js';
import { TICK_BUDGET_SECONDS } from './jobs/plugin-schedule.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics.js';
import { createPluginApp } from './web/plugin-app.js';
import { startPluginServer } from './web/plugin-server.js';
import { wireFleet } from './wiring/fleet.js';
import { wireFleetSettings } from './wiring/fleet-settings.js';
import { wireFleetView } from './wiring/fleet-view.js';
import { wirePanelImport } from './wiring/panel-import.js';
import { budgetReader, wirePacer } from './wiring/pacer.js';
import { connectProvider, httpUrl } from './wiring/provider.js';
import { holdServeLock, openRepositories } from './wiring/repositories.js';
import { wireMail } from './wiring/mail.js';
import { wireServices } from './wiring/services.js';
import { ROLES, type PluginOptions, type RunningPlugin } from './wiring/types.js';

export type { PluginOptions, PluginRole, RunningPlugin } from './wiring/types.js';

/** Starts what the role runs. `close` stops it in reverse order, letting in-flight jobs and passes finish. */
export async function startPlugin(options: PluginOptions): Promise<RunningPlugin> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config);
  // Each secret has one purpose (secrets.ts): the hook secret verifies panel events and nothing else.
  const secrets = readPluginSecrets(config, ensurePanelSecret(config));
  const db = openPluginDatabase(config, {
    notice: (message) => logger.warn(message),
    ...(ROLES[options.role].serves ? { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS } : {}),
  });
  const life = createLifecycle();
  life.onClose(() => void db.close());
  try {
    return await wire(options, { db, logger, secrets, life });
  } catch (error) {
    await life.close();
    throw error;
  }
}

/** The repositories, the settings, the metrics and the provider client: what every other part is built on. */
async function wireFoundations(options: PluginOptions, { db, logger, life }: { db: Db; logger: Logger; life: Lifecycle }) {
  const { config } = options;
  const role = ROLES[options.role];
  const now = options.now ?? Date.now;
  const repositories = openRepositories(db, config, logger, now);
  const { jobs, schedule, stats } = repositories;
  const settings = createPluginSettings(repositories.audit, config);
  if (role.serves) holdServeLock(config, stats, logger, life);
  const identity = serverIdentity(repositories.accounts, config.server.name);
  const pacer = wirePacer(db, config);
  const metrics = createMetrics({
    jobCounts: () => jobs.countsByKind(),
    dueWebsites: () => schedule.dueCount(now()),
    ...(pacer ? { budget: { reading: budgetReader(db), waiting: pacer.waiting } } : {}),
    now,
    processMetrics: role.serves,
  });
  const recordContact = createProviderContactRecorder({ now, recordAnsweredAt: repositories.accounts.recordProviderAnswer });
  const connected = await connectProvider(config, {
    startsSandbox: role.serves,
    logger,
    life,
    client: options.providerOptions,
    budget: pacer,
    onAttempt: (attempt) => {
      metrics.providerAttempt(attempt);
      recordContact(attempt);
    },
  });
  return { ...repositories, settings, metrics, now, identity, pacer, connected, provider: connected.provider, sandbox: connected.sandbox };
}

/** Everything on the open database, in dependency order; what it starts closes with `life`. */
async function wire(
  options: PluginOptions,
  { db, logger, secrets, life }: { db: Db; logger: Logger; secrets: PluginSecrets; life: Lifecycle },
) {
  const { config } = options;
  const { accountDomain, server } = config;
  const role = ROLES[options.role];
  const foundations = await wireFoundations(options, { db, logger, life });
  const { jobs, accounts, stats, schedule, audit, sessions, settings, now, connected, sandbox } = foundations;
  const fleet = wireFleet(config, { ...foundations, serves: role.serves, db, logger, life });
  const fleetSettings = fleet && wireFleetSettings(fleet, { store: { stats, accounts, audit }, logger, life });
  const fleetView = wireFleetView({ serves: role.serves, fleet, db, logger, life, now, publishEveryMs: options.fleetPublishEveryMs });

  // The worker is created once the server has its port (callback URLs need it); queueing wakes it.
  let wakeWorker = () => {};
  const queue = createJobQueue({ jobs, maxAttempts: config.worker.maxAttempts, onQueued: () => wakeWorker() });
  const httpServer = role.serves ? await startPluginServer({ config, logger, life, timeouts: options.serverTimeouts }) : undefined;
  const url = httpServer?.url ?? httpUrl(config.host, config.port);

  // One bag of the parts built so far; each area's assembly takes what it needs from it.
  const mail = wireMail({ ...foundations, config, db, queue, logger });
  const parts = { ...foundations, config, db, logger, queue, life, fleet, fleetSettings, mailer: mail.mailer };
  const services = wireServices(
    { ...parts, callbackKey: secrets.callback },
    { accountDomain, server, publicUrl: config.publicUrl ?? url, sync: config.sync },
  );
  const reconcile = (at: number = now()) => reconcileWebsites(accounts, queue.refreshWebsites, { now: at });
  const { imports, panelImport, panelCheck, resolveOwner, ...panelCommands } = wirePanelImport(options, {
    ...parts,
    notifySecret: secrets.notify.value,
  });
  const worker = startBackground(
    { ...parts, reconcile, services, notifySecret: secrets.notify.value, notifyUrl: settings.notifyUrl, panelCheck, resolveOwner },
    // Registration belongs to the long-running server; other roles need not queue it.
    {
      runWorker: options.worker ?? role.runsWorker,
      runSchedule: options.scheduler ?? role.runsSchedule,
      registerServer: role.serves,
      workerOverrides: options.workerOptions,
    },
  );
  wakeWorker = worker.wake;
  const repos = {
    accounts,
    stats,
    schedule,
    audit,
    sessions,
    adminViews: createAdminViewsRepo(db),
    imports,
    settingsSnapshots: createSettingsSnapshotsRepo(db),
    packages: foundations.packages,
  };
  httpServer?.serve(
    createPluginApp({
      ...parts,
      secrets,
      repos,
      services,
      mail,
      fleetView: fleetView && { ...fleetView, serverId: foundations.identity.serverId },
      pagesUrl: config.publicUrl ?? url,
      ...(options.directadmin ? { directadmin: options.directadmin } : {}),
    }),
  );

  // Only the server announces itself; a one-shot command need not, on every run.
  logger[role.serves ? 'info' : 'debug']({ url, provider: sandbox ? `embedded sandbox ${sandbox.url}` : connected.url }, 'plugin started');
  return {
    // What the commands and benches use (RunningPlugin): no repository or handle, each a thing they do.
    url,
    serverId: foundations.identity.serverId,
    sandbox: sandbox && { url: sandbox.url, partnerKey: sandbox.partnerKey },
    syncStatistics: services.syncStatistics,
    readDueStatistics: (signal?: AbortSignal) => services.readTick(TICK_BUDGET_SECONDS, signal),
    enforceLimits: services.enforceLimits,
    adminResume: services.adminResume,
    switchMonitoring: services.switchMonitoring,
    sendMailDigests: async () => mail.mailer.sendDigests(),
    importPanel: panelImport.run,
    ...panelCommands,
    jobCounts: () => jobs.counts(),
    drain: worker.drain,
    close: life.close,
  } satisfies RunningPlugin;
}
