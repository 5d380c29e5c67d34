/**
 * Which queued work is background (docs/fleet.md, "One budget per server"): the panel's own
 * events are not; an import's events, bulk protect's jobs and every re-read of a website
 * (reconcile's, a callback's) are, so the worker claims them after the panel's own.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJobQueue } from '../../src/core/job-queue.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

describe('the job queue: background work', () => {
  it("marks an import's events, bulk protect's jobs and re-reads background; the panel's own events not", () =>
    withTempDir((dir) => {
      const db = openDatabase(join(dir, 'plugin.sqlite'));
      try {
        migrate(db, paths.migrations);
        const jobs = createJobsRepo(db);
        const queue = createJobQueue({ jobs, maxAttempts: 3, onQueued: () => undefined });
        const at = new Date().toISOString();
        const [own] = queue.ingestEvents([{ id: 'hook-1', occurredAt: at, type: 'domain.added', account: 'ann', domain: 'own.example' }]);
        const [imported] = queue.ingestEvents(
          [{ id: 'import-1', occurredAt: at, type: 'domain.added', account: 'bob', domain: 'imported.example' }],
          { background: true },
        );
        queue.protectWebsites([{ domain: 'setup.example', account: 'cat' }], 'dana');
        queue.refreshWebsites([{ domain: 'own.example', account: 'ann' }]);
        const flags = Object.fromEntries(jobs.list({ limit: 10 }).map((job) => [`${job.kind} ${job.id}`, job.background]));
        expect(flags).toEqual({
          [`panel.event ${own!.jobId}`]: false,
          [`panel.event ${imported!.jobId}`]: true,
          'website.protect 3': true,
          'website.refresh 4': true,
        });
      } finally {
        db.close();
      }
    }));
});
