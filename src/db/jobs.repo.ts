/**
 * The durable job queue (table `jobs`, migrations/001_provisioning.sql).
 *
 * Several processes may share the file (`wpp serve` and `wpp worker`), so every write that
 * reads first runs in a BEGIN IMMEDIATE transaction: the write lock is taken before the read,
 * and two claimers can never pick the same row.
 */
import type Database from 'better-sqlite3';
import { z } from 'zod';
import type { Db } from './open.js';

export type JobState = 'pending' | 'running' | 'done' | 'dead';
export const JOB_STATES: readonly JobState[] = ['pending', 'running', 'done', 'dead'];

export interface Job {
  id: number;
  kind: string;
  dedupeKey: string | null;
  account: string | null;
  domain: string | null;
  payload: unknown;
  state: JobState;
  attempts: number;
  maxAttempts: number;
  runAt: number;
  leaseUntil: number | null;
  lockedBy: string | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  /** Background work (an import's events, bulk protect's): claimed after the panel's own due jobs (migration 030). */
  background: boolean;
}

export interface NewJob {
  kind: string;
  /** Enqueueing the same key again yields the existing job, whatever its state. */
  dedupeKey?: string | null;
  /**
   * At most one pending job holds this key: enqueueing another while one waits to run yields
   * the waiting one (created false). For work that reads the current state, where a second
   * copy would only repeat the first; once the job runs, the key is free again.
   */
  pendingKey?: string | null;
  /** Jobs of one account run in id order (see `claim`); null: no ordering. */
  account?: string | null;
  /** With `account`: jobs of different domains of one account may run side by side. */
  domain?: string | null;
  /** Stored as JSON; must serialise (undefined, functions and BigInt are refused). */
  payload: unknown;
  maxAttempts: number;
  /** Epoch ms; default now. */
  runAt?: number;
  /** Background work: every due job that is not waits first, and its provider calls take background tokens. Default false. */
  background?: boolean;
}

export interface JobFailure {
  /** One line, already free of secrets; stored as `last_error`. */
  error: string;
  /** When to run again, from now. Ignored when the job goes dead. */
  delayMs: number;
  /** Retrying cannot help: the job goes dead at once. */
  permanent?: boolean;
}

export interface JobListFilter {
  state?: JobState;
  /** Default 100. */
  limit?: number;
}

const DEFAULT_LIST_LIMIT = 100;

const newJobSchema = z.object({
  kind: z.string().min(1),
  dedupeKey: z.string().min(1).nullish(),
  pendingKey: z.string().min(1).nullish(),
  account: z.string().min(1).nullish(),
  domain: z.string().min(1).nullish(),
  payload: z.unknown(),
  maxAttempts: z.number().int().min(1),
  runAt: z.number().int().nonnegative().optional(),
  background: z.boolean().optional(),
});

export class InvalidJobError extends Error {
  override readonly name = 'InvalidJobError';
  readonly code = 'JOB_INVALID';
}

interface JobRow {
  id: number;
  kind: string;
  dedupe_key: string | null;
  account: string | null;
  domain: string | null;
  payload: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: number;
  lease_until: number | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  background: number;
}

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    dedupeKey: row.dedupe_key,
    account: row.account,
    domain: row.domain,
    payload: JSON.parse(row.payload) as unknown,
    state: row.state,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    runAt: row.run_at,
    leaseUntil: row.lease_until,
    lockedBy: row.locked_by,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    background: row.background === 1,
  };
}

function serialisePayload(payload: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new InvalidJobError(`job payload cannot be stored as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (json === undefined) throw new InvalidJobError('job payload cannot be stored as JSON: it is undefined or a function');
  return json;
}

function parseNewJob(job: NewJob): z.infer<typeof newJobSchema> {
  const parsed = newJobSchema.safeParse(job);
  if (!parsed.success) {
    const summary = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'job'}: ${issue.message}`).join('; ');
    throw new InvalidJobError(`invalid job: ${summary}`);
  }
  return parsed.data;
}

/**
 * No earlier open job of the same account conflicts with job `j` (see CLAIMABLE_IDS_SQL). A
 * job queued to run later (never attempted, not yet due: a re-read held back for its window)
 * holds nothing back: it was queued for later, not to keep its place.
 */
