/**
 * The reseller's pages (views/reseller/ and the admin views under /reseller): what the admin
 * pages offer, for the accounts the panel says belong to the signed-in reseller
 * (accounts.reseller) and nothing of anyone else's: websites, accounts, the enforcement log and
 * its CSV, limits and bulk protect. The admin routers serve them with the reseller scope
 * (page-scope.ts): every route reads the reseller from the session, never from the request, and
 * a domain or account not theirs is not found, as one the plugin never knew. Not theirs: jobs,
 * import, plugin settings, plans and the demo.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { Translate } from '../../core/i18n.js';
import type { ResellerUsage } from '../../core/reseller-limits.js';
import { pageField, pagerLinks, parseQuery } from './admin-query.js';
import { adminViewLocals, type AdminPagesDeps } from './admin.routes.js';
import { createAdminRunsRouter } from './admin-runs.routes.js';
import { createAdminWebsitesRouter } from './admin-websites.routes.js';
import { createBulkProtectRouter } from './bulk-protect.routes.js';
import { RESELLER_SCOPE } from './page-scope.js';
import { createResellerLimitsRouter, type ResellerLimitsDeps } from './reseller-limits.routes.js';
import { sessionReseller } from './session.middleware.js';

export interface ResellerPagesDeps {
  now: () => number;
  /** The admin pages' read models and actions, used with the reseller's scope. */
  pages: Pick<AdminPagesDeps, 'views' | 'schedule' | 'periodOf' | 'actions' | 'now' | 'monitoringUntil' | 'bulk'>;
  limits: ResellerLimitsDeps;
  /** The reseller's customers' hits this period against the reseller's pool (core/reseller-limits.ts). */
  usage: (reseller: string, now: number) => ResellerUsage;
}

/** One customer of the reseller, as the overview lists it. */
interface CustomerRow {
  account: string;
  state: string;
  plan: string | null;
  websites: number;
  /** Its websites' hits in the pool's period. */
  hits: number;
}

const overviewQuery = z.object({ page: pageField });

export function createResellerRouter(deps: ResellerPagesDeps): express.Router {
  const router = express.Router();
  router.use(adminViewLocals('/reseller', deps.now));
  router.get('/', (req: Request, res: Response) => {
    const t = res.locals.t as Translate;
    const { page } = parseQuery(overviewQuery, req.query, t);
    const reseller = sessionReseller(req);
    // The pool sums every customer's hits anyway; the list is one page of them, in one query.
    const pool = deps.usage(reseller, deps.now());
    const hitsOf = new Map(pool.accounts.map((row) => [row.account, row.hits]));
    const result = deps.pages.views.accounts({ reseller, page: page ?? 1 });
    const customers: CustomerRow[] = result.rows.map((row) => ({
      account: row.account,
      state: row.state,
      plan: row.plan,
      websites: row.websites,
      hits: hitsOf.get(row.account) ?? 0,
    }));
    res.render('reseller/overview', {
      title: t('reseller.overview.title'),
      reseller,
      customers,
      pool,
      result,
      pager: pagerLinks('/reseller', {}, result.page, result.pages),
    });
  });
  router.use(createAdminWebsitesRouter(deps.pages, RESELLER_SCOPE));
  router.use(createAdminRunsRouter(deps.pages, RESELLER_SCOPE));
  router.use(createResellerLimitsRouter(deps.limits));
  router.use(createBulkProtectRouter(deps.pages.bulk, RESELLER_SCOPE));
  return router;
}
