import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAIMABLE_IDS_SQL, createJobsRepo, InvalidJobError, type JobsRepo, type NewJob } from '../../src/db/jobs.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

interface Clock {
  now: () => number;
  advance(ms: number): void;
}

function createClock(start = 1_800_000_000_000): Clock {
  let time = start;
  return {
    now: () => time,
    advance(ms) {
      time += ms;
    },
  };
}

async function withRepo(fn: (context: { db: Db; repo: JobsRepo; clock: Clock; file: string }) => void | Promise<void>) {
  await withTempDir(async (dir) => {
    const file = join(dir, 'plugin.sqlite');
    const db = openDatabase(file);
    try {
      migrate(db, paths.migrations);
      const clock = createClock();
      await fn({ db, repo: createJobsRepo(db, clock.now), clock, file });
    } finally {
      db.close();
    }
  });
}

const job = (overrides: Partial<NewJob> = {}): NewJob => ({ kind: 'test', payload: { n: 1 }, maxAttempts: 3, ...overrides });

const ids = (jobs: { id: number }[]) => jobs.map((j) => j.id);

describe('jobs repository: enqueue', () => {
  it('stores a job with its payload and defaults', () =>
    withRepo(({ repo, clock }) => {
      const { job: stored, created } = repo.enqueue(job({ account: 'alice', domain: 'a.example', payload: { x: [1, 'two'] } }));
      expect(created).toBe(true);
      expect(stored).toMatchObject({
        kind: 'test',
        dedupeKey: null,
        account: 'alice',
        domain: 'a.example',
        payload: { x: [1, 'two'] },
        state: 'pending',
        attempts: 0,
        maxAttempts: 3,
        runAt: clock.now(),
        leaseUntil: null,
        lockedBy: null,
        lastError: null,
        createdAt: clock.now(),
        finishedAt: null,
      });
      expect(repo.get(stored.id)).toEqual(stored);
    }));

  it('gives the existing job for a dedupe key seen before, whatever its state', () =>
    withRepo(({ db, repo }) => {
      const first = repo.enqueue(job({ dedupeKey: 'evt-1', payload: { first: true } }));
      const second = repo.enqueue(job({ dedupeKey: 'evt-1', payload: { first: false } }));
      expect(second.created).toBe(false);
      expect(second.job).toEqual(first.job);
      expect(second.job.payload).toEqual({ first: true });

      const [claimed] = repo.claim('w1', 1, 1000);
      repo.complete(claimed!.id, 'w1');
      const third = repo.enqueue(job({ dedupeKey: 'evt-1' }));
      expect(third).toMatchObject({ created: false, job: { id: first.job.id, state: 'done' } });
      expect((db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n).toBe(1);
    }));

  it('enqueueMany inserts in one transaction, deduplicating within the batch too', () =>
    withRepo(({ repo }) => {
      const results = repo.enqueueMany([
        job({ dedupeKey: 'a', account: 'alice' }),
        job({ dedupeKey: 'b', account: 'alice', domain: 'a.example' }),
        job({ dedupeKey: 'a' }),
      ]);
      expect(results.map((r) => r.created)).toEqual([true, true, false]);
      expect(results[2]!.job.id).toBe(results[0]!.job.id);
      expect(repo.counts().pending).toBe(2);
      expect(repo.enqueueMany([])).toEqual([]);
    }));

  it('enqueueMany rolls everything back when one job is bad', () =>
    withRepo(({ repo }) => {
      expect(() =>
        repo.enqueueMany([job({ dedupeKey: 'ok-1' }), job({ dedupeKey: 'ok-2' }), job({ dedupeKey: 'bad', maxAttempts: 0 })]),
      ).toThrow(InvalidJobError);
      expect(() => repo.enqueueMany([job({ dedupeKey: 'ok-3' }), job({ payload: undefined })])).toThrow(/payload/);
      expect(repo.counts()).toEqual({ pending: 0, running: 0, done: 0, dead: 0 });
      expect(repo.enqueue(job({ dedupeKey: 'ok-1' })).created).toBe(true);
    }));

  it('refuses invalid jobs with a clear error and writes nothing', () =>
    withRepo(({ repo }) => {
      expect(() => repo.enqueue(job({ kind: '' }))).toThrow(/kind/);
      expect(() => repo.enqueue(job({ maxAttempts: 1.5 }))).toThrow(/maxAttempts/);
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      expect(() => repo.enqueue(job({ payload: circular }))).toThrow(InvalidJobError);
      expect(repo.list()).toEqual([]);
    }));
});

describe('jobs repository: claim', () => {
  it('claims due jobs oldest first (run_at, then id), marking them running', () =>
    withRepo(({ repo, clock }) => {
      const t = clock.now();
      const late = repo.enqueue(job({ runAt: t - 10 })).job;
      const early = repo.enqueue(job({ runAt: t - 20 })).job;
      const sameTimeAsLate = repo.enqueue(job({ runAt: t - 10 })).job;
      const future = repo.enqueue(job({ runAt: t + 1000 })).job;

      const claimed = repo.claim('w1', 10, 5000);
      expect(ids(claimed)).toEqual([early.id, late.id, sameTimeAsLate.id]);
      for (const c of claimed) {
        expect(c).toMatchObject({ state: 'running', attempts: 1, leaseUntil: t + 5000, lockedBy: 'w1' });
      }
      expect(repo.claim('w2', 10, 5000)).toEqual([]);
      clock.advance(1000);
      expect(ids(repo.claim('w2', 10, 5000))).toEqual([future.id]);
    }));

  it('respects the limit', () =>
    withRepo(({ repo }) => {
      repo.enqueueMany([job(), job(), job()]);
      expect(repo.claim('w1', 2, 1000)).toHaveLength(2);
      expect(repo.claim('w1', 0, 1000)).toEqual([]);
      expect(repo.claim('w1', 2, 1000)).toHaveLength(1);
    }));

  it('treats an account-level job as a barrier for its account, both ways', () =>
    withRepo(({ repo }) => {
      const created = repo.enqueue(job({ account: 'alice' })).job; // account.created
      const domainA = repo.enqueue(job({ account: 'alice', domain: 'a.example' })).job;
      const domainB = repo.enqueue(job({ account: 'alice', domain: 'b.example' })).job;
      const suspended = repo.enqueue(job({ account: 'alice' })).job; // account.suspended
      const domainC = repo.enqueue(job({ account: 'alice', domain: 'c.example' })).job;
      const other = repo.enqueue(job({ account: 'bob', domain: 'a.example' })).job;
      const unordered = repo.enqueue(job()).job;

      expect(ids(repo.claim('w1', 10, 1000))).toEqual([created.id, other.id, unordered.id]);
      repo.complete(created.id, 'w1');
      // Two domains of one account side by side; the later account-level job waits for both.
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([domainA.id, domainB.id]);
      repo.complete(domainA.id, 'w1');
      expect(repo.claim('w1', 10, 1000)).toEqual([]);
      repo.complete(domainB.id, 'w1');
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([suspended.id]);
      // A domain job after an account-level one waits for it too.
      expect(repo.claim('w1', 10, 1000)).toEqual([]);
      repo.complete(suspended.id, 'w1');
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([domainC.id]);
    }));

  it('runs jobs of one domain one after the other, in order', () =>
    withRepo(({ repo, clock }) => {
      const added = repo.enqueue(job({ account: 'alice', domain: 'a.example' })).job;
      const removed = repo.enqueue(job({ account: 'alice', domain: 'a.example', runAt: clock.now() - 1000 })).job;
      // The later job is older by run_at but must still wait for the earlier id.
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([added.id]);
      expect(repo.claim('w1', 10, 1000)).toEqual([]);
      // A retry scheduled later keeps its place: the next job of that domain still waits.
      repo.fail(added.id, 'w1', { error: 'E: boom', delayMs: 60_000 });
      expect(repo.claim('w1', 10, 1000)).toEqual([]);
      clock.advance(60_000);
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([added.id]);
      repo.complete(added.id, 'w1');
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([removed.id]);
    }));

  it('does not let a job queued for later hold back the jobs of its domain queued after it', () =>
    withRepo(({ repo, clock }) => {
      const later = repo.enqueue(job({ account: 'alice', domain: 'a.example', runAt: clock.now() + 30_000 })).job;
      const pause = repo.enqueue(job({ account: 'alice', domain: 'a.example' })).job;
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([pause.id]);
      repo.complete(pause.id, 'w1');
      clock.advance(30_000);
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([later.id]);
    }));

  it('brings a waiting job forward when the same pending key asks for it sooner, never later', () =>
    withRepo(({ repo, clock }) => {
      const key = { pendingKey: 'website.refresh:a.example' };
      const waiting = repo.enqueue(job({ ...key, runAt: clock.now() + 30_000 })).job;
      expect(repo.enqueue(job({ ...key, runAt: clock.now() + 60_000 })).job).toMatchObject({ id: waiting.id, runAt: waiting.runAt });
      expect(repo.claim('w1', 10, 1000)).toEqual([]);
      const joined = repo.enqueue(job(key));
      expect(joined).toMatchObject({ created: false, job: { id: waiting.id, runAt: clock.now() } });
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([waiting.id]);
    }));

  it('does not let a dead job block its account', () =>
    withRepo(({ repo }) => {
      const first = repo.enqueue(job({ account: 'alice', maxAttempts: 1 })).job;
      const second = repo.enqueue(job({ account: 'alice', domain: 'a.example' })).job;
      repo.claim('w1', 10, 1000);
      expect(repo.fail(first.id, 'w1', { error: 'E: gone', delayMs: 0 })?.state).toBe('dead');
      expect(ids(repo.claim('w1', 10, 1000))).toEqual([second.id]);
    }));

  it('reclaims a running job whose lease expired, and the old worker can no longer record it', () =>
    withRepo(({ repo, clock }) => {
      const { job: queued } = repo.enqueue(job());
      repo.claim('crashed', 1, 1000);
      clock.advance(1000);
      expect(repo.claim('w2', 1, 1000)).toEqual([]); // lease_until < now, not <=
      clock.advance(1);
      const [reclaimed] = repo.claim('w2', 1, 5000);
      expect(reclaimed).toMatchObject({ id: queued.id, state: 'running', attempts: 2, lockedBy: 'w2' });

      expect(repo.complete(queued.id, 'crashed')).toBe(false);
      expect(repo.fail(queued.id, 'crashed', { error: 'E: late', delayMs: 0 })).toBeNull();
      expect(repo.extendLease(queued.id, 'crashed', 5000)).toBe(false);
      expect(repo.get(queued.id)).toMatchObject({ state: 'running', lockedBy: 'w2', lastError: null });

      expect(repo.complete(queued.id, 'w2')).toBe(true);
      expect(repo.get(queued.id)).toMatchObject({ state: 'done', finishedAt: clock.now(), leaseUntil: null });
      expect(repo.complete(queued.id, 'w2')).toBe(false);
    }));

  it('keeps a job while its lease is extended', () =>
    withRepo(({ repo, clock }) => {
      const { job: queued } = repo.enqueue(job());
      repo.claim('w1', 1, 1000);
      clock.advance(900);
      expect(repo.extendLease(queued.id, 'w1', 1000)).toBe(true);
      clock.advance(900);
      expect(repo.claim('w2', 1, 1000)).toEqual([]);
      expect(repo.get(queued.id)?.leaseUntil).toBe(clock.now() + 100);
    }));

  it('buries a job whose lease expired on its last attempt instead of running it again', () =>
    withRepo(({ repo, clock }) => {
      const { job: queued } = repo.enqueue(job({ maxAttempts: 2 }));
      repo.claim('crash-1', 1, 10);
      clock.advance(11);
      expect(repo.claim('crash-2', 1, 10)).toHaveLength(1);
      clock.advance(11);
      expect(repo.claim('w3', 1, 10)).toEqual([]);
      expect(repo.get(queued.id)).toMatchObject({
        state: 'dead',
        attempts: 2,
        lastError: expect.stringMatching(/^LEASE_EXPIRED: .*crash-2/),
      });
    }));
});

describe('jobs repository: background jobs (an import, bulk protect)', () => {
  it("claims every due job of the panel's own before background ones, however much older those are", () =>
    withRepo(({ repo, clock }) => {
      const t = clock.now();
      const imported = [1, 2, 3].map((n) => repo.enqueue(job({ account: `imp${n}`, runAt: t - 1000 + n, background: true })).job);
      const own = repo.enqueue(job({ account: 'newcomer', runAt: t })).job;
      expect(imported.every((j) => j.background)).toBe(true);
      expect(own.background).toBe(false);
      expect(ids(repo.claim('w1', 2, 5000))).toEqual([own.id, imported[0]!.id]);
      expect(ids(repo.claim('w1', 5, 5000))).toEqual([imported[1]!.id, imported[2]!.id]);
    }));

  it("takes at most backgroundLimit background jobs in a claim, keeping room for the panel's own", () =>
    withRepo(({ repo, clock }) => {
      const t = clock.now();
      for (let n = 0; n < 4; n++) repo.enqueue(job({ account: `imp${n}`, runAt: t - 100, background: true }));
      expect(repo.claim('w1', 4, 5000, 0)).toEqual([]);
      expect(repo.claim('w1', 4, 5000, 3)).toHaveLength(3);
      const own = repo.enqueue(job({ account: 'newcomer' })).job;
      expect(ids(repo.claim('w1', 4, 5000, 0))).toEqual([own.id]);
    }));

  it('gives back a run the close stopped: pending again, its attempt not spent, only by the worker holding it', () =>
    withRepo(({ repo }) => {
      const queued = repo.enqueue(job()).job;
      const [claimed] = repo.claim('w1', 1, 5000);
      expect(claimed?.attempts).toBe(1);
      expect(repo.release(queued.id, 'w2')).toBe(false);
      expect(repo.release(queued.id, 'w1')).toBe(true);
      expect(repo.get(queued.id)).toMatchObject({ state: 'pending', attempts: 0, lockedBy: null, leaseUntil: null });
    }));

  it("keeps a retried dead job's mark, and marks it background when bulk protect retries it", () =>
    withRepo(({ repo }) => {
      const dead = repo.enqueue(job({ maxAttempts: 1 })).job;
      repo.claim('w1', 1, 5000);
      repo.fail(dead.id, 'w1', { error: 'refused', delayMs: 0, permanent: true });
      expect(repo.retry(dead.id)?.background).toBe(false);
      repo.claim('w1', 1, 5000);
      repo.fail(dead.id, 'w1', { error: 'refused', delayMs: 0, permanent: true });
      expect(repo.retry(dead.id, { background: true })?.background).toBe(true);
    }));
});

describe('jobs repository: fail, retry, views', () => {
  it('schedules a failed job after its delay, then buries it after maxAttempts with last_error kept', () =>
    withRepo(({ repo, clock }) => {
      const { job: queued } = repo.enqueue(job({ maxAttempts: 2 }));
      repo.claim('w1', 1, 1000);
      const delayMs = 750;
      const retried = repo.fail(queued.id, 'w1', { error: 'PROVIDER_UNAVAILABLE: down', delayMs });
      expect(retried).toMatchObject({
        state: 'pending',
        attempts: 1,
        runAt: clock.now() + delayMs,
        leaseUntil: null,
        lockedBy: null,
        lastError: 'PROVIDER_UNAVAILABLE: down',
        finishedAt: null,
      });
      expect(repo.nextRunAt()).toBe(clock.now() + delayMs);
      expect(repo.claim('w1', 1, 1000)).toEqual([]);
      clock.advance(delayMs);
      expect(repo.claim('w1', 1, 1000)).toHaveLength(1);
      const dead = repo.fail(queued.id, 'w1', { error: 'PROVIDER_UNAVAILABLE: still down', delayMs });
      expect(dead).toMatchObject({ state: 'dead', attempts: 2, lastError: 'PROVIDER_UNAVAILABLE: still down', finishedAt: clock.now() });
      expect(repo.nextRunAt()).toBeNull();
    }));

  it('buries a job at once on a permanent failure', () =>
    withRepo(({ repo }) => {
      const { job: queued } = repo.enqueue(job({ maxAttempts: 10 }));
      repo.claim('w1', 1, 1000);
      expect(repo.fail(queued.id, 'w1', { error: 'PROVIDER_AUTH: bad key', delayMs: 1000, permanent: true })).toMatchObject({
        state: 'dead',
        attempts: 1,
      });
    }));

  it('retries a dead job by hand (not a done one), keeping last_error until the next run', () =>
    withRepo(({ repo, clock }) => {
      const { job: deadJob } = repo.enqueue(job({ maxAttempts: 1 }));
      const { job: doneJob } = repo.enqueue(job());
      const { job: pendingJob } = repo.enqueue(job({ runAt: clock.now() + 10_000 }));
      repo.claim('w1', 2, 1000);
      repo.fail(deadJob.id, 'w1', { error: 'E: broken', delayMs: 0 });
      repo.complete(doneJob.id, 'w1');
      clock.advance(5);

      expect(repo.retry(deadJob.id)).toMatchObject({
        state: 'pending',
        attempts: 0,
        runAt: clock.now(),
        lastError: 'E: broken',
        finishedAt: null,
      });
      // A done job is not run again: it could re-apply an old event after newer ones.
      expect(repo.retry(doneJob.id)).toBeNull();
      expect(repo.retry(pendingJob.id)).toBeNull();
      expect(repo.retry(9999)).toBeNull();

      const claimed = repo.claim('w1', 2, 1000);
      expect(ids(claimed)).toEqual([deadJob.id]);
      expect(repo.get(doneJob.id)?.state).toBe('done');
      expect(claimed[0]).toMatchObject({ attempts: 1, lastError: 'E: broken' });
      repo.complete(deadJob.id, 'w1');
      expect(repo.get(deadJob.id)?.lastError).toBeNull();
    }));

  it('retryAllDead requeues every dead job', () =>
    withRepo(({ repo }) => {
      const queued = repo.enqueueMany([job({ maxAttempts: 1 }), job({ maxAttempts: 1 }), job()]).map((r) => r.job);
      repo.claim('w1', 3, 1000);
      repo.fail(queued[0]!.id, 'w1', { error: 'E: x', delayMs: 0 });
      repo.fail(queued[1]!.id, 'w1', { error: 'E: y', delayMs: 0 });
      repo.complete(queued[2]!.id, 'w1');
      expect(repo.counts()).toEqual({ pending: 0, running: 0, done: 1, dead: 2 });
      expect(repo.retryAllDead()).toBe(2);
      expect(repo.counts()).toEqual({ pending: 2, running: 0, done: 1, dead: 0 });
      expect(repo.retryAllDead()).toBe(0);
    }));

  it('lists newest first, by state, with a limit, and counts every state', () =>
    withRepo(({ repo }) => {
      const queued = repo.enqueueMany([job(), job(), job(), job()]).map((r) => r.job);
      repo.claim('w1', 2, 1000);
      repo.complete(queued[0]!.id, 'w1');
      expect(ids(repo.list())).toEqual(ids(queued).reverse());
      expect(ids(repo.list({ limit: 2 }))).toEqual([queued[3]!.id, queued[2]!.id]);
      expect(ids(repo.list({ state: 'running' }))).toEqual([queued[1]!.id]);
      expect(ids(repo.list({ state: 'done' }))).toEqual([queued[0]!.id]);
      expect(repo.counts()).toEqual({ pending: 2, running: 1, done: 1, dead: 0 });
    }));

  it('nextRunAt is the earliest pending run_at', () =>
    withRepo(({ repo, clock }) => {
      expect(repo.nextRunAt()).toBeNull();
      repo.enqueue(job({ runAt: clock.now() + 500 }));
      repo.enqueue(job({ runAt: clock.now() + 200 }));
      expect(repo.nextRunAt()).toBe(clock.now() + 200);
    }));
});

describe('jobs repository: claim query plan', () => {
  it('claims through the indexes, without scanning done jobs', () =>
    withRepo(({ db, repo, clock }) => {
      const insert = db.prepare(
        `INSERT INTO jobs (kind, account, domain, payload, state, max_attempts, run_at, created_at, updated_at)
         VALUES ('test', ?, ?, '{}', ?, 3, ?, 0, 0)`,
      );
      db.transaction(() => {
        for (let i = 0; i < 100_000; i++) insert.run(`acct${i % 2000}`, i % 3 ? `d${i % 7}.example` : null, 'done', i);
        for (let i = 0; i < 5_000; i++)
          insert.run(`acct${i % 1000}`, i % 3 ? `d${i % 7}.example` : null, 'pending', clock.now() - 5000 + i);
      })();
      const plan = (
        db
          .prepare(`EXPLAIN QUERY PLAN UPDATE jobs SET state = 'running' WHERE id IN (${CLAIMABLE_IDS_SQL})`)
          .all({ now: clock.now(), limit: 10, backgroundLimit: 10 }) as { detail: string }[]
      ).map((row) => row.detail);
      expect(plan).toContain('SEARCH j USING INDEX jobs_due_by_priority (state=? AND background=? AND run_at<?)');
      expect(plan).toContain('SEARCH e USING INDEX jobs_open_by_account (account=? AND id<?)');
      expect(plan.some((detail) => detail.startsWith('SCAN'))).toBe(false);

      const started = performance.now();
      const claimed = repo.claim('w1', 10, 1000);
      expect(performance.now() - started).toBeLessThan(250);
      expect(claimed).toHaveLength(10);
    }));
});
