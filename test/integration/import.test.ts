/**
 * `wpp import` end to end: recorded cPanel listings scaled to 500 accounts and 1,500 domains,
 * printed by a fake whmapi1 under a temporary root, compared with a real plugin database and
 * the real sandbox; --apply queues, the worker provisions, and a second run finds nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { runWpp } from '../helpers/cli.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { cpanelOutput, generateAccounts, installFakeWhmapi, LISTINGS, listingFileOf } from '../helpers/panel-listings.js';
import { notifySecretOf, startTestPlugin, TEST_PANEL_SECRET, testEnv } from '../helpers/plugin.js';
import { signedWith, startReceiver } from '../helpers/receiver.js';
import { createTempDir, removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

let sandbox: TestSandbox;
let root: string;
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = createTempDir(prefix);
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  root = tempDir('wpp-import-root-');
  installFakeWhmapi(root, cpanelOutput(generateAccounts(500, 1500)));
});

afterAll(async () => {
  await sandbox.close();
  for (const dir of dirs) removeTempDir(dir);
  removeTempDir(sandbox.dataDir);
});

/**
 * The test sandbox limits no key, and this file checks what an import queues and provisions,
 * not its pace (pacer-import.test.ts does): the worker's 2,110 events are 3,701 provider calls,
 * which the default WPP_SYNC_RATE of 40 a second spreads over 92 s (measured: 91.6 s to idle;
 * 54.6 s at 400, where the worker itself is the limit).
 */
const UNHURRIED = { WPP_SYNC_RATE: '400' };

/** Panel events by state (the serving plugin also queues its server's registration). */
const panelEvents = (db: Db) => db.prepare("SELECT state, COUNT(*) AS n FROM jobs WHERE kind = 'panel.event' GROUP BY state").all();

const nonEmpty = <T>(list: T[]) => (list.length > 0 ? list : undefined);

const wpp = async (args: string[], dataDir: string) => {
  const run = await runWpp(args, { env: testEnv(dataDir, sandbox) });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
};

describe('wpp import cpanel: 500 accounts, 1,500 domains', () => {
  it('prints the difference, --apply queues each missing event once, the worker protects each domain once, a second run finds nothing', async () => {
    const dataDir = tempDir('wpp-import-data-');
    const first = await wpp(['import', 'cpanel', '--root', root], dataDir);
    expect(first).toContain('panel cpanel: 500 accounts, 1,500 domains, 100 subdomains');
    expect(first).toContain('differences: 500 account.missing, 1500 domain.missing, 100 subdomain.missing, 10 suspension.differs');
    expect(first).toContain('run again with --apply to queue 2,110 events for what is missing');

    const applied = await wpp(['import', 'cpanel', '--root', root, '--apply'], dataDir);
    expect(applied).toContain('queued 2,110 events');
    // Before the worker ran: everything is seen as queued, nothing is queued twice.
    const again = await wpp(['import', 'cpanel', '--root', root, '--apply'], dataDir);
    expect(again).toContain('queued 0 events (2,110 were queued already)');

    const plugin = await startTestPlugin(sandbox, { dataDir, env: UNHURRIED });
    try {
      await plugin.idle(240_000);
      expect(panelEvents(plugin.db)).toEqual([{ state: 'done', n: 2110 }]);
      const websites = sandbox.store.listWebsites(null);
      expect(websites).toHaveLength(1500);
      expect(new Set(websites.map((w) => w.domain)).size).toBe(1500);
      const created = new Map(websites.map((w) => [w.domain, w.createdAt]));

      const second = await wpp(['import', 'cpanel', '--root', root, '--apply'], dataDir);
      expect(second).toContain('differences: no difference');
      expect(second).toContain('nothing to queue');
      await plugin.idle();
      expect(new Map(sandbox.store.listWebsites(null).map((w) => [w.domain, w.createdAt]))).toEqual(created);
      expect(plugin.db.prepare("SELECT COUNT(*) AS n FROM job_runs WHERE name = 'panel-import' AND status = 'ok'").get()).toEqual({ n: 4 });
    } finally {
      await plugin.close();
    }
  }, 300_000);
});

