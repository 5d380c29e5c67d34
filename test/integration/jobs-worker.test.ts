import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { createJobsRepo, type Job, type JobsRepo, type NewJob } from '../../src/db/jobs.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { describeError } from '../../src/errors.js';
import { createWorker, type JobHandler } from '../../src/jobs/worker.js';
import { paths } from '../../src/paths.js';
import { ProviderError } from '../../src/provider/errors.js';
import { withTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

const WARN = 40;
const ERROR = 50;

/** Opens one more connection to the file, like another process would. */
function openRepo(file: string, now?: () => number): { db: Db; repo: JobsRepo } {
  const db = openDatabase(file);
  migrate(db, paths.migrations);
  return { db, repo: createJobsRepo(db, now) };
}

async function withQueue(fn: (context: { file: string; repo: JobsRepo; open: typeof openRepo }) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const file = join(dir, 'plugin.sqlite');
    const opened: Db[] = [];
    const open: typeof openRepo = (path, now) => {
      const connection = openRepo(path, now);
      opened.push(connection.db);
      return connection;
    };
    try {
      await fn({ file, repo: open(file).repo, open });
    } finally {
      for (const db of opened) db.close();
    }
  });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const job = (overrides: Partial<NewJob> = {}): NewJob => ({ kind: 'test', payload: {}, maxAttempts: 3, ...overrides });

const silent = pino({ level: 'silent' });

describe('worker: drain', () => {
  it('runs every due job once and reports what it did', () =>
    withQueue(async ({ repo }) => {
      const ran: number[] = [];
      const handler: JobHandler = async (j) => {
        ran.push(j.id);
      };
      const queued = repo.enqueueMany([
        ...Array.from({ length: 10 }, (_, i) => job({ kind: 'a', payload: { i } })),
        ...Array.from({ length: 10 }, (_, i) => job({ kind: 'b', account: 'alice', domain: `d${i % 3}.example` })),
        job({ kind: 'a', runAt: Date.now() + 60_000 }),
      ]);
      const worker = createWorker({ jobs: repo, handlers: { a: handler, b: handler }, logger: silent, concurrency: 4 });

      expect(await worker.drain()).toEqual({ done: 20, failed: 0, dead: 0 });
      expect([...ran].sort((x, y) => x - y)).toEqual(queued.slice(0, 20).map((r) => r.job.id));
      expect(repo.counts()).toEqual({ pending: 1, running: 0, done: 20, dead: 0 });
      expect(worker.stats()).toEqual({ inFlight: 0, done: 20, failed: 0, dead: 0 });
      expect(await worker.drain()).toEqual({ done: 0, failed: 0, dead: 0 });
    }));

  it('never runs more than `concurrency` jobs at once', () =>
    withQueue(async ({ repo }) => {
      let running = 0;
      let most = 0;
      repo.enqueueMany(Array.from({ length: 30 }, () => job()));
      const worker = createWorker({
        jobs: repo,
        handlers: {
          test: async () => {
            running++;
            most = Math.max(most, running);
            await new Promise((resolve) => setTimeout(resolve, 2));
            running--;
          },
        },
        logger: silent,
        concurrency: 3,
      });
      expect(await worker.drain()).toMatchObject({ done: 30 });
      expect(most).toBe(3);
    }));

  it('keeps running retries until the queue is empty with untilEmpty', () =>
    withQueue(async ({ repo }) => {
      let calls = 0;
      const { job: queued } = repo.enqueue(job({ maxAttempts: 5 }));
      const worker = createWorker({
        jobs: repo,
        handlers: {
          test: async () => {
            calls++;
            if (calls < 3) throw new Error('not yet');
          },
        },
        logger: silent,
        concurrency: 2,
        pollMs: 20,
        backoff: { baseMs: 5, maxMs: 10 },
      });
      expect(await worker.drain({ untilEmpty: true })).toEqual({ done: 1, failed: 2, dead: 0 });
      expect(repo.get(queued.id)).toMatchObject({ state: 'done', attempts: 3, lastError: null });
    }));
});

