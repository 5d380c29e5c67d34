import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOB_KINDS, jobHandlers, queueJob, queueJobs, type JobHandlers } from '../../src/core/job-kinds.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';
import { withPlugin } from '../helpers/plugin.js';

async function withJobs(fn: (jobs: ReturnType<typeof createJobsRepo>) => Promise<void> | void) {
  await withTempDir(async (dir) => {
    const db = openDatabase(join(dir, 'plugin.sqlite'));
    try {
      migrate(db, paths.migrations);
      await fn(createJobsRepo(db));
    } finally {
      db.close();
    }
  });
}

const noop = async () => undefined;
const handlers = (overrides: Partial<JobHandlers> = {}): JobHandlers => ({
  'panel.event': noop,
  'website.refresh': noop,
  'server.register': noop,
  'notification.send': noop,
  'spike.notify': noop,
  'website.protect': noop,
  'panel.owner': noop,
  'package.release': noop,
  'email.send': noop,
  ...overrides,
});

describe('the job registry', () => {
  it('names every kind <subject>.<verb>', () => {
    for (const kind of Object.keys(JOB_KINDS)) expect(kind).toMatch(/^[a-z]+\.[a-z]+$/);
  });

  it('refuses, at compile time and at run time, a payload that does not match its kind, storing nothing', async () => {
    await withJobs((jobs) => {
      expect(() =>
        // @ts-expect-error -- `domian` is not the refresh job's payload: a type error.
        queueJob(jobs, { kind: 'website.refresh', payload: { domian: 'a.example' }, maxAttempts: 3 }),
      ).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'domain' })] }));
      expect(() =>
        queueJobs(jobs, [
          {
            kind: 'panel.event',
            payload: { id: 'e1', type: 'account.created', occurredAt: '2026-11-23T10:00:00Z', account: 'alice' },
            maxAttempts: 3,
          },
          {
            kind: 'panel.event',
            // @ts-expect-error -- an unknown event type: a type error, and the whole batch is refused.
            payload: { id: 'e2', type: 'account.merged', occurredAt: '2026-11-23T10:00:00Z', account: 'bob' },
            maxAttempts: 3,
          },
        ]),
      ).toThrow(/payload does not match/);
      // @ts-expect-error -- an unregistered kind is a type error too.
      expect(() => queueJob(jobs, { kind: 'website.delete', payload: {}, maxAttempts: 3 })).toThrow();
      expect(jobs.counts()).toEqual({ pending: 0, running: 0, done: 0, dead: 0 });
    });
  });

  it('stores the payload as its handler will read it back', async () => {
    await withJobs(async (jobs) => {
      const { job } = queueJob(jobs, {
        kind: 'panel.event',
        payload: { id: 'e1', type: 'domain.added', occurredAt: '2026-11-23T10:00:00Z', account: 'Alice', domain: 'Bücher.Example.' },
        maxAttempts: 3,
      });
      const seen: unknown[] = [];
      await jobHandlers(handlers({ 'panel.event': async (event) => void seen.push([event.account, event.domain]) }))['panel.event'](job);
      expect(seen).toEqual([['alice', 'xn--bcher-kva.example']]);
    });
  });

  it('hands a handler only a payload of its kind: a stored one that does not parse fails as permanent, the handler unrun', async () => {
    await withJobs(async (jobs) => {
      // Written past the registry, as an older version or a hand edit might have.
      const { job } = jobs.enqueue({ kind: 'website.refresh', payload: { host: 'a.example' }, maxAttempts: 3 });
      let ran = false;
      const table = jobHandlers(handlers({ 'website.refresh': async () => void (ran = true) }));
      await expect(table['website.refresh'](job)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(ran).toBe(false);
    });
  });

  it('a job whose stored payload does not parse goes dead at once in the plugin, with the reason', async () => {
    await withPlugin(
      async (plugin) => {
        const { job } = plugin.jobs.enqueue({ kind: 'website.refresh', payload: { host: 'a.example' }, maxAttempts: 10 });
        await plugin.drain();
        expect(plugin.jobs.get(job.id)).toMatchObject({
          state: 'dead',
          attempts: 1,
          lastError: expect.stringMatching(/^VALIDATION_FAILED: a website.refresh job's payload does not match its kind/),
        });
      },
      { worker: false },
    );
  });
});

describe('migration 006', () => {
  it('renames the job kinds stored under the old names, so queued jobs still find their handler', async () => {
    await withTempDir(async (dir) => {
      const older = join(dir, 'migrations');
      mkdirSync(older);
      for (const file of readdirSync(paths.migrations).filter((name) => /^00[1-5]_.*\.sql$/.test(name)))
        copyFileSync(join(paths.migrations, file), join(older, file));
      const db = openDatabase(join(dir, 'plugin.sqlite'));
      try {
        migrate(db, older);
        // Queued as the code of migration 005's time did (today's repository writes columns added since).
        const insert = db.prepare(
          "INSERT INTO jobs (kind, payload, max_attempts, run_at, created_at, updated_at) VALUES (?, '{}', 3, 0, 0, 0)",
        );
        for (const kind of ['panel_event', 'notify', 'website.refresh']) insert.run(kind);
        migrate(db, paths.migrations);
        const jobs = createJobsRepo(db);
        expect(
          jobs
            .list()
            .map((job) => job.kind)
            .sort(),
        ).toEqual(['notification.send', 'panel.event', 'website.refresh']);
      } finally {
        db.close();
      }
    });
  });
});
