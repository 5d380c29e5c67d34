/**
 * The admins' record of background passes: every sync and enforcement run, and every
 * enforcement action with its reason, usage, limit and period; the log also as a CSV download.
 */
import { once } from 'node:events';
import express, { type Response } from 'express';
import { z } from 'zod';
import { toCsvLine } from '../../core/csv.js';
import type { Translate } from '../../core/i18n.js';
import { ENFORCE_LOCK } from '../../core/enforcement.js';
import type { Format } from '../../core/format.js';
import { SYNC_LOCK } from '../../core/statistics.js';
import type { EnforcementAction } from '../../core/types.js';
import type { EnforcementLogFilter } from '../../db/admin-views.repo.js';
import type { AdminPagesDeps } from './admin.routes.js';
import { hrefWith, optional, pageField, pagerLinks, parseQuery } from './admin-query.js';
import { ADMIN_SCOPE, type PageScope } from './page-scope.js';

export const ACTIONS = ['pause', 'resume', 'warning', 'admin_resume', 'repause'] as const;
const RUN_NAMES = [SYNC_LOCK, ENFORCE_LOCK] as const;

const logFilterQuery = z.object({
  account: optional(z.string().trim().toLowerCase().max(255)),
  domain: optional(z.string().trim().toLowerCase().max(253)),
  action: optional(z.enum(ACTIONS)),
});

const runsQuery = logFilterQuery.extend({
  run: optional(z.enum(RUN_NAMES)),
  runpage: pageField,
  page: pageField,
});

/** The log's filter: the query's, within the reseller's accounts when a reseller asks. */
const logFilterOf = (query: z.output<typeof logFilterQuery>, reseller: string | undefined): EnforcementLogFilter => ({
  ...(query.account ? { account: query.account } : {}),
  ...(query.domain ? { domain: query.domain } : {}),
  ...(query.action ? { action: query.action } : {}),
  ...(reseller === undefined ? {} : { reseller }),
});

const CSV_HEADER = [
  'id',
  'at_utc',
  'account',
  'domain',
  'action',
  'actor',
  'reason',
  'usage',
  'limit',
  'period_first_day',
  'period_last_day',
  'status_before',
  'status_after',
];

/** A moment as ISO 8601 in UTC: what spreadsheets and scripts read without doubt about the zone. */
const iso = (ms: number) => new Date(ms).toISOString();

/** One action; its period as its first and last day (inclusive, as the pages say it), through the one formatter. */
const csvRow = (a: EnforcementAction, format: Format) =>
  toCsvLine([
    a.id,
    iso(a.at),
    a.account,
    a.domain,
    a.action,
    a.actor,
    a.reason,
    a.usage,
    a.limitValue,
    format.isoPeriodDay(a.periodStart),
    format.isoLastDay(a.periodEnd),
    a.statusBefore,
    a.statusAfter,
  ]);

/** Writes the rows as they are read, waiting whenever the client is slower than the database. */
async function streamCsv(res: Response, rows: Iterable<EnforcementAction>): Promise<void> {
  const format = res.locals.format as Format;
  res.write(toCsvLine(CSV_HEADER));
  for (const action of rows) {
    if (res.destroyed) return;
    if (!res.write(csvRow(action, format))) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
  res.end();
}

/**
 * The runs and the enforcement log. With the reseller scope: the log of the reseller's own
 * accounts only, without the fleet's runs (each covers every account).
 */
export function createAdminRunsRouter(deps: Pick<AdminPagesDeps, 'views' | 'now'>, scope: PageScope = ADMIN_SCOPE): express.Router {
  const router = express.Router();
  const { base } = scope;
  router.get('/runs', (req, res) => {
    const query = parseQuery(runsQuery, req.query);
    const reseller = scope.resellerOf(req);
    const filter = logFilterOf(query, reseller);
    const runs =
      reseller === undefined
        ? deps.views.syncRuns({ ...(query.run ? { name: query.run } : {}), page: query.runpage ?? 1, pageSize: 20 })
        : null;
    const log = deps.views.enforcementLog({ ...filter, page: query.page ?? 1 });
    const kept = { run: query.run, runpage: query.runpage, account: query.account, domain: query.domain, action: query.action };
    res.render('admin/runs', {
      title: (res.locals.t as Translate)(reseller === undefined ? 'runs.title' : 'reseller.log.title'),
      query,
      runs,
      log,
      actions: ACTIONS,
      runNames: RUN_NAMES,
      csvHref: hrefWith(`${base}/enforcement.csv`, { account: query.account, domain: query.domain, action: query.action }),
      runPager: runs ? pagerLinks(`${base}/runs`, { ...kept, page: query.page }, runs.page, runs.pages, 'runpage') : [],
      logPager: pagerLinks(`${base}/runs`, kept, log.page, log.pages),
    });
  });

  router.get('/enforcement.csv', async (req, res) => {
    const filter = logFilterOf(parseQuery(logFilterQuery, req.query), scope.resellerOf(req));
    const day = iso(deps.now()).slice(0, 10);
    res.status(200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="enforcement-log-${day}.csv"`,
      'Cache-Control': 'no-store',
    });
    await streamCsv(res, deps.views.enforcementLogRows(filter));
  });
  return router;
}