const NO_EARLIER_CONFLICT_SQL = `(j.account IS NULL OR NOT EXISTS (
      SELECT 1 FROM jobs e
      WHERE e.account = j.account AND e.id < j.id AND e.state IN ('pending', 'running')
        AND (e.domain IS NULL OR j.domain IS NULL OR e.domain = j.domain)
        AND NOT (e.state = 'pending' AND e.attempts = 0 AND e.run_at > @now)))`;

/**
 * A job is claimable when it is due (pending, run_at passed) or its lease expired (running,
 * its worker stopped or crashed), and no earlier open job of the same account conflicts with
 * it: an account-level job (domain NULL) on either side is a barrier, otherwise only the same
 * domain is. Dead and done jobs are not open, so a dead job never blocks its account.
 *
 * The `e.state IN (...)` term is written exactly as the partial index jobs_open_by_account's
 * WHERE clause, which is what lets SQLite use that index for the NOT EXISTS probe.
 *
 * The kinds of claimable job are looked up separately, each in (run_at, id) order straight
 * from an index (jobs_due_by_priority for due jobs, the panel's own apart from background
 * ones; jobs_due for expired leases) and stopping after `limit` claimable ones; the first
 * `limit` of them together, background last (migration 030), are the result: a new domain
 * from the panel's hook is claimed before an import's thousands of queued events. Written as one WHERE with an OR, SQLite had to
 * run the NOT EXISTS probe for every due job and sort them all before the LIMIT: with
 * thousands of jobs queued per account (a panel's bulk import), each claim took tens of
 * milliseconds and claims were most of the worker's time.
 */
export const CLAIMABLE_IDS_SQL = `
  SELECT c.id FROM jobs c
  WHERE c.id IN (
      SELECT j.id FROM jobs j
      WHERE j.state = 'pending' AND j.background = 0 AND j.run_at <= @now AND ${NO_EARLIER_CONFLICT_SQL}
      ORDER BY j.run_at, j.id
      LIMIT @limit)
    OR c.id IN (
      SELECT j.id FROM jobs j
      WHERE j.state = 'pending' AND j.background = 1 AND j.run_at <= @now AND ${NO_EARLIER_CONFLICT_SQL}
      ORDER BY j.run_at, j.id
      LIMIT @backgroundLimit)
    OR c.id IN (
      SELECT j.id FROM jobs j
      WHERE j.state = 'running' AND j.lease_until < @now AND ${NO_EARLIER_CONFLICT_SQL}
      ORDER BY j.run_at, j.id
      LIMIT @limit)
  ORDER BY c.background, c.run_at, c.id
  LIMIT @limit`;

/** Adding jobs: a new row, or the job already waiting under the same key. */
function prepareEnqueueStatements(db: Db) {
  const insertStatement = db.prepare(`
    INSERT INTO jobs (kind, dedupe_key, pending_key, account, domain, payload, max_attempts, run_at, created_at, updated_at, background)
    VALUES (@kind, @dedupeKey, @pendingKey, @account, @domain, @payload, @maxAttempts, @runAt, @now, @now, @background)
    ON CONFLICT (dedupe_key) DO NOTHING
    RETURNING *`);
  const byDedupeKey = db.prepare('SELECT * FROM jobs WHERE dedupe_key = ?');
  const laterOfAccount = db.prepare(`
    SELECT id, dedupe_key FROM jobs WHERE kind = @kind AND account = @account AND id > @afterId ORDER BY id DESC LIMIT @limit
  `);
  const latestOfDomain = db.prepare<[string, string], { run_at: number }>(
    'SELECT run_at FROM jobs WHERE domain = ? AND kind = ? ORDER BY id DESC LIMIT 1',
  );
  const bringForward = db.prepare("UPDATE jobs SET run_at = ?, updated_at = ? WHERE id = ? AND state = 'pending'");
  const pendingByKey = db.prepare("SELECT * FROM jobs WHERE pending_key = ? AND state = 'pending' AND pending_key IS NOT NULL LIMIT 1");
  const byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
  return { insertStatement, byDedupeKey, laterOfAccount, latestOfDomain, bringForward, pendingByKey, byId };
}