describe('worker: failures', () => {
  it('retries a throwing handler with backoff, honouring the provider Retry-After', () =>
    withQueue(async ({ file, open }) => {
      let time = 1_800_000_000_000;
      const now = () => time;
      const { repo } = open(file, now);
      const { logger, lines } = captureLogger();
      let calls = 0;
      const { job: queued } = repo.enqueue(job({ account: 'alice', domain: 'a.example', maxAttempts: 3 }));
      const worker = createWorker({
        jobs: repo,
        handlers: {
          test: async () => {
            calls++;
            if (calls === 1) {
              throw new ProviderError({
                code: 'PROVIDER_RATE_LIMITED',
                message: 'GET /v1.0/websites failed with HTTP 429',
                method: 'GET',
                path: '/v1.0/websites',
                attempts: 5,
                sent: true,
                status: 429,
                retryAfterMs: 30_000,
              });
            }
            if (calls === 2) throw new Error('socket hang up\n    at somewhere (file.js:1:1)');
          },
        },
        logger,
        concurrency: 1,
        backoff: { baseMs: 10, maxMs: 100 },
        now,
      });

      expect(await worker.drain()).toEqual({ done: 0, failed: 1, dead: 0 });
      const afterRateLimit = repo.get(queued.id)!;
      expect(afterRateLimit).toMatchObject({ state: 'pending', attempts: 1 });
      expect(afterRateLimit.runAt).toBe(time + 30_000);
      expect(afterRateLimit.lastError).toBe('PROVIDER_RATE_LIMITED: GET /v1.0/websites failed with HTTP 429');
      const warning = lines.find((line) => line.level === WARN);
      expect(warning).toMatchObject({ job: queued.id, kind: 'test', attempts: 1, delayMs: 30_000, error: afterRateLimit.lastError });

      time += 29_999;
      expect(await worker.drain()).toEqual({ done: 0, failed: 0, dead: 0 });
      time += 1;
      expect(await worker.drain()).toEqual({ done: 0, failed: 1, dead: 0 });
      const afterBackoff = repo.get(queued.id)!;
      // Attempt 2 without Retry-After: base 10 ms doubled, with jitter in the upper half.
      expect(afterBackoff.runAt - time).toBeGreaterThanOrEqual(10);
      expect(afterBackoff.runAt - time).toBeLessThanOrEqual(20);
      expect(afterBackoff.lastError).toBe('Error: socket hang up at somewhere (file.js:1:1)');

      time = afterBackoff.runAt;
      expect(await worker.drain()).toEqual({ done: 1, failed: 0, dead: 0 });
      expect(repo.get(queued.id)).toMatchObject({ state: 'done', attempts: 3 });
    }));

  it('buries a job after its last attempt, logging the death at error', () =>
    withQueue(async ({ repo }) => {
      const { logger, lines } = captureLogger();
      const { job: queued } = repo.enqueue(job({ maxAttempts: 2 }));
      const worker = createWorker({
        jobs: repo,
        handlers: { test: () => Promise.reject(Object.assign(new Error('still failing'), { code: 'E_FLAKY' })) },
        logger,
        concurrency: 1,
        pollMs: 10,
        backoff: { baseMs: 1, maxMs: 2 },
      });
      expect(await worker.drain({ untilEmpty: true })).toEqual({ done: 0, failed: 1, dead: 1 });
      expect(repo.get(queued.id)).toMatchObject({ state: 'dead', attempts: 2, lastError: 'E_FLAKY: still failing' });
      expect(lines.filter((line) => line.level === ERROR)).toMatchObject([
        { job: queued.id, kind: 'test', attempts: 2, error: 'E_FLAKY: still failing' },
      ]);
    }));

  it('buries a job at once when the error is permanent, and a job of an unknown kind', () =>
    withQueue(async ({ repo }) => {
      const { logger, lines } = captureLogger();
      const permanentJob = repo.enqueue(job({ maxAttempts: 10 })).job;
      const unknownJob = repo.enqueue(job({ kind: 'nobody-handles-this', maxAttempts: 10 })).job;
      const worker = createWorker({
        jobs: repo,
        handlers: {
          test: () =>
            Promise.reject(
              new ProviderError({
                code: 'PROVIDER_AUTH',
                message: 'bad key',
                method: 'GET',
                path: '/v1.0/users',
                attempts: 1,
                sent: true,
                status: 401,
              }),
            ),
        },
        logger,
        concurrency: 2,
        isPermanent: (error) => error instanceof ProviderError && error.code === 'PROVIDER_AUTH',
      });
      expect(await worker.drain()).toEqual({ done: 0, failed: 0, dead: 2 });
      expect(repo.get(permanentJob.id)).toMatchObject({ state: 'dead', attempts: 1, lastError: 'PROVIDER_AUTH: bad key' });
      expect(repo.get(unknownJob.id)).toMatchObject({
        state: 'dead',
        attempts: 1,
        lastError: 'UNKNOWN_JOB_KIND: no handler for job kind "nobody-handles-this"',
      });
      expect(lines.filter((line) => line.level === ERROR)).toHaveLength(2);
    }));

  it('describes errors in one line, reading only code and message', () => {
    expect(describeError(Object.assign(new Error('a\nb'), { code: 'X', secret: 'k3y' }))).toBe('X: a b');
    expect(describeError({ apiKey: 'k3y' })).toBe('Error (no message)');
    expect(describeError('plain')).toBe('plain');
    expect(describeError(42)).toBe('non-error value thrown: 42');
    expect(describeError(new Error('x'.repeat(5000))).length).toBe(1000);
  });
});

