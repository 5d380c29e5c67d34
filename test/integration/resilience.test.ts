/**
 * No event is lost while the provider is down or the plugin dies: the two promises of the
 * jobs table, shown with the real sandbox and a real `wpp serve` process killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ingestEvents } from '../../src/core/ingest.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { finishEvent, type PanelEvent } from '../../src/panel/events.js';
import { startTestPlugin, testConfig, testEnv } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const root = new URL('../..', import.meta.url).pathname;

function domainEvents(count: number, accounts: number): PanelEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const result = finishEvent('test', { type: 'domain.added', account: `customer${i % accounts}`, domain: `site-${i}.example` });
    if (!result.success) throw result.error;
    return result.data;
  });
}

describe('provider down', () => {
  it('queues 200 events while the provider is down and delivers every one once after recovery', async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const plugin = await startTestPlugin(sandbox, { env: { WPP_JOB_MAX_ATTEMPTS: '1000' } });
    try {
      await sandbox.control('POST', '/_sandbox/faults', { mode: 'down' });
      const events = domainEvents(200, 4);
      for (let i = 0; i < events.length; i += 50) {
        expect((await plugin.postEvents(events.slice(i, i + 50))).status).toBe(202);
      }
      // The worker keeps trying while the provider answers 503 (one domain.added per account at a time); nothing reaches it.
      await waitFor(
        () => plugin.jobs.list({ state: 'pending', limit: 1000 }).filter((j) => j.attempts >= 2).length >= 4,
        10_000,
        'retries under the outage',
      );
      const panelJobsDone = () =>
        (plugin.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'panel.event' AND state = 'done'").get() as { n: number }).n;
      expect(sandbox.store.listWebsites(null)).toHaveLength(0);
      expect(panelJobsDone()).toBe(0);

      await sandbox.control('POST', '/_sandbox/faults', { mode: 'none' });
      await plugin.idle(30_000);
      const domains = sandbox.store.listWebsites(null).map((w) => w.domain);
      expect(domains).toHaveLength(200);
      expect(new Set(domains).size).toBe(200);
      expect(plugin.jobs.counts()).toMatchObject({ pending: 0, running: 0, dead: 0, done: 201 });
      const local = plugin.db.prepare('SELECT COUNT(*) AS n FROM websites').get() as { n: number };
      expect(local.n).toBe(200);
      expect(panelJobsDone()).toBe(200);
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  }, 60_000);
});

describe('plugin killed mid-drain', () => {
  function serve(env: Record<string, string>): ChildProcess {
    return spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  it('ends with all 1,000 websites present once after SIGKILL and a restart, and stops cleanly on SIGTERM', async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const dataDir = createTempDir('wpp-crash-');
    const env = testEnv(dataDir, sandbox, { WPP_JOB_LEASE_SECONDS: '1', WPP_LOG_LEVEL: 'warn' });
    const db = openPluginDatabase(testConfig(dataDir, sandbox, env));
    const jobs = createJobsRepo(db);
    const children: ChildProcess[] = [];
    try {
      ingestEvents(jobs, domainEvents(1000, 10), 50);

      const first = serve(env);
      children.push(first);
      await waitFor(() => sandbox.store.listWebsites(null).length >= 250 || undefined, 30_000, '250 websites before the kill');
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      const atKill = sandbox.store.listWebsites(null).length;
      expect(atKill).toBeLessThan(1000);
      expect(jobs.counts().running + jobs.counts().pending).toBeGreaterThan(0);

      const second = serve(env);
      children.push(second);
      await waitFor(
        () => {
          const counts = jobs.counts();
          return (counts.pending === 0 && counts.running === 0) || undefined;
        },
        60_000,
        'the restarted plugin to drain',
      );

      const domains = sandbox.store.listWebsites(null).map((w) => w.domain);
      expect(domains).toHaveLength(1000);
      expect(new Set(domains).size).toBe(1000);
      expect(jobs.counts().dead).toBe(0);
      const accounts = createAccountsRepo(db);
      expect(Array.from({ length: 1000 }, (_, i) => accounts.getWebsite(`site-${i}.example`)).every((w) => w?.state === 'active')).toBe(
        true,
      );
      expect(sandbox.store.listUsers()).toHaveLength(10);

      const exit = new Promise<number | null>((resolve) => second.once('exit', (code) => resolve(code)));
      second.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      db.close();
      await sandbox.close();
      removeTempDir(dataDir);
      removeTempDir(sandbox.dataDir);
    }
  }, 120_000);
});
