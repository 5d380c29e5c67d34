/** The admins' pages (views/admin/): the whole fleet, and everything the CLI can do. */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Protection } from '../../core/protection.js';
import type { JobQueue } from '../../core/job-queue.js';
import type { Period } from '../../core/quota.js';
import type { ResellerUsage } from '../../core/reseller-limits.js';
import type { AdminViewsRepo } from '../../db/admin-views.repo.js';
import type { ReadScheduleRepo } from '../../db/read-schedule.repo.js';
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import { createAdminFormat } from './admin-format.js';
import { createAdminJobsRouter } from './admin-jobs.routes.js';
import { createAdminMailRouter, type MailPagesDeps } from './admin-mail.routes.js';
import { createAdminRunsRouter } from './admin-runs.routes.js';
import { createFleetRouter, type FleetPagesDeps } from './admin-fleet.routes.js';
import { createAdminWebsitesRouter } from './admin-websites.routes.js';
import { createImportRouter, type ImportPagesDeps } from './admin-import.routes.js';
import { createSettingsRouter, type SettingsPagesDeps } from './admin-settings.routes.js';
import { createBulkProtectRouter, type BulkProtectPagesDeps } from './bulk-protect.routes.js';
import { createDemoRouter, type DemoPagesDeps } from './demo.routes.js';

export interface AdminPagesDeps {
  /** The read models of every admin list (db/admin-views.repo.ts). */
  views: AdminViewsRepo;
  /** The adaptive sync's forecasts and attack-spike notices of a website. */
  schedule: Pick<ReadScheduleRepo, 'get' | 'accountForecast' | 'notices'>;
  /** The account's current period (limits.periodOf): a stored forecast about another one is stale. */
  periodOf: (account: string, now: number) => Period;
  /** The reseller pools the accounts count against, by account (core/reseller-limits.ts resellerPoolsOf). */
  resellerPools?: (accounts: string[], now: number) => Map<string, ResellerUsage>;
  /** Retries of dead jobs, waking the worker. */
  queue: Pick<JobQueue, 'retryJob' | 'retryAllDead'>;
  /** Pause, resume and re-provision of one website. */
  actions: Pick<Protection, 'pause' | 'resume' | 'reprovision'>;
  now: () => number;
  /** When a website's monitoring ends (core/monitoring.ts), or null. */
  monitoringUntil?: (domain: string) => number | null;
  /** The panel server that serves a website this one let go of (core/serving-server.ts), or null. */
  servedBy?: (domain: string) => string | null;
  settings: SettingsPagesDeps;
  bulk: BulkProtectPagesDeps;
  /** The panel comparisons of `wpp import` and the scheduled drift check. */
  imports: ImportPagesDeps;
  /** E-mail: whether it is on, and the Settings page's E-mail form. */
  mail?: MailPagesDeps | undefined;
  /** Only when the embedded sandbox is the provider: without it, /admin/demo is not found and not linked. */
  demo?: DemoPagesDeps | undefined;
  /** "All servers", only with a fleet database (WPP_FLEET_DATABASE_URL): without it, /admin/fleet is not found and not linked. */
  fleet?: FleetPagesDeps | undefined;
}

/** A provider that has not answered for this long is shown as a warning. */
const PROVIDER_QUIET_MS = 60 * 60_000;

/**
 * What the admin views read besides their data: `fmt` (admin-format.ts), `now`, and `base`, where
 * their links point ('/admin'; the reseller pages render the same views under '/reseller').
 */
export function adminViewLocals(base: '/admin' | '/reseller', now: () => number) {
  // One `fmt` per Format, so per language of the pages (page-language.ts makes a Format and a `t` per language, once).
  const fmts = new Map<Format, ReturnType<typeof createAdminFormat>>();
  const fmtOf = (format: Format, t: Translate) => fmts.get(format) ?? fmts.set(format, createAdminFormat(format, t)).get(format);
  return (_req: Request, res: Response, next: NextFunction) => {
    res.locals.fmt = fmtOf(res.locals.format as Format, res.locals.t as Translate);
    res.locals.now = now();
    res.locals.base = base;
    next();
  };
}

export function createAdminRouter(deps: AdminPagesDeps): express.Router {
  const router = express.Router();
  router.use(adminViewLocals('/admin', deps.now));
  router.use((_req: Request, res: Response, next: NextFunction) => {
    if (deps.demo) res.locals.demo = true;
    if (deps.fleet) res.locals.fleetView = true;
    next();
  });
  if (deps.mail) router.use(createAdminMailRouter(deps.mail));
  router.get('/', (_req: Request, res: Response) => {
    const t = res.locals.t as Translate;
    const now = deps.now();
    const overview = deps.views.overview(now);
    const reached = overview.providerReachedAt;
    const providerBadge = reached === null ? 'bad' : now - reached > PROVIDER_QUIET_MS ? 'warn' : 'ok';
    res.render('admin/overview', { title: t('adminOverview.title'), overview, providerBadge });
  });
  router.use(createAdminWebsitesRouter(deps));
  router.use(createAdminJobsRouter(deps));
  router.use(createAdminRunsRouter(deps));
  router.use(createSettingsRouter(deps.settings));
  router.use(createBulkProtectRouter(deps.bulk));
  router.use(createImportRouter(deps.imports));
  if (deps.demo) router.use(createDemoRouter(deps.demo));
  if (deps.fleet) router.use(createFleetRouter(deps.fleet));
  return router;
}