/** A job's life: claimed under a lease, then done, failed, retried or buried. */
function prepareLifecycleStatements(db: Db) {
  // A job whose lease expired on its last allowed attempt keeps crashing or stalling its
  // worker; running it again forever would be worse than giving up on it.
  const buryExhaustedStatement = db.prepare(`
    UPDATE jobs SET state = 'dead', lease_until = NULL, finished_at = @now, updated_at = @now,
      last_error = 'LEASE_EXPIRED: the worker ' || coalesce(locked_by, '?') || ' stopped or crashed on the last allowed attempt'
    WHERE state = 'running' AND lease_until < @now AND attempts >= max_attempts`);
  const claimStatement = db.prepare(`
    UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_until = @leaseUntil,
      locked_by = @workerId, updated_at = @now
    WHERE id IN (${CLAIMABLE_IDS_SQL})
    RETURNING *`);
  const completeStatement = db.prepare(`
    UPDATE jobs SET state = 'done', lease_until = NULL, last_error = NULL, finished_at = @now, updated_at = @now
    WHERE id = @id AND state = 'running' AND locked_by = @workerId`);
  const settleStatement = db.prepare(`
    UPDATE jobs SET state = 'done', lease_until = NULL, locked_by = NULL, last_error = NULL, finished_at = @now, updated_at = @now
    WHERE id = @id AND state IN ('pending', 'dead')`);
  const failStatement = db.prepare(`
    UPDATE jobs SET
      state = CASE WHEN @permanent OR attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
      run_at = CASE WHEN @permanent OR attempts >= max_attempts THEN run_at ELSE @runAt END,
      finished_at = CASE WHEN @permanent OR attempts >= max_attempts THEN @now ELSE NULL END,
      lease_until = NULL, locked_by = NULL, last_error = @error, updated_at = @now
    WHERE id = @id AND state = 'running' AND locked_by = @workerId
    RETURNING *`);
  const extendStatement = db.prepare(`
    UPDATE jobs SET lease_until = @leaseUntil, updated_at = @now
    WHERE id = @id AND state = 'running' AND locked_by = @workerId`);
  // A run the process's close stopped: pending again at once, its attempt not spent (it failed nothing).
  const releaseStatement = db.prepare(`
    UPDATE jobs SET state = 'pending', attempts = max(attempts - 1, 0), run_at = @now, lease_until = NULL, locked_by = NULL,
      updated_at = @now
    WHERE id = @id AND state = 'running' AND locked_by = @workerId`);
  const retryStatement = db.prepare(`
    UPDATE jobs SET state = 'pending', attempts = 0, run_at = @now, lease_until = NULL, locked_by = NULL,
      finished_at = NULL, updated_at = @now, background = max(background, @background)
    WHERE id = @id AND state = 'dead'
    RETURNING *`);
  const retryAllDeadStatement = db.prepare(`
    UPDATE jobs SET state = 'pending', attempts = 0, run_at = @now, lease_until = NULL, locked_by = NULL,
      finished_at = NULL, updated_at = @now
    WHERE state = 'dead'`);
  return {
    buryExhaustedStatement,
    claimStatement,
    completeStatement,
    settleStatement,
    failStatement,
    extendStatement,
    retryStatement,
    retryAllDeadStatement,
    releaseStatement,
  };
}

/** What the admin pages and the worker's sleep read: lists, counts, the next due time. */
function prepareListingStatements(db: Db) {
  const listAll = db.prepare('SELECT * FROM jobs ORDER BY id DESC LIMIT ?');
  const listByState = db.prepare('SELECT * FROM jobs WHERE state = ? ORDER BY id DESC LIMIT ?');
  const countStatement = db.prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state');
  const nextRunAtStatement = db.prepare("SELECT MIN(run_at) AS runAt FROM jobs WHERE state = 'pending'");
  return { listAll, listByState, countStatement, nextRunAtStatement };
}

// Prepared once per repository, grouped by what they serve; the factory below reads as the queue's operations.
function prepareJobStatements(db: Db) {
  return { ...prepareEnqueueStatements(db), ...prepareLifecycleStatements(db), ...prepareListingStatements(db) };
}

