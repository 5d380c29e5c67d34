/**
 * The admins' accounts and websites: the searchable lists, one website's page with its usage,
 * forecast and history, and the admin's pause, resume and re-provision of it. With the reseller
 * scope (page-scope.ts), the same for a reseller's own customers: any other domain is not found.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { currentForecast, forecastWords } from '../../core/forecast.js';
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import { NOTICES_READ, spikeNotices } from '../../core/website-notices.js';
import { mayResume } from '../../core/protection.js';
import type { PausedBy } from '../../core/types.js';
import type { WebsiteQuotaRow } from '../../db/admin-views.repo.js';
import { AppError, httpStatusFor } from '../../errors.js';
import { REPORTED_STATUSES } from '../../provider/spec.js';
import type { AdminPagesDeps } from './admin.routes.js';
import { hrefWith, optional, pageField, pagerLinks, parseQuery } from './admin-query.js';
import { ADMIN_SCOPE, mayAccess, type PageScope } from './page-scope.js';

export const WEBSITE_STATES = [...REPORTED_STATUSES, 'missing', 'removed'] as const;
export const PAUSERS = [
  'customer',
  'admin',
  'enforcement',
  'suspension',
  'domain_removed',
  'account_deleted',
  'external',
  'package',
  'reseller',
] as const;
const SORTS = ['domain', 'account', 'usage', 'status', 'updated'] as const;
/** Shorter search text matches a good share of 100,000 websites: no use to anyone, and slow to count. */
export const MIN_QUERY_LENGTH = 2;

const searchText = optional(z.string().trim().max(253, 'search text is at most 253 characters').toLowerCase());

const websitesQuery = z.object({
  q: searchText,
  match: optional(z.enum(['prefix', 'contains'])),
  account: searchText,
  state: optional(z.enum(WEBSITE_STATES)),
  paused: optional(z.enum(PAUSERS)),
  quota: optional(z.enum(['near', 'over', 'near_or_over'])),
  sort: optional(z.enum(SORTS)),
  dir: optional(z.enum(['asc', 'desc'])),
  page: pageField,
});

const accountsQuery = z.object({ q: searchText, page: pageField });

/** What an admin's action on a website did, told after its redirect. */
const DONE = ['paused', 'resumed', 'reprovisioned'] as const;

const websitePageQuery = z.object({
  done: optional(z.enum(DONE)),
  job: optional(z.coerce.number().int().min(1)),
});

const domainParam = z.string().trim().toLowerCase().min(1).max(253);

type WebsitesDeps = Pick<
  AdminPagesDeps,
  'views' | 'schedule' | 'periodOf' | 'actions' | 'now' | 'monitoringUntil' | 'resellerPools' | 'servedBy'
>;

function websitesPage(deps: WebsitesDeps, scope: PageScope, req: Request, res: Response) {
  const t = res.locals.t as Translate;
  const query = parseQuery(websitesQuery, req.query, t);
  const reseller = scope.resellerOf(req);
  const tooShort = query.q !== undefined && query.q.length < MIN_QUERY_LENGTH;
  const q = tooShort ? undefined : query.q;
  const result = deps.views.searchWebsites({
    ...(q ? { q, match: query.match ?? 'prefix' } : {}),
    ...(query.account ? { account: query.account } : {}),
    ...(query.state ? { state: query.state } : {}),
    ...(query.paused ? { pausedBy: query.paused as PausedBy } : {}),
    ...(query.quota ? { quota: query.quota } : {}),
    sort: query.sort ?? 'domain',
    dir: query.dir ?? 'asc',
    page: query.page ?? 1,
    ...(reseller === undefined ? {} : { reseller }),
  });
  const kept = { ...query, q, page: undefined };
  const sortHref = (sort: (typeof SORTS)[number]) =>
    hrefWith(`${scope.base}/websites`, {
      ...kept,
      sort,
      dir: (query.sort ?? 'domain') === sort && (query.dir ?? 'asc') === 'asc' ? 'desc' : 'asc',
    });
  res.render('admin/websites', {
    title: t('adminWebsites.title'),
    query: { ...query, sort: query.sort ?? 'domain', dir: query.dir ?? 'asc' },
    tooShort,
    result,
    sortHref,
    pager: pagerLinks(`${scope.base}/websites`, kept, result.page, result.pages),
    states: WEBSITE_STATES,
    pausers: PAUSERS,
  });
}

/** The forecast of each limit that applies: when it is reached at the current rate (core/forecast.ts currentForecast). */
function forecasts(deps: WebsitesDeps, website: WebsiteQuotaRow, now: number) {
  if (website.periodStart === null || website.periodEnd === null) return null;
  return currentForecast({
    now,
    periodEnd: deps.periodOf(website.account, now).end,
    counted: { start: website.periodStart, end: website.periodEnd },
    website: { usage: website.usage, limit: website.limit, stored: deps.schedule.get(website.domain) },
    account: { usage: website.accountUsage, limit: website.accountLimit, stored: deps.schedule.accountForecast(website.account) },
  });
}

