/**
 * The statistics sync under faults, as an operator meets it: stopping it (SIGTERM, the
 * plugin closing), a `wpp sync-stats` killed mid-run, a sync another process is running,
 * a provider that fails every read; and the exit codes that say which happened.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { runWpp, spawnWpp, type WppProcess } from '../helpers/cli.js';
import { startTestPlugin, testConfig, testEnv } from '../helpers/plugin.js';
import { withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const host = hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `n` websites of one account, at the sandbox (bulk) and in the plugin's (migrated) database. */
async function seed(sb: TestSandbox, dataDir: string, n: number): Promise<void> {
  const user = await sb.control<{ id: string }>('POST', '/v1.0/user', { id: 'kim@panel.example' });
  const domains = Array.from({ length: n }, (_, i) => `w${String(i).padStart(4, '0')}.example`);
  await sb.control('POST', '/_sandbox/websites/bulk', { user_id: user.id, domains, ip: ['192.0.2.5'], hits: 10 });
  const db = openPluginDatabase(testConfig(dataDir, sb));
  try {
    db.transaction(() => {
      db.prepare(
        "INSERT INTO accounts (account, provider_user_id, state, created_at, updated_at) VALUES ('kim', 'kim@panel.example', 'active', 0, 0)",
      ).run();
      const insert = db.prepare(
        "INSERT INTO websites (domain, account, desired_status, callback_token_hash, created_at, updated_at) VALUES (?, 'kim', 'online', ?, 0, 0)",
      );
      domains.forEach((domain, i) => insert.run(domain, `hash-${i}`));
    })();
  } finally {
    db.close();
  }
}

/** Reads the plugin's database (already migrated by `seed`) while a `wpp` process may use it. */
function inspect<T>(sb: TestSandbox, dataDir: string, fn: (db: Db) => T): T {
  const db = openDatabase(testConfig(dataDir, sb).databaseFile);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const syncRuns = (db: Db) =>
  db
    .prepare("SELECT id, status, finished_at, websites_read, websites_failed FROM job_runs WHERE name = 'sync-stats' ORDER BY id")
    .all() as {
    id: number;
    status: string;
    finished_at: number | null;
    websites_read: number | null;
    websites_failed: number | null;
  }[];
const storedReads = (db: Db) => (db.prepare('SELECT COUNT(*) AS n FROM stats_latest WHERE taken_at > 0').get() as { n: number }).n;
const lockCount = (db: Db) => (db.prepare('SELECT COUNT(*) AS n FROM locks').get() as { n: number }).n;

/** Waits until a `wpp sync-stats` process has taken the lock and started its run. */
const syncStarted = (sb: TestSandbox, dataDir: string) =>
  waitFor(
    () => inspect(sb, dataDir, (db) => syncRuns(db).some((run) => run.status === 'running')) || undefined,
    20_000,
    'the sync to start',
  );

async function exitOf(child: WppProcess, timeoutMs: number) {
  const exit = await child.exited(timeoutMs);
  if (!exit) {
    child.kill('SIGKILL');
    throw new Error(`wpp (pid ${child.pid}) was still running ${timeoutMs} ms later`);
  }
  return exit;
}

describe('stopping a sync', () => {
  it('SIGTERM stops a rate-limited wpp sync-stats within seconds: says so, stores what it read, records `stopped`, frees the lock', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-stop-');
      try {
        await seed(sb, dataDir, 200);
        // 200 websites at 5 a second: 40 s to read them all, in one page.
        const child = spawnWpp(['sync-stats'], { env: testEnv(dataDir, sb, { WPP_SYNC_RATE: '5', WPP_SYNC_CONCURRENCY: '4' }) });
        await syncStarted(sb, dataDir);
        await sleep(1500);
        const sent = Date.now();
        child.kill('SIGTERM');
        const exit = await exitOf(child, 60_000);
        const stopMs = Date.now() - sent;
        expect(stopMs, `wpp sync-stats exited ${stopMs} ms after SIGTERM`).toBeLessThan(3000);
        expect(exit.code).toBe(143);
        const said = /statistics sync stopped by SIGTERM after (\d+) of 200 websites \((\d+) read, 0 failed\)/.exec(exit.stdout);
        expect(said, exit.stdout + exit.stderr).not.toBeNull();
        const read = Number(said?.[2]);
        expect(read).toBeGreaterThan(0);
        expect(read).toBeLessThan(200);
        expect(exit.stdout).not.toMatch(/enforcement:/);
        inspect(sb, dataDir, (db) => {
          expect(syncRuns(db)).toMatchObject([{ status: 'stopped', websites_read: read, websites_failed: 0 }]);
          expect(storedReads(db)).toBe(read);
          expect(lockCount(db)).toBe(0);
        });
      } finally {
        removeTempDir(dataDir);
      }
    });
  }, 90_000);

  it('closing the plugin (wpp serve stopping) stops a rate-limited sync within seconds, whatever the page size', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-stop-');
      await seed(sb, dataDir, 200);
      const plugin = await startTestPlugin(sb, { dataDir, env: { WPP_SYNC_RATE: '5', WPP_SYNC_CONCURRENCY: '4' } });
      try {
        const sync = plugin.syncStatistics();
        await sleep(1500);
        const closing = Date.now();
        await plugin.close();
        const result = await sync;
        const stopMs = Date.now() - closing;
        expect(stopMs, `plugin.close() returned ${stopMs} ms after it was called`).toBeLessThan(3000);
        expect(result).toMatchObject({ stopped: true, failed: 0 });
        expect(result.read).toBeGreaterThan(0);
        expect(result.read).toBeLessThan(200);
        inspect(sb, dataDir, (db) => {
          expect(syncRuns(db)).toMatchObject([{ status: 'stopped', websites_read: result.read }]);
          expect(storedReads(db)).toBe(result.read);
          expect(lockCount(db)).toBe(0);
        });
      } finally {
        await plugin.close();
        removeTempDir(dataDir);
      }
    });
  }, 90_000);
});

