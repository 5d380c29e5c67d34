import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

/** A repo on a fresh migrated database, on a clock the test moves. */
function setup(dir: string) {
  const db = openDatabase(join(dir, 'db.sqlite'));
  migrate(db, paths.migrations);
  let now = 1_000_000;
  return { db, repo: createStatisticsRepo(db, () => now), advance: (ms: number) => void (now += ms), now: () => now };
}

/** The pid of a process that has exited (and been reaped). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid as number;

describe('locks', () => {
  it('one holder at a time; the other is told who holds it, since when and until when', () =>
    withTempDir((dir) => {
      const { db, repo, now } = setup(dir);
      try {
        const first = repo.takeLock('job', 60_000);
        expect(first).toMatchObject({ taken: true, tookOverFrom: null });
        const second = repo.takeLock('job', 60_000);
        expect(second).toEqual({ taken: false, holder: { host: hostname(), pid: process.pid, since: now(), expiresAt: now() + 60_000 } });
        if (first.taken) first.lock.release();
        expect(repo.takeLock('job', 60_000).taken).toBe(true);
        // Another name is another lock.
        expect(repo.takeLock('other', 60_000).taken).toBe(true);
      } finally {
        db.close();
      }
    }));

  it('is taken over at once from a holder on this host whose process is gone', () =>
    withTempDir((dir) => {
      const { db, repo } = setup(dir);
      try {
        expect(repo.takeLock('job', 60_000).taken).toBe(true);
        const pid = deadPid();
        db.prepare('UPDATE locks SET pid = ?').run(pid);
        expect(repo.takeLock('job', 60_000)).toMatchObject({ taken: true, tookOverFrom: { host: hostname(), pid } });
      } finally {
        db.close();
      }
    }));

  it('from a holder on another host (its process cannot be checked), only once it expired', () =>
    withTempDir((dir) => {
      const { db, repo, advance } = setup(dir);
      try {
        expect(repo.takeLock('job', 60_000).taken).toBe(true);
        db.prepare("UPDATE locks SET host = 'elsewhere', pid = ?").run(deadPid());
        expect(repo.takeLock('job', 60_000)).toMatchObject({ taken: false, holder: { host: 'elsewhere' } });
        advance(60_001);
        expect(repo.takeLock('job', 60_000)).toMatchObject({ taken: true, tookOverFrom: { host: 'elsewhere' } });
      } finally {
        db.close();
      }
    }));

  it('renewing keeps it; a holder that lost it learns so and cannot release the new holder', () =>
    withTempDir((dir) => {
      const { db, repo, advance } = setup(dir);
      try {
        const first = repo.takeLock('job', 60_000);
        if (!first.taken) throw new Error('not taken');
        advance(50_000);
        expect(first.lock.renew()).toBe(true);
        advance(50_000);
        expect(repo.takeLock('job', 60_000).taken).toBe(false);
        advance(10_001);
        const second = repo.takeLock('job', 60_000);
        expect(second.taken).toBe(true);
        expect(first.lock.renew()).toBe(false);
        first.lock.release();
        expect(repo.takeLock('job', 60_000).taken).toBe(false);
      } finally {
        db.close();
      }
    }));
});

describe('crashed runs', () => {
  it('earlier `running` runs of a job become crashed, others untouched', () =>
    withTempDir((dir) => {
      const { db, repo, now } = setup(dir);
      try {
        const killed = repo.startRun('sync-stats', 1);
        const other = repo.startRun('enforce', 1);
        const done = repo.startRun('sync-stats', 2);
        repo.finishRun(done, 3, { status: 'ok' });
        expect(repo.markCrashedRuns('sync-stats')).toBe(1);
        const runs = repo.recentRuns('sync-stats');
        expect(runs.find((run) => run.id === killed)).toMatchObject({ status: 'crashed', finishedAt: now() });
        expect(runs.find((run) => run.id === done)?.status).toBe('ok');
        expect(repo.recentRuns('enforce').find((run) => run.id === other)?.status).toBe('running');
      } finally {
        db.close();
      }
    }));
});
