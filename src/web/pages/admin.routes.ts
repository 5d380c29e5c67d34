/** The admins' pages (views/admin/): the whole fleet, and everything the CLI can do. */
import express, { type Request, type Response } from 'express';
import type { JobsRepo } from '../../db/jobs.repo.js';
import { createSettingsRouter, type SettingsPagesDeps } from './admin-settings.routes.js';
import { createBulkProtectRouter, type BulkProtectPagesDeps } from './bulk-protect.routes.js';
import { createDemoRouter, type DemoPagesDeps } from './demo.routes.js';

export interface AdminPagesDeps {
  jobs: Pick<JobsRepo, 'counts'>;
  settings: SettingsPagesDeps;
  bulk: BulkProtectPagesDeps;
  /** Only when the embedded sandbox is the provider: without it, /admin/demo is not found and not linked. */
  demo?: DemoPagesDeps | undefined;
}

export function createAdminRouter(deps: AdminPagesDeps): express.Router {
  const router = express.Router();
  if (deps.demo) {
    router.use((_req, res, next) => {
      res.locals.demo = true;
      next();
    });
  }
  router.get('/', (_req: Request, res: Response) => {
    res.render('admin/overview', { title: 'Overview', jobCounts: deps.jobs.counts() });
  });
  router.use(createSettingsRouter(deps.settings));
  router.use(createBulkProtectRouter(deps.bulk));
  if (deps.demo) router.use(createDemoRouter(deps.demo));
  return router;
}