describe('a killed sync', () => {
  it('does not block the next one: it runs at once, and the killed run is marked crashed', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-kill-');
      const env = testEnv(dataDir, sb, { WPP_SYNC_RATE: '0', WPP_SYNC_CONCURRENCY: '2' });
      try {
        await seed(sb, dataDir, 20);
        await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 400 });
        const child = spawnWpp(['sync-stats', '--no-enforce'], { env });
        await syncStarted(sb, dataDir);
        child.kill('SIGKILL');
        expect((await exitOf(child, 10_000)).signal).toBe('SIGKILL');
        await sb.control('POST', '/_sandbox/faults', { mode: 'none' });

        const next = await runWpp(['sync-stats', '--no-enforce'], { env });
        expect(next.stdout + next.stderr).toMatch(/statistics: 20 websites read, 0 failed/);
        expect(next.code).toBe(0);
        inspect(sb, dataDir, (db) => {
          const runs = syncRuns(db);
          expect(runs.map((run) => run.status)).toEqual(['crashed', 'ok']);
          expect(runs[0]?.finished_at).not.toBeNull();
          expect(lockCount(db)).toBe(0);
        });
      } finally {
        removeTempDir(dataDir);
      }
    });
  }, 60_000);
});

describe('a sync another process is running', () => {
  it('is skipped with exit 3, naming who holds the lock', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-held-');
      const env = testEnv(dataDir, sb, { WPP_SYNC_RATE: '0', WPP_SYNC_CONCURRENCY: '1' });
      try {
        await seed(sb, dataDir, 10);
        await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 400 });
        const holder = spawnWpp(['sync-stats', '--no-enforce'], { env });
        await syncStarted(sb, dataDir);
        const second = await runWpp(['sync-stats', '--no-enforce'], { env });
        expect(second.code).toBe(3);
        expect(second.stdout).toMatch(
          new RegExp(`another statistics sync is running \\(host ${host}, pid ${holder.pid}, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)`),
        );
        const first = await exitOf(holder, 30_000);
        expect(first.stdout).toMatch(/statistics: 10 websites read, 0 failed/);
        expect(first.code).toBe(0);
      } finally {
        removeTempDir(dataDir);
      }
    });
  }, 60_000);
});

