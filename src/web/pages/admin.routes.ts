/** The admins' pages (views/admin/): the whole fleet, and everything the CLI can do. */
import express, { type Request, type Response } from 'express';
import type { JobsRepo } from '../../db/jobs.repo.js';

export interface AdminPagesDeps {
  jobs: Pick<JobsRepo, 'counts'>;
}

export function createAdminRouter(deps: AdminPagesDeps): express.Router {
  const router = express.Router();
  router.get('/', (_req: Request, res: Response) => {
    res.render('admin/overview', { title: 'Overview', jobCounts: deps.jobs.counts() });
  });
  return router;
}