describe('wpp import --file', () => {
  it('reads the JSON listing, prints the comparison as JSON, and --apply --prune pauses what the panel no longer lists', async () => {
    const dataDir = tempDir('wpp-import-file-');
    const file = join(dataDir, 'listing.json');
    writeFileSync(file, JSON.stringify(listingFileOf(generateAccounts(3, 4))));
    await wpp(['import', '--file', file, '--apply'], dataDir);
    const plugin = await startTestPlugin(sandbox, { dataDir });
    try {
      await plugin.idle(60_000);
      const json = JSON.parse(await wpp(['import', '--file', `${LISTINGS}file/listing.json`, '--json'], dataDir)) as {
        counts: Record<string, number>;
        differences: { kind: string; domain?: string }[];
      };
      expect(json.counts).toMatchObject({
        'account.missing': 2,
        'domain.missing': 3,
        'subdomain.missing': 1,
        'suspension.differs': 1,
        'domain.gone': 4,
      });
      const pruned = await wpp(['import', '--file', `${LISTINGS}file/listing.json`, '--apply', '--prune'], dataDir);
      expect(pruned).toContain('queued 11 events');
      await plugin.idle(60_000);
      expect(plugin.accounts.getWebsite('acct001.example')).toMatchObject({ state: 'removed', pausedBy: 'domain_removed' });
      expect(plugin.accounts.getWebsite('erin.example')).toMatchObject({ state: 'active', subdomains: ['www', 'blog'] });
    } finally {
      await plugin.close();
    }
  }, 120_000);

  it('refuses a malformed file and writes nothing', async () => {
    const dataDir = tempDir('wpp-import-bad-');
    const file = join(dataDir, 'bad.json');
    writeFileSync(file, JSON.stringify({ accounts: [{ account: 'ok', domains: [{ domain: 'not a domain' }] }] }));
    const run = await runWpp(['import', '--file', file, '--apply'], { env: testEnv(dataDir, sandbox) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('accounts.0.domains.0.domain: "not a domain" is not a valid domain name');
    const plugin = await startTestPlugin(sandbox, { dataDir, worker: false });
    try {
      expect(panelEvents(plugin.db)).toEqual([]);
      expect(plugin.imports.recentComparisons(5)).toEqual([]);
      expect(plugin.db.prepare("SELECT status FROM job_runs WHERE name = 'panel-import'").all()).toEqual([{ status: 'failed' }]);
    } finally {
      await plugin.close();
    }
  }, 60_000);
});

describe('the scheduled panel check', () => {
  it('compares at start when none ran within WPP_PANEL_CHECK_HOURS, reports drift to the notification URL, and the admin page shows it', async () => {
    const receiver = await startReceiver();
    const dataDir = tempDir('wpp-import-schedule-');
    const plugin = await startTestPlugin(sandbox, {
      dataDir,
      env: { WPP_PANEL: 'cpanel', WPP_NOTIFY_URL: receiver.url },
      scheduler: true,
      panelRoot: root,
    });
    try {
      const [comparison] = await waitFor(
        () => nonEmpty(plugin.imports.recentComparisons(1).filter((c) => c.source === 'schedule')),
        60_000,
        'the check',
      );
      expect(comparison).toMatchObject({ panel: 'cpanel', applied: null, totalDifferences: 2110 });
      expect(comparison?.counts['domain.missing']).toBe(1500);
      // A check only reports: nothing is queued.
      expect(plugin.jobs.counts().pending).toBe(0);
      const [notice] = await waitFor(
        () => nonEmpty(receiver.received.filter((r) => r.body.includes('panel.drift'))),
        10_000,
        'the drift notice',
      );
      expect(JSON.parse(notice?.body ?? '{}')).toMatchObject({ event: 'panel.drift', drift: { panel: 'cpanel', total: 2110 } });
      // Signed with the notification secret the receiver holds, not with the hook secret.
      if (!notice) throw new Error('no drift notice');
      expect(signedWith(notice, notifySecretOf(plugin))).toBe(true);
      expect(signedWith(notice, TEST_PANEL_SECRET)).toBe(false);

      const client = createPageClient(plugin.url);
      expect((await client.get(launchUrl(plugin, admin('root')))).status).toBe(303);
      const page = await client.get('/admin/import');
      expect(page.status).toBe(200);
      const text = textOf(page.body);
      expect(text).toContain('500 accounts in the panel');
      expect(text).toContain('2,110 differences');
      expect(text).toContain('scheduled check');
      expect(text).toContain('run wpp import cpanel --apply on the server');
      expect(text).toContain('domain not protected domain.missing 1,500');
      expect(text).toContain('The first 200 of 2,110.');
    } finally {
      await plugin.close();
      await receiver.close();
    }
  }, 120_000);
});
