/**
 * The plugin's express app on its parts: the hooks and callbacks API, and the pages with
 * their sessions. The web layer's share of the wiring, kept out of main.ts.
 */
import type { MailPagesDeps } from './pages/admin-mail.routes.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { DEFAULT_RULES_EDITOR_PATH, sampleRulesEditorUrl } from '../config.js';
import type { JobQueue } from '../core/job-queue.js';
import { DEMO_LAUNCH_TOKEN_MAX_AGE_MS } from '../core/launch-tokens.js';
import { createLimitResolver } from '../core/limits.js';
import { servedElsewhereOf } from '../core/serving-server.js';
import { resellerPoolsOf, resellerUsageNow } from '../core/reseller-limits.js';
import { createSessionService } from '../core/sessions.js';
import { REQUEST_BUSY_RETRY, retryWhileBusy } from '../db/busy.js';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { AdminViewsRepo } from '../db/admin-views.repo.js';
import type { ImportRepo } from '../db/import.repo.js';
import type { SettingsSnapshotsRepo } from '../db/settings-snapshots.repo.js';
import type { PackagesRepo } from '../db/packages.repo.js';
import type { ReadScheduleRepo } from '../db/read-schedule.repo.js';
import type { SettingsRepo } from '../db/settings.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import type { PluginSettings } from '../core/plugin-settings.js';
import type { Services } from '../core/services.js';
import type { ProviderClient } from '../provider/index.js';
import type { Metrics } from '../metrics.js';
import type { DemoPagesDeps } from './pages/demo.routes.js';
import type { AdminPagesDeps } from './pages/admin.routes.js';
import type { FleetPagesDeps } from './pages/admin-fleet.routes.js';
import type { SessionsRepo } from '../db/sessions.repo.js';
import type { PanelEvent } from '../panel/events.js';
import type { PluginSecrets } from '../secrets.js';
import { createApp } from './app.js';
import type { FleetSettings } from '../core/fleet-settings.js';
import { createDirectAdminSessionVerifier, type DirectAdminApiOptions } from '../panel/directadmin-session.js';
import { listenerIsDirectAdmins } from '../panel/directadmin-listener.js';

export interface PluginAppDeps {
  config: Config;
  /** The hook secret verifies panel events, the sign-in key launch tokens; the notification secret is shown to admins. */
  secrets: Pick<PluginSecrets, 'hook' | 'signIn' | 'notify'>;
  logger: Logger;
  now: () => number;
  queue: Pick<JobQueue, 'ingestEvents' | 'refreshAfterCallback' | 'refreshWebsites' | 'retryJob' | 'retryAllDead'>;
  provider: ProviderClient;
  /** The runtime settings (auto-protect, notification URL). */
  settings: PluginSettings;
  repos: {
    accounts: AccountsRepo;
    stats: StatisticsRepo;
    /** The adaptive sync's forecasts and attack-spike notices, for the website pages. */
    schedule: ReadScheduleRepo;
    /** The settings overrides and the audit of every change. */
    audit: SettingsRepo;
    sessions: SessionsRepo;
    /** The admin pages' read models. */
    adminViews: AdminViewsRepo;
    /** The recorded panel comparisons (`wpp import`). */
    imports: Pick<ImportRepo, 'recentComparisons'>;
    /** The last settings read of each website (the customer's domain page). */
    settingsSnapshots: SettingsSnapshotsRepo;
    /** Protection per hosting package (migration 020): the customer's pages and the Settings page read it. */
    packages: PackagesRepo;
  };
  /** Protect, pause, resume and bulk protect by hand; a sync and an enforcement pass now (the demo panel). */
  services: Pick<Services, 'protection' | 'bulkProtect' | 'monitoring' | 'syncStatistics' | 'enforceLimits'>;
  /** The embedded sandbox, when it is the provider (the demo panel, the default rules editor). */
  sandbox: { url: string; partnerKey: string } | undefined;
  /** GET /metrics and what the pages count into it. */
  metrics?: Pick<Metrics, 'render' | 'pages'>;
  /** The pages' address as the browser reaches it (WPP_PUBLIC_URL, else the address the server is bound to). */
  pagesUrl: string;
  /** E-mail's admin settings and whether it is on (wiring/mail.ts). */
  mail?: MailPagesDeps;
  /** Where DirectAdmin's API is and how its listener is checked; default its real one (tests give a fake DirectAdmin). */
  directadmin?: DirectAdminApiOptions;
  /** Fleet settings (WPP_FLEET_DATABASE_URL): the Settings page's "All servers" choice. */
  fleetSettings?: FleetSettings | undefined;
  /** "All servers", with a fleet database (wiring/fleet-view.ts): its reader, when it last answered, and this server's id. */
  fleetView?: Omit<FleetPagesDeps, 'now'> | undefined;
}

/** The rules editor's URL template: WPP_RULES_EDITOR_URL, else the provider's (or the embedded sandbox's) dashboard. */
export const rulesEditorTemplate = (config: Config, sandboxUrl: string | undefined) =>
  config.pages.rulesEditorUrl ?? (sandboxUrl ? `${sandboxUrl}${DEFAULT_RULES_EDITOR_PATH}` : undefined);

const originOf = (template: string | undefined) => (template ? new URL(sampleRulesEditorUrl(template)).origin : undefined);

