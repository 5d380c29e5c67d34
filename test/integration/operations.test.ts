/**
 * What an operator relies on when something went wrong: reconciliation when callbacks are
 * lost, `wpp worker --once`, and seeing and retrying dead jobs from the command line.
 */
import { describe, expect, it } from 'vitest';
import { deliverEvents } from '../../src/cli/hook.command.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { finishEvent } from '../../src/panel/events.js';
import { runWpp } from '../helpers/cli.js';
import { startTestPlugin, testConfig, testEnv, withPlugin } from '../helpers/plugin.js';
import { startTestSandbox, withSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const TEST_SECRET = 'limits-test-secret-0123456789';
const wpp = (args: string[], env: Record<string, string>) => runWpp(args, { env });

const domainAdded = (account: string, domain: string) => {
  const result = finishEvent('test', { type: 'domain.added', account, domain });
  if (!result.success) throw result.error;
  return result.data;
};

describe('reconciliation', () => {
  it('finds a website whose callbacks never arrive and records its real status', async () => {
    // Callbacks go to a closed port: the plugin never hears that DNS was verified.
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents({ type: 'domain.added', account: 'alice', domain: 'lost.example' });
        await plugin.idle();
        await sb.control('POST', '/_sandbox/websites/lost.example/dns-verified');
        expect(plugin.accounts.getWebsite('lost.example')?.providerStatus).toBe('pending_dns');

        expect(plugin.reconcile(Date.now())).toEqual({ enqueued: 0 }); // read moments ago: not stale yet
        expect(plugin.reconcile(Date.now() + 120_000)).toEqual({ enqueued: 1 });
        await plugin.idle();
        expect(plugin.accounts.getWebsite('lost.example')?.providerStatus).toBe('online');
        expect(plugin.reconcile(Date.now() + 240_000)).toEqual({ enqueued: 0 }); // settled now
      },
      { env: { WPP_PUBLIC_URL: 'http://127.0.0.1:9' } },
    );
  });
});

describe('wpp worker --once and wpp jobs', () => {
  it('drains queued events, shows a dead job with its reason, and runs it again once the cause is fixed', async () => {
    await withSandbox(async (sb) => {
      const dataDir = createTempDir('wpp-ops-');
      const env = testEnv(dataDir, sb);
      try {
        const config = testConfig(dataDir, sb, env);
        await deliverEvents(config, [domainAdded('dora', 'one.example')]);
        const first = await wpp(['worker', '--once'], env);
        expect(first.code).toBe(0);
        expect(first.stdout).toMatch(/drained: \d+ done, 0 retried later, 0 dead/);
        expect(sb.store.getWebsite('one.example')?.userId).toBe('dora@panel.example');

        // The provider refuses the second domain: the user is at its limit. Retrying cannot help, so the job is dead.
        await sb.control('PUT', '/v1.0/user/dora@panel.example', { domain_limit: 1 });
        await deliverEvents(config, [domainAdded('dora', 'two.example')]);
        expect((await wpp(['worker', '--once'], env)).stdout).toMatch(/1 dead/);
        const listed = await wpp(['jobs', '--state', 'dead'], env);
        expect(listed.stdout).toMatch(/"dead":1/);
        const deadLine = listed.stdout.split('\n').find((line) => line.includes('two.example')) ?? '';
        expect(deadLine).toMatch(/PROVIDER_LIMIT_REACHED/);
        const id = deadLine.split('\t')[0] ?? '';

        await sb.control('PUT', '/v1.0/user/dora@panel.example', { domain_limit: 5 });
        expect((await wpp(['jobs', 'retry', id], env)).stdout.trim()).toBe(`job ${id} queued again`);
        expect((await wpp(['worker', '--once'], env)).stdout).toMatch(/0 dead/);
        expect(sb.store.getWebsite('two.example')?.userId).toBe('dora@panel.example');
        expect((await wpp(['jobs', 'retry', '999999'], env)).code).toBe(2);
      } finally {
        removeTempDir(dataDir);
      }
    });
  }, 60_000);
});

describe('wpp limits', () => {
  it('changes only the options given, clears with none, and needs no provider', async () => {
    const dataDir = createTempDir('wpp-limits-');
    // No provider configured and no sandbox ever run: limits only touch the plugin's database.
    const env = { WPP_DATA_DIR: dataDir, WPP_PANEL_SECRET: TEST_SECRET, WPP_LOG_LEVEL: 'silent' };
    try {
      expect((await runWpp(['limits', '--scope', 'global', '--website-hits', '5000'], { env })).code).toBe(0);
      const second = await runWpp(['limits', '--scope', 'global', '--domain-limit', '3'], { env });
      expect(second.stdout).toContain('"websiteHits":5000');
      expect(second.stdout).toContain('"domainLimit":3');
      const cleared = await runWpp(['limits', '--scope', 'global', '--website-hits', 'none'], { env });
      expect(cleared.stdout).toContain('"websiteHits":null');
      expect(cleared.stdout).toContain('"domainLimit":3');
      const bad = await runWpp(['limits', '--scope', 'account', '--website-hits', '5'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('needs --subject');
    } finally {
      removeTempDir(dataDir);
    }
  });
});

describe('graceful stop', () => {
  it('lets the jobs in flight finish when the plugin closes', async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const plugin = await startTestPlugin(sandbox);
    try {
      // Every provider answer takes 300 ms: close() must wait for the jobs running, not cut them off.
      await sandbox.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 300 });
      await plugin.postEvents([1, 2, 3].map((i) => ({ type: 'domain.added', account: `slow${i}`, domain: `slow${i}.example` })));
      const deadline = Date.now() + 5000;
      while (plugin.jobs.counts().running === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(plugin.jobs.counts().running).toBeGreaterThan(0);
      await plugin.close();
      // A fresh connection, as the next process would see the queue: nothing left half-run.
      const db = openPluginDatabase(testConfig(plugin.dataDir, sandbox));
      try {
        expect(db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE state = 'running'").get()).toEqual({ n: 0 });
        expect((db.prepare('SELECT COUNT(*) AS n FROM websites').get() as { n: number }).n).toBeGreaterThan(0);
      } finally {
        db.close();
      }
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  });
});