export function createJobsRepo(db: Db, now: () => number = Date.now) {
  const s = prepareJobStatements(db);

  // job_counts is kept by triggers (migration 009): a few rows, however many jobs there are. Prepared
  // at first use: the repository also works on a database migrated only part of the way (upgrade tests).
  let countByKindStatement: Database.Statement<[], { state: JobState; kind: string; n: number }> | undefined;

  function insertOne(input: NewJob, at: number): { job: Job; created: boolean } {
    const job = parseNewJob(input);
    if (job.pendingKey) {
      const waiting = s.pendingByKey.get(job.pendingKey) as JobRow | undefined;
      if (waiting) {
        // Joining a waiting job never makes it later: asked for sooner, it runs sooner.
        const runAt = job.runAt ?? at;
        if (runAt < waiting.run_at) {
          s.bringForward.run(runAt, at, waiting.id);
          return { job: toJob({ ...waiting, run_at: runAt, updated_at: at }), created: false };
        }
        return { job: toJob(waiting), created: false };
      }
    }
    const row = s.insertStatement.get({
      kind: job.kind,
      dedupeKey: job.dedupeKey ?? null,
      pendingKey: job.pendingKey ?? null,
      account: job.account ?? null,
      domain: job.domain ?? null,
      payload: serialisePayload(job.payload),
      maxAttempts: job.maxAttempts,
      runAt: job.runAt ?? at,
      now: at,
      background: job.background === true ? 1 : 0,
    }) as JobRow | undefined;
    if (row) return { job: toJob(row), created: true };
    // Only a dedupe_key conflict makes the insert do nothing.
    const existing = s.byDedupeKey.get(job.dedupeKey) as JobRow;
    return { job: toJob(existing), created: false };
  }

  const enqueueTransaction = db.transaction((jobs: NewJob[]) => {
    const at = now();
    return jobs.map((job) => insertOne(job, at));
  });

  const claimTransaction = db.transaction((workerId: string, limit: number, leaseMs: number, backgroundLimit: number) => {
    const at = now();
    s.buryExhaustedStatement.run({ now: at });
    const rows = s.claimStatement.all({ now: at, limit, backgroundLimit, workerId, leaseUntil: at + leaseMs }) as JobRow[];
    return rows.map(toJob).sort((a, b) => Number(a.background) - Number(b.background) || a.runAt - b.runAt || a.id - b.id);
  });

  return {
    /** Adds a job in one transaction; the same dedupeKey again gives the existing job, created false. */
    enqueue(job: NewJob): { job: Job; created: boolean } {
      const [result] = enqueueTransaction.immediate([job]);
      return result as { job: Job; created: boolean };
    },

    /** Adds all jobs in ONE transaction: a bad one (InvalidJobError, constraint) rolls all back. */
    enqueueMany(jobs: NewJob[]): { job: Job; created: boolean }[] {
      if (jobs.length === 0) return [];
      return enqueueTransaction.immediate(jobs);
    },

    /**
     * Atomically takes up to `limit` claimable jobs, background ones last, each oldest first (run_at, id): marks them
     * running, attempts + 1, leased to `workerId` for `leaseMs`. Expired leases on a job's
     * last allowed attempt make it dead instead (LEASE_EXPIRED in last_error). At most
     * `backgroundLimit` (default `limit`) of them due background jobs: the worker keeps room for the panel's own.
     */
    claim(workerId: string, limit: number, leaseMs: number, backgroundLimit = limit): Job[] {
      if (!Number.isInteger(limit) || limit <= 0) return [];
      return claimTransaction.immediate(workerId, limit, leaseMs, Math.max(0, Math.min(limit, Math.floor(backgroundLimit))));
    },

    /** Marks the job done, only while `workerId` still holds it (a reclaimed job's old worker loses). */
    complete(id: number, workerId: string): boolean {
      return s.completeStatement.run({ id, workerId, now: now() }).changes === 1;
    },

    /**
     * Marks done a job no worker holds (pending or dead) whose work another process did: the
     * root timer that may run the panel's tools does what the serve's worker may not. False
     * when a worker holds it now or it is done already.
     */
    settle(id: number): boolean {
      return s.settleStatement.run({ id, now: now() }).changes === 1;
    },

    /**
     * Records a failed run while `workerId` still holds the job: pending again at now + delayMs,
     * or dead when permanent or out of attempts. Null when the worker lost the job.
     */
    fail(id: number, workerId: string, failure: JobFailure): Job | null {
      const at = now();
      const row = s.failStatement.get({
        id,
        workerId,
        now: at,
        runAt: at + Math.max(0, Math.round(failure.delayMs)),
        permanent: failure.permanent === true ? 1 : 0,
        error: failure.error,
      }) as JobRow | undefined;
      return row ? toJob(row) : null;
    },

    extendLease(id: number, workerId: string, leaseMs: number): boolean {
      const at = now();
      return s.extendStatement.run({ id, workerId, now: at, leaseUntil: at + leaseMs }).changes === 1;
    },

    /** A run the process's close stopped: pending again now, its attempt given back. False when the lease was lost. */
    release(id: number, workerId: string): boolean {
      return s.releaseStatement.run({ id, workerId, now: now() }).changes === 1;
    },

    /**
     * Manual retry of a dead job: pending now with attempts 0; last_error stays until the next
     * run replaces or clears it. Null when the job does not exist or is not dead (a done job is
     * not run again: it could re-apply an old event after newer ones).
     */
    retry(id: number, options: { background?: boolean } = {}): Job | null {
      const row = s.retryStatement.get({ id, now: now(), background: options.background === true ? 1 : 0 }) as JobRow | undefined;
      return row ? toJob(row) : null;
    },

    retryAllDead(): number {
      return s.retryAllDeadStatement.run({ now: now() }).changes;
    },

    get(id: number): Job | null {
      const row = s.byId.get(id) as JobRow | undefined;
      return row ? toJob(row) : null;
    },

    /** The job stored under `dedupeKey`; null when there is none. */
    findByDedupeKey(dedupeKey: string): Job | null {
      const row = s.byDedupeKey.get(dedupeKey) as JobRow | undefined;
      return row ? toJob(row) : null;
    },

    /** The jobs of `kind` for `account` queued after job `afterId`, newest first, at most `limit`: their ids and dedupe keys. */
    laterOfAccount(kind: string, account: string, afterId: number, limit = 100): { id: number; dedupeKey: string | null }[] {
      const rows = s.laterOfAccount.all({ kind, account, afterId, limit }) as { id: number; dedupe_key: string | null }[];
      return rows.map((row) => ({ id: row.id, dedupeKey: row.dedupe_key }));
    },

    /** When the newest job of `kind` for `domain` was (or is) to run; null when there was none. */
    latestRunAt(kind: string, domain: string): number | null {
      return s.latestOfDomain.get(domain, kind)?.run_at ?? null;
    },

    /** Newest first. */
    list(filter: JobListFilter = {}): Job[] {
      const limit = filter.limit ?? DEFAULT_LIST_LIMIT;
      const rows = (filter.state ? s.listByState.all(filter.state, limit) : s.listAll.all(limit)) as JobRow[];
      return rows.map(toJob);
    },

    counts(): Record<JobState, number> {
      const counts: Record<JobState, number> = { pending: 0, running: 0, done: 0, dead: 0 };
      for (const row of s.countStatement.all() as { state: JobState; n: number }[]) counts[row.state] = row.n;
      return counts;
    },

    /** Jobs of each kind in each state (the metrics); a pair that once had jobs stays, at 0. */
    countsByKind(): { state: JobState; kind: string; count: number }[] {
      countByKindStatement ??= db.prepare<[], { state: JobState; kind: string; n: number }>(
        'SELECT state, kind, n FROM job_counts ORDER BY state, kind',
      );
      return countByKindStatement.all().map((row) => ({
        state: row.state,
        kind: row.kind,
        count: row.n,
      }));
    },

    /** The earliest run_at of a pending job (it may be in the past when ordering blocks it). */
    nextRunAt(): number | null {
      return (s.nextRunAtStatement.get() as { runAt: number | null }).runAt;
    },
  };
}

export type JobsRepo = ReturnType<typeof createJobsRepo>;