describe('a sync in which every read failed', () => {
  it('exits 1 and says so', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-down-');
      try {
        await seed(sb, dataDir, 3);
        await sb.control('POST', '/_sandbox/faults', { mode: 'down', retryAfter: 0 });
        const run = await runWpp(['sync-stats', '--no-enforce'], { env: testEnv(dataDir, sb) });
        expect(run.stderr).toMatch(/every statistics read failed \(3 of 3 websites\).*PROVIDER_UNAVAILABLE/);
        expect(run.code).toBe(1);
        inspect(sb, dataDir, (db) => expect(syncRuns(db)).toMatchObject([{ status: 'failed', websites_read: 0, websites_failed: 3 }]));
      } finally {
        removeTempDir(dataDir);
      }
    });
  }, 60_000);
});

describe('enforcement passes', () => {
  it('wpp enforce exits 3 while another process holds the enforcement lock, naming it', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-enforce-');
      try {
        await seed(sb, dataDir, 1);
        const db = openPluginDatabase(testConfig(dataDir, sb));
        try {
          // This test process is the live holder.
          const held = createStatisticsRepo(db).takeLock('enforce', 60_000);
          expect(held.taken).toBe(true);
          const run = await runWpp(['enforce'], { env: testEnv(dataDir, sb) });
          expect(run.stdout).toMatch(new RegExp(`another enforcement pass is running \\(host ${host}, pid ${process.pid}, since `));
          expect(run.code).toBe(3);
          if (held.taken) held.lock.release();
          expect((await runWpp(['enforce'], { env: testEnv(dataDir, sb) })).code).toBe(0);
        } finally {
          db.close();
        }
      } finally {
        removeTempDir(dataDir);
      }
    });
  }, 60_000);

  it('a first SIGTERM lets wpp enforce finish its pass; a second exits at once with 143', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-enforce-');
      const env = testEnv(dataDir, sb);
      try {
        await seed(sb, dataDir, 1);
        expect((await runWpp(['sync-stats', '--no-enforce'], { env })).code).toBe(0);
        expect((await runWpp(['limits', '--scope', 'global', '--website-hits', '5'], { env })).code).toBe(0);
        // The pause the pass makes takes 5 s at the provider.
        await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 5000 });
        const child = spawnWpp(['enforce'], { env });
        await waitFor(
          () => inspect(sb, dataDir, (db) => db.prepare("SELECT 1 FROM job_runs WHERE name = 'enforce' AND status = 'running'").get()),
          20_000,
          'the pass to start',
        );
        child.kill('SIGTERM');
        await sleep(300);
        const sent = Date.now();
        child.kill('SIGTERM');
        const exit = await exitOf(child, 10_000);
        expect(Date.now() - sent).toBeLessThan(1000);
        expect(exit.code).toBe(143);
        expect(exit.stderr).toMatch(/SIGTERM received, stopping \(send it again to exit at once\)/);
      } finally {
        removeTempDir(dataDir);
      }
    });
  }, 60_000);

  it('a pass left `running` by a killed process is marked crashed by the next one', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-enforce-');
      await seed(sb, dataDir, 1);
      const plugin = await startTestPlugin(sb, { dataDir });
      try {
        const killed = plugin.stats.startRun('enforce', Date.now() - 60_000);
        await plugin.enforceLimits();
        expect(plugin.stats.recentRuns('enforce').map((run) => [run.id === killed ? 'killed' : 'next', run.status])).toEqual([
          ['next', 'ok'],
          ['killed', 'crashed'],
        ]);
      } finally {
        await plugin.close();
        removeTempDir(dataDir);
      }
    });
  });
});