describe('worker: loop', () => {
  it('wake() makes a started worker look at once; stop() waits for jobs in flight', () =>
    withQueue(async ({ repo }) => {
      const gate = deferred();
      const started: number[] = [];
      const worker = createWorker({
        jobs: repo,
        handlers: {
          test: async (j) => {
            started.push(j.id);
            await gate.promise;
          },
        },
        logger: silent,
        concurrency: 2,
        pollMs: 60_000,
      });
      worker.start();
      try {
        const { job: queued } = repo.enqueue(job());
        worker.wake();
        await waitFor(() => started.length === 1, 10_000, 'the job to start');
        expect(worker.stats().inFlight).toBe(1);

        let stopped = false;
        const stopping = worker.stop().then(() => {
          stopped = true;
        });
        await new Promise((resolve) => setImmediate(resolve));
        expect(stopped).toBe(false);
        repo.enqueue(job());
        gate.resolve();
        await stopping;
        expect(repo.get(queued.id)?.state).toBe('done');
        // Stopped workers claim nothing more.
        expect(repo.counts()).toEqual({ pending: 1, running: 0, done: 1, dead: 0 });
      } finally {
        gate.resolve();
        await worker.stop();
      }
    }));

  it("keeps its last slot for the panel's own jobs while background ones (an import's) wait on the provider", () =>
    withQueue(async ({ repo }) => {
      const gate = deferred();
      const started: { id: number; background: boolean }[] = [];
      const worker = createWorker({
        jobs: repo,
        handlers: {
          test: async (j) => {
            started.push({ id: j.id, background: j.background });
            // Background jobs hang (their calls wait for tokens); the panel's own finish.
            if (j.background) await gate.promise;
          },
        },
        logger: silent,
        concurrency: 3,
        pollMs: 60_000,
      });
      repo.enqueueMany(Array.from({ length: 10 }, (_, i) => job({ account: `imp${i}`, background: true })));
      worker.start();
      try {
        await waitFor(() => started.length >= 2, 10_000, 'background jobs to start');
        await new Promise((resolve) => setTimeout(resolve, 50));
        // Two of three slots: the third stays free for the panel's own.
        expect(started.every((s) => s.background)).toBe(true);
        expect(worker.stats().inFlight).toBe(2);
        const { job: own } = repo.enqueue(job({ account: 'newcomer' }));
        worker.wake();
        await waitFor(() => repo.get(own.id)?.state === 'done', 10_000, "the panel's own job to run");
        expect(started.filter((s) => s.background)).toHaveLength(2);
      } finally {
        gate.resolve();
        await worker.stop();
      }
    }));

  it('releases a job the close stopped: pending again, attempt given back, not counted as failed', () =>
    withQueue(async ({ repo }) => {
      const closing = new AbortController();
      const { lines, logger } = captureLogger();
      const worker = createWorker({
        jobs: repo,
        handlers: {
          // A provider call waiting for its token rejects with the close's reason.
          test: () =>
            new Promise<void>((_resolve, reject) => closing.signal.addEventListener('abort', () => reject(closing.signal.reason))),
        },
        logger,
        concurrency: 1,
        stopSignal: closing.signal,
      });
      const { job: queued } = repo.enqueue(job({ maxAttempts: 1 }));
      worker.start();
      await waitFor(() => repo.get(queued.id)?.state === 'running', 10_000, 'the job to start');
      closing.abort(new Error('closing'));
      await worker.stop();
      // On its only attempt, yet not dead: the close is no failure of the job.
      expect(repo.get(queued.id)).toMatchObject({ state: 'pending', attempts: 0, lastError: null });
      expect(worker.stats()).toMatchObject({ failed: 0, dead: 0 });
      expect(lines.some((line) => line.msg === 'job stopped by the close; pending again for the next start')).toBe(true);
    }));

  it('drains while the loop runs too, sharing its concurrency', () =>
    withQueue(async ({ repo }) => {
      let running = 0;
      let most = 0;
      const worker = createWorker({
        jobs: repo,
        handlers: {
          test: async () => {
            running++;
            most = Math.max(most, running);
            await new Promise((resolve) => setTimeout(resolve, 2));
            running--;
          },
        },
        logger: silent,
        concurrency: 2,
        pollMs: 60_000,
      });
      worker.start();
      try {
        repo.enqueueMany(Array.from({ length: 10 }, () => job()));
        await worker.drain();
        expect(repo.counts()).toEqual({ pending: 0, running: 0, done: 10, dead: 0 });
        expect(most).toBe(2);
      } finally {
        await worker.stop();
      }
    }));

  it('renews the lease of a long job so another worker does not take it over', () =>
    withQueue(async ({ file, repo, open }) => {
      const gate = deferred();
      let runs = 0;
      const handlers = {
        test: async () => {
          runs++;
          await gate.promise;
        },
      };
      const { job: queued } = repo.enqueue(job());
      const first = createWorker({ jobs: repo, handlers, logger: silent, concurrency: 1, leaseMs: 30, pollMs: 5, workerId: 'first' });
      const second = createWorker({
        jobs: open(file).repo,
        handlers,
        logger: silent,
        concurrency: 1,
        leaseMs: 30,
        pollMs: 5,
        workerId: 'second',
      });
      first.start();
      try {
        await waitFor(() => runs === 1, 10_000, 'the first worker to start the job');
        second.start();
        const since = Date.now();
        // Several lease lengths pass while the second worker keeps polling.
        await waitFor(() => Date.now() - since > 200, 10_000, 'several lease lengths');
        expect(runs).toBe(1);
        expect(repo.get(queued.id)).toMatchObject({ lockedBy: 'first', attempts: 1 });
        gate.resolve();
        await waitFor(() => repo.get(queued.id)?.state === 'done', 10_000, 'the job to finish');
        expect(first.stats().done).toBe(1);
      } finally {
        gate.resolve();
        await Promise.all([first.stop(), second.stop()]);
      }
    }));

  it('two workers on two connections to one file run each of 500 jobs exactly once', () =>
    withQueue(async ({ file, repo, open }) => {
      const runs = new Map<number, string[]>();
      const handlerFor =
        (name: string): JobHandler =>
        async (j: Job) => {
          runs.set(j.id, [...(runs.get(j.id) ?? []), name]);
          await new Promise((resolve) => setImmediate(resolve));
        };
      const queued = repo.enqueueMany(
        Array.from({ length: 500 }, (_, i) =>
          job({ account: i % 5 === 0 ? null : `acct${i % 17}`, domain: i % 3 === 0 ? null : `d${i % 4}.example` }),
        ),
      );
      const workers = ['one', 'two'].map((name) =>
        createWorker({
          jobs: open(file).repo,
          handlers: { test: handlerFor(name) },
          logger: silent,
          concurrency: 4,
          pollMs: 5,
          workerId: name,
        }),
      );
      for (const worker of workers) worker.start();
      try {
        await waitFor(() => repo.counts().done === 500, 15_000, 'all 500 jobs to be done');
      } finally {
        await Promise.all(workers.map((worker) => worker.stop()));
      }
      expect(runs.size).toBe(500);
      for (const { job: j } of queued) expect(runs.get(j.id)).toHaveLength(1);
      const ranBy = [...runs.values()].flat();
      expect(ranBy.filter((name) => name === 'one').length).toBeGreaterThan(0);
      expect(ranBy.filter((name) => name === 'two').length).toBeGreaterThan(0);
      expect(workers.reduce((sum, worker) => sum + worker.stats().done, 0)).toBe(500);
    }));

  it('runs a job whose worker crashed once its lease has expired', () =>
    withQueue(async ({ file, repo, open }) => {
      const { job: queued } = repo.enqueue(job({ account: 'alice' }));
      const { job: later } = repo.enqueue(job({ account: 'alice', domain: 'a.example' }));
      // The crashed worker claimed the job and vanished: no complete, no fail, no renewal.
      expect(repo.claim('crashed', 10, 60_000).map((j) => j.id)).toEqual([queued.id]);

      const ran: number[] = [];
      const handlers = {
        test: async (j: Job) => {
          ran.push(j.id);
        },
      };
      const survivor = createWorker({ jobs: open(file).repo, handlers, logger: silent, concurrency: 2, workerId: 'survivor' });
      expect(await survivor.drain()).toEqual({ done: 0, failed: 0, dead: 0 });

      const afterLease = () => Date.now() + 60_001;
      const later_ = createWorker({ jobs: open(file, afterLease).repo, handlers, logger: silent, concurrency: 2, workerId: 'survivor' });
      expect(await later_.drain()).toEqual({ done: 2, failed: 0, dead: 0 });
      expect(ran).toEqual([queued.id, later.id]);
      expect(repo.get(queued.id)).toMatchObject({ state: 'done', attempts: 2 });
      expect(repo.complete(queued.id, 'crashed')).toBe(false);
    }));

  it(
    'two processes on one file run each of 500 jobs exactly once',
    () =>
      withQueue(async ({ file, repo }) => {
        // A test-only table, so both processes' runs can be counted afterwards.
        repo.enqueueMany(Array.from({ length: 500 }, (_, i) => job({ account: i % 4 === 0 ? `acct${i % 9}` : null })));
        const db = openDatabase(file);
        try {
          db.exec('CREATE TABLE test_runs (job_id INTEGER NOT NULL, worker TEXT NOT NULL)');
        } finally {
          db.close();
        }
        const source = (path: string) => JSON.stringify(pathToFileURL(join(paths.root, path)).href);
        const script = join(file, '..', 'child-worker.mts');
        writeFileSync(
          script,
          `import { createRequire } from 'node:module';
import { createJobsRepo } from ${source('src/db/jobs.repo.ts')};
import { openDatabase } from ${source('src/db/open.ts')};
import { createWorker } from ${source('src/jobs/worker.ts')};
// This script lives in a temp folder: take pino from the project's node_modules.
const { pino } = createRequire(${source('package.json')})('pino');
const [file, name] = process.argv.slice(2);
const db = openDatabase(file);
const record = db.prepare('INSERT INTO test_runs (job_id, worker) VALUES (?, ?)');
const worker = createWorker({
  jobs: createJobsRepo(db),
  handlers: { test: async (job) => { record.run(job.id, name); await new Promise((r) => setTimeout(r, 2)); } },
  logger: pino({ level: 'silent' }),
  concurrency: 4,
  pollMs: 5,
  workerId: name,
});
// Start together with the other process, so that both really compete for the same rows.
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
const result = await worker.drain({ untilEmpty: true });
db.close();
process.stdout.write(JSON.stringify(result));
`,
        );
        const startChild = (name: string) => {
          const child = spawn(process.execPath, ['--import', 'tsx', script, file, name], { cwd: paths.root });
          let out = '';
          let err = '';
          let onReady: () => void = () => {};
          const ready = new Promise<void>((resolve) => (onReady = resolve));
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            if (out.startsWith('ready\n')) onReady();
          });
          child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
          const finished = new Promise<{ done: number }>((resolve, reject) => {
            child.on('error', reject);
            child.on('exit', (code) => {
              if (code === 0) resolve(JSON.parse(out.slice('ready\n'.length)) as { done: number });
              else reject(new Error(`${name} exited ${code}: ${err}`));
            });
          });
          // A child that dies before it is ready must fail the test, not hang it.
          void finished.catch(() => onReady());
          return { child, ready, finished };
        };
        const children = [startChild('p1'), startChild('p2')];
        await Promise.all(children.map((c) => c.ready));
        for (const { child } of children) child.stdin.end('go\n');
        const results = await Promise.all(children.map((c) => c.finished));

        const check = openDatabase(file);
        try {
          const perJob = check.prepare('SELECT job_id, COUNT(*) AS n FROM test_runs GROUP BY job_id').all() as {
            job_id: number;
            n: number;
          }[];
          expect(perJob).toHaveLength(500);
          expect(perJob.filter((row) => row.n !== 1)).toEqual([]);
          const perWorker = check.prepare('SELECT worker, COUNT(*) AS n FROM test_runs GROUP BY worker ORDER BY worker').all();
          expect(results[0]!.done + results[1]!.done).toBe(500);
          expect(results[0]!.done).toBeGreaterThan(0);
          expect(results[1]!.done).toBeGreaterThan(0);
          expect(perWorker).toEqual([
            { worker: 'p1', n: results[0]!.done },
            { worker: 'p2', n: results[1]!.done },
          ]);
        } finally {
          check.close();
        }
        expect(repo.counts()).toEqual({ pending: 0, running: 0, done: 500, dead: 0 });
      }),
    30_000,
  );
});
