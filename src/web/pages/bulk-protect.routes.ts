/**
 * Bulk protect (GET /admin/bulk-protect): every domain the plugin knows but does not protect
 * yet, with what a run will change, and (POST) the run itself: queued, recorded with the
 * admin's name, carried out by the worker. A reseller's (/reseller/bulk-protect): their
 * customers' domains only, recorded with `reseller:<name>`.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { BulkProtect } from '../../core/bulk-protect.js';
import type { Translate } from '../../core/i18n.js';
import { monitorDaysMessage, monitorDaysSchema } from '../../core/monitoring.js';
import { AppError } from '../../errors.js';
import { ADMIN_SCOPE, type PageScope } from './page-scope.js';

export interface BulkProtectPagesDeps {
  bulkProtect: Pick<BulkProtect, 'preview' | 'run'>;
  /** The default plan's days of monitoring first, shown as what an empty field means for plan-less accounts. */
  defaultPlanDays?: () => number;
}

/** The run's days of monitoring first: empty means each website's plan's (null). */
const runForm = z.object({
  monitor_days: z.union([z.literal('').transform(() => null), monitorDaysSchema]).optional(),
});

/** How many of each kind the preview lists; the counts cover all. */
const PREVIEW_ROWS = 200;

const doneQuery = z.object({ protecting: z.coerce.number().int().min(0), retried: z.coerce.number().int().min(0) });

/** What a run queued, in the page's language. */
function queuedMessage({ protecting, retried }: { protecting: number; retried: number }, t: Translate): string {
  return t('bulkProtect.queued', {
    protecting: t('bulkProtect.queuedProtecting', { count: protecting, total: protecting }),
    retried: t('bulkProtect.queuedRetried', { count: retried, total: retried }),
  });
}

/** Bulk protect of every unprotected domain (the admin), or of a reseller's customers' only (the reseller scope). */
export function createBulkProtectRouter(deps: BulkProtectPagesDeps, scope: PageScope = ADMIN_SCOPE): express.Router {
  const router = express.Router();
  router.get('/bulk-protect', (req: Request, res: Response) => {
    const t = res.locals.t as Translate;
    const done = doneQuery.safeParse(req.query);
    res.render('admin/bulk-protect', {
      title: t('bulkProtect.title'),
      preview: deps.bulkProtect.preview(PREVIEW_ROWS, scope.resellerOf(req)),
      shown: PREVIEW_ROWS,
      defaultPlanDays: deps.defaultPlanDays?.() ?? 0,
      flash: done.success ? { kind: 'ok', message: queuedMessage(done.data, t) } : null,
    });
  });
  router.post('/bulk-protect', (req: Request, res: Response) => {
    const form = runForm.safeParse(req.body ?? {});
    if (!form.success) {
      const t = res.locals.t as Translate;
      const issue = form.error.issues[0];
      const problem = issue ? monitorDaysMessage(issue, t) : t('monitorDays.notNumber');
      throw new AppError('VALIDATION_FAILED', t('bulkProtect.refused', { field: t('bulkProtect.monitorDays'), problem }));
    }
    const { protecting, retried } = deps.bulkProtect.run(scope.actor(req), form.data.monitor_days ?? null);
    res.redirect(303, `${scope.base}/bulk-protect?protecting=${protecting}&retried=${retried}`);
  });
  return router;
}