/** The demo panel's parts, when the embedded sandbox is the provider (a demo: nothing real behind it). */
function demoDeps(deps: PluginAppDeps, ingest: DemoPagesDeps['ingest']): DemoPagesDeps | undefined {
  if (!deps.sandbox) return undefined;
  return {
    sandbox: deps.sandbox,
    signInKey: deps.secrets.signIn,
    now: deps.now,
    ingest,
    accounts: deps.repos.accounts,
    stats: deps.repos.stats,
    syncStatistics: deps.services.syncStatistics,
    enforceLimits: deps.services.enforceLimits,
    refreshWebsite: ({ domain, account }) => deps.queue.refreshWebsites([{ domain, account }]),
  };
}

/** The admin pages' read models and actions; the reseller pages use the same, in their scope (pages/page-scope.ts). */
function adminPagesDeps(deps: PluginAppDeps, ingest: DemoPagesDeps['ingest']): AdminPagesDeps {
  const { config, secrets, queue } = deps;
  const { accounts } = deps.repos;
  return {
    views: deps.repos.adminViews,
    schedule: deps.repos.schedule,
    // A fresh resolver each time: the limits may have changed since the last page.
    periodOf: (account, now) => createLimitResolver(deps.repos.stats, accounts).periodOf(account, now),
    resellerPools: (list, now) => resellerPoolsOf({ stats: deps.repos.stats, accounts }, list, now),
    queue,
    actions: deps.services.protection,
    now: deps.now,
    monitoringUntil: deps.services.monitoring.untilOf,
    servedBy: (domain) => servedElsewhereOf(accounts, domain),
    bulk: { bulkProtect: deps.services.bulkProtect, defaultPlanDays: () => deps.services.monitoring.planDays('') },
    imports: { recentComparisons: (limit) => deps.repos.imports.recentComparisons(limit), panel: config.panel.name },
    settings: {
      stats: deps.repos.stats,
      audit: deps.repos.audit,
      accounts,
      settings: deps.settings,
      environment: { autoProtect: config.autoProtect, notifyUrl: config.notifyUrl },
      notifySecret: secrets.notify,
      packages: deps.repos.packages,
      now: deps.now,
      fleet: deps.fleetSettings,
    },
    demo: demoDeps(deps, ingest),
    mail: deps.mail,
    fleet: deps.fleetView && { ...deps.fleetView, now: deps.now },
  };
}

export function createPluginApp(deps: PluginAppDeps) {
  const { config, secrets, logger, queue } = deps;
  const { accounts } = deps.repos;
  const sessions = createSessionService({
    sessions: deps.repos.sessions,
    signInKey: secrets.signIn,
    policy: { idleMs: config.pages.sessionIdleMs, absoluteMs: config.pages.sessionMaxMs },
    now: deps.now,
    // Only a sandbox plugin's printed demo link may live 15 minutes: nothing real is behind it.
    ...(deps.sandbox ? { maxTokenLifeMs: DEMO_LAUNCH_TOKEN_MAX_AGE_MS } : {}),
  });
  const ingest = (events: PanelEvent[]) => retryWhileBusy(() => queue.ingestEvents(events), REQUEST_BUSY_RETRY);
  // Only where DirectAdmin is the panel: elsewhere nothing on its port is DirectAdmin, and nobody is signed in that way.
  const panelLaunch =
    config.panel.name === 'directadmin'
      ? {
          verifyDirectAdminSession: createDirectAdminSessionVerifier(deps.directadmin ?? { listenerIsDirectAdmins }),
          signInKey: secrets.signIn,
          pagesUrl: deps.pagesUrl,
          now: deps.now,
          logger: logger.child({ component: 'directadmin-sign-in' }),
        }
      : undefined;
  const adminPages = adminPagesDeps(deps, ingest);
  return createApp({
    logger,
    hooks: { panelSecret: secrets.hook, ingest },
    ...(panelLaunch ? { panelLaunch } : {}),
    ...(deps.metrics
      ? { metrics: { token: config.metrics.token, tokenRequired: config.metrics.tokenRequired, render: deps.metrics.render } }
      : {}),
    callbacks: {
      findWebsiteByTokenHash: (hash) => accounts.getWebsiteByTokenHash(hash),
      signingKeyFor: (website) => accounts.getAccount(website.account)?.providerApiKey ?? null,
      enqueueRefresh: (website) => retryWhileBusy(() => queue.refreshAfterCallback(website, deps.now()), REQUEST_BUSY_RETRY),
    },
    pages: {
      sessions,
      secureCookies: (config.publicUrl ?? '').startsWith('https:'),
      logger: logger.child({ component: 'pages' }),
      ...(deps.metrics ? { observer: deps.metrics.pages } : {}),
      timeZone: config.pages.timeZone,
      security: { frameAncestors: config.pages.frameAncestors, dashboardOrigin: originOf(rulesEditorTemplate(config, deps.sandbox?.url)) },
      panel: {
        accounts,
        stats: deps.repos.stats,
        schedule: deps.repos.schedule,
        provider: deps.provider,
        settingsSnapshots: deps.repos.settingsSnapshots,
        protection: deps.services.protection,
        rulesEditorTemplate: rulesEditorTemplate(config, deps.sandbox?.url),
        upgradeUrl: config.pages.upgradeUrl,
        now: deps.now,
        monitoringUntil: deps.services.monitoring.untilOf,
        protectionIncluded: (account) => deps.repos.packages.protectionOf(account).included !== false,
      },
      admin: adminPages,
      // The admin pages' read models and actions, scoped to the reseller's customers by the reseller routes.
      reseller: {
        now: deps.now,
        pages: adminPages,
        limits: { stats: deps.repos.stats, audit: deps.repos.audit, views: deps.repos.adminViews, accounts },
        usage: (reseller, now) => resellerUsageNow({ stats: deps.repos.stats, accounts }, reseller, now),
      },
    },
  });
}