/** What the admin's action did, after its redirect: "Paused at the provider. … Job #12." */
const doneMessage = (t: Translate, done: (typeof DONE)[number], job: number | undefined, scope: PageScope) =>
  [
    // A reseller's pause is resumed by them or the host, not by the customer.
    t(scope.base === '/reseller' && done === 'paused' ? 'reseller.website.donePaused' : `adminWebsite.done.${done}`),
    ...(job ? [t('adminWebsite.doneJob', { job })] : []),
  ].join(' ');

/** A forecast in the page's words: "not this period", "reached", else its day and hour (core/forecast.ts). */
const forecastIn = (t: Translate, format: Format, now: number) => (at: number | null) =>
  at === null ? t('adminWebsite.notThisPeriod') : at <= now ? t('adminWebsite.reached') : forecastWords(at, now, format, t);

/** The website of the request's domain, if the scope may see it; else NOT_FOUND, as for a domain the plugin never knew. */
function websiteOf(deps: WebsitesDeps, scope: PageScope, req: Request, res: Response) {
  const domain = domainParam.parse(req.params.domain);
  const website = deps.views.website(domain);
  if (!website || !mayAccess(scope, req, website.account, deps.views.resellerOf))
    throw new AppError('NOT_FOUND', (res.locals.t as Translate)('adminWebsite.notFound', { domain }));
  return website;
}

function renderWebsite(
  deps: WebsitesDeps,
  scope: PageScope,
  req: Request,
  res: Response,
  flash?: { kind: 'ok' | 'error'; message: string },
  status = 200,
) {
  const t = res.locals.t as Translate;
  const website = websiteOf(deps, scope, req, res);
  const domain = website.domain;
  const now = deps.now();
  res.status(status).render('admin/website', {
    title: domain,
    website,
    forecast: forecasts(deps, website, now),
    forecastWords: forecastIn(t, res.locals.format as Format, now),
    monitoringUntil: deps.monitoringUntil?.(domain) ?? null,
    // A website another panel server took (accounts that move): the page names it instead of "removed".
    servedBy: website.state === 'removed' ? (deps.servedBy?.(domain) ?? null) : null,
    // Resume only where this actor may end the pause: a reseller never ends the host's (core/protection.ts).
    mayResume: mayResume(scope.actor(req), website.pausedBy),
    spikes: spikeNotices(deps.schedule.notices(domain, NOTICES_READ), now, res.locals.format as Format),
    history: deps.views.websiteHistory(domain, 50),
    resellerPool: deps.resellerPools?.([website.account], now).get(website.account) ?? null,
    flash,
  });
}

export function createAdminWebsitesRouter(deps: WebsitesDeps, scope: PageScope = ADMIN_SCOPE): express.Router {
  const router = express.Router();
  router.get('/websites', (req, res) => websitesPage(deps, scope, req, res));

  router.get('/accounts', (req, res) => {
    const query = parseQuery(accountsQuery, req.query, res.locals.t as Translate);
    const tooShort = query.q !== undefined && query.q.length < MIN_QUERY_LENGTH;
    const q = tooShort ? undefined : query.q;
    const reseller = scope.resellerOf(req);
    const result = deps.views.accounts({ ...(q ? { q } : {}), page: query.page ?? 1, ...(reseller === undefined ? {} : { reseller }) });
    res.render('admin/accounts', {
      title: 'Accounts',
      query,
      tooShort,
      result,
      resellerPools:
        deps.resellerPools?.(
          result.rows.map((row) => row.account),
          deps.now(),
        ) ?? new Map(),
      pager: pagerLinks(`${scope.base}/accounts`, { q }, result.page, result.pages),
    });
  });

  router.get('/websites/:domain', (req, res) => {
    const t = res.locals.t as Translate;
    const query = parseQuery(websitePageQuery, req.query, t);
    renderWebsite(deps, scope, req, res, query.done ? { kind: 'ok', message: doneMessage(t, query.done, query.job, scope) } : undefined);
  });

  const act = (action: 'pause' | 'resume' | 'reprovision', done: (typeof DONE)[number]) =>
    router.post(`/websites/:domain/${action}`, async (req, res) => {
      // Whose it is first: a domain out of the scope is not found, and nothing is done.
      const { domain } = websiteOf(deps, scope, req, res);
      try {
        const actor = scope.actor(req);
        const result = action === 'reprovision' ? deps.actions.reprovision(domain, actor) : await deps.actions[action](domain, actor);
        const job = 'jobId' in result ? result.jobId : undefined;
        res.redirect(303, hrefWith(`${scope.base}/websites/${encodeURIComponent(domain)}`, { done, job }));
      } catch (error) {
        if (!(error instanceof AppError) || error.code === 'NOT_FOUND') throw error;
        renderWebsite(deps, scope, req, res, { kind: 'error', message: error.message }, httpStatusFor(error.code));
      }
    });
  act('pause', 'paused');
  act('resume', 'resumed');
  act('reprovision', 'reprovisioned');
  return router;
}
