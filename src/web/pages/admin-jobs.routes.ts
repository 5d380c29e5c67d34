/** The admins' jobs page: the queue by state and kind with each job's last error, and retries of dead jobs (like `wpp jobs retry`). */
import express from 'express';
import { z } from 'zod';
import type { Translate } from '../../core/i18n.js';
import { JOB_KIND_LABELS, JOB_KINDS } from '../../core/job-kinds.js';
import { JOB_STATES } from '../../db/jobs.repo.js';
import { AppError } from '../../errors.js';
import type { AdminPagesDeps } from './admin.routes.js';
import { hrefWith, optional, pageField, pagerLinks, parseQuery } from './admin-query.js';

export const JOB_KIND_NAMES = Object.keys(JOB_KINDS) as [keyof typeof JOB_KINDS, ...(keyof typeof JOB_KINDS)[]];

const jobsQuery = z.object({
  state: optional(z.enum(JOB_STATES as [string, ...string[]])),
  kind: optional(z.enum(JOB_KIND_NAMES)),
  page: pageField,
  /** After a retry: how many jobs were queued again, and which one when it was one. */
  retried: optional(z.coerce.number().int().min(0)),
  job: optional(z.coerce.number().int().min(1)),
});

const jobId = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const retriedMessage = (t: Translate, retried: number, job: number | undefined) =>
  job !== undefined ? t('jobs.retried', { job }) : retried === 0 ? t('jobs.retriedNone') : t('jobs.retriedMany', { count: retried });

export function createAdminJobsRouter(deps: AdminPagesDeps): express.Router {
  const router = express.Router();
  router.get('/jobs', (req, res) => {
    const t = res.locals.t as Translate;
    const query = parseQuery(jobsQuery, req.query);
    const result = deps.views.jobs({
      ...(query.state ? { state: query.state as (typeof JOB_STATES)[number] } : {}),
      ...(query.kind ? { kind: query.kind } : {}),
      page: query.page ?? 1,
    });
    const filters = { state: query.state, kind: query.kind };
    res.render('admin/jobs', {
      title: t('jobs.title'),
      query,
      result,
      deadJobs: deps.views.jobs({ state: 'dead', pageSize: 1 }).total,
      states: JOB_STATES,
      kinds: JOB_KIND_NAMES,
      // What each kind is doing, in words: a kept Plesk event says it waits for the owner.
      kindLabels: JOB_KIND_LABELS,
      pager: pagerLinks('/admin/jobs', filters, result.page, result.pages),
      flash: query.retried === undefined ? undefined : { kind: 'ok', message: retriedMessage(t, query.retried, query.job) },
    });
  });

  router.post('/jobs/retry-dead', (_req, res) => {
    const retried = deps.queue.retryAllDead();
    res.redirect(303, hrefWith('/admin/jobs', { retried }));
  });

  router.post('/jobs/:id/retry', (req, res) => {
    const parsed = jobId.safeParse(req.params.id);
    const t = res.locals.t as Translate;
    if (!parsed.success) throw new AppError('NOT_FOUND', t('jobs.noSuchJob', { job: req.params.id }));
    if (!deps.queue.retryJob(parsed.data)) throw new AppError('CONFLICT', t('jobs.notDead', { job: parsed.data }));
    res.redirect(303, hrefWith('/admin/jobs', { retried: 1, job: parsed.data }));
  });
  return router;
}
