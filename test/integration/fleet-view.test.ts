/**
 * The fleet view (issue 23, section 3; docs/fleet.md "The fleet view"): two real plugins, each
 * with its own data folder, on one sandbox and one real PostgreSQL. Each publishes its websites,
 * its enforcement actions and its health through the outbox in its SQLite; the "All servers"
 * admin pages of either show both. With the fleet database down, a server goes on working and
 * its outbox keeps what changed; back, everything arrives once. The pages say plainly when the
 * database does not answer, and are the admin's only.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { expectTranslated } from '../helpers/i18n-check.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, customer, launchUrl, reseller } from '../helpers/pages.js';
import { startTestPlugin, testEnv } from '../helpers/plugin.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { forwardedPort } from '../helpers/port-forward.js';

type Plugin = Awaited<ReturnType<typeof startTestPlugin>>;

let postgres: TestPostgres;
let sandbox: TestSandbox;
beforeAll(async () => {
  [postgres, sandbox] = await Promise.all([startTestPostgres(), startTestSandbox({ certDelaySeconds: 0 })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([postgres?.stop(), sandbox?.close()]);
  if (sandbox) removeTempDir(sandbox.dataDir);
});

/** One query on a connection of the test's own, as an operator's psql would look. */
async function fleetQuery<T = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** How many rows `text` finds; 0 while the fleet migrations have not made its table yet (the server joins in the background). */
async function fleetCount(url: string, text: string): Promise<number> {
  try {
    return (await fleetQuery(url, text)).length;
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return 0;
    throw error;
  }
}

async function startFleetPlugin(url: string, name: string): Promise<Plugin> {
  return startTestPlugin(sandbox, { env: { WPP_FLEET_DATABASE_URL: url, WPP_SERVER_NAME: name }, fleetPublishEveryMs: 100 });
}

/** Websites on a plugin, online at the sandbox, one of them over a limit of 100 hits and paused by enforcement. */
async function websitesWithPause(plugin: Plugin, account: string, domains: string[], overLimit: string): Promise<void> {
  await plugin.postEvents(domains.map((domain) => ({ type: 'domain.added', account, domain })));
  await plugin.idle();
  for (const domain of domains) await sandbox.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
  await waitFor(() => domains.every((d) => plugin.accounts.getWebsite(d)?.providerStatus === 'online'), 10_000, 'websites online');
  plugin.stats.setLimits('global', '', { websiteHits: 100 });
  await sandbox.control('POST', `/_sandbox/websites/${overLimit}/traffic`, { hits: 150, blocked: 0 });
  await plugin.syncStatistics();
  expect((await plugin.enforceLimits()).paused).toBe(1);
}

async function adminPages(plugin: Plugin) {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, admin()))).status).toBe(303);
  return client;
}

const close = async (...plugins: Plugin[]) => {
  for (const plugin of plugins) {
    await plugin.close();
    removeTempDir(plugin.dataDir);
  }
};

describe('All servers', () => {
  it('shows the websites and enforcement pauses of both servers on either, and finds a domain of the other server', async () => {
    const url = await postgres.newDatabase();
    const one = await startFleetPlugin(url, 'web1.host.example');
    const two = await startFleetPlugin(url, 'web2.host.example');
    try {
      await websitesWithPause(one, 'alice', ['alpha-one.example', 'alpha-two.example'], 'alpha-one.example');
      await websitesWithPause(two, 'bruno', ['bravo-one.example'], 'bravo-one.example');
      // Both servers' pauses reach the fleet database.
      await waitFor(
        async () => (await fleetCount(url, "SELECT 1 FROM fleet_websites WHERE paused_by = 'enforcement'")) === 2,
        15_000,
        'both pauses in the fleet database',
      );
      await waitFor(async () => (await fleetCount(url, 'SELECT 1 FROM fleet_enforcement_log')) === 2, 15_000, 'both actions');

      for (const plugin of [one, two]) {
        const pages = await adminPages(plugin);
        const overview = await pages.get('/admin');
        expect(overview.body).toContain('href="/admin/fleet"');

        const healthPage = await pages.get('/admin/fleet');
        expect(healthPage.body).not.toContain('badge warn">stale');
        const health = textOf(healthPage.body);
        expect(health).toContain('web1.host.example');
        expect(health).toContain('web2.host.example');
        expect(health).toContain(one.serverId);
        expect(health).toContain(two.serverId);
        expect(health).toContain('this server');

        const found = await pages.get('/admin/fleet/websites?q=bravo');
        expect(found.status).toBe(200);
        const foundText = textOf(found.body);
        expect(foundText).toContain('bravo-one.example');
        expect(foundText).toContain('bruno');
        expect(foundText).toContain('web2.host.example');
        expect(foundText).not.toContain('alpha-one.example');
        // By account too.
        expect(textOf((await pages.get('/admin/fleet/websites?q=alice')).body)).toMatch(/alpha-one\.example.*alpha-two\.example/);

        const log = textOf((await pages.get('/admin/fleet/log')).body);
        expect(log).toContain('alpha-one.example');
        expect(log).toContain('bravo-one.example');
        expect(log).toContain('website limit');
      }

      // The published state: usage, limit, level; the health of each, its sync and its websites.
      const [bravo] = await fleetQuery(
        url,
        "SELECT server_id, account, usage, website_limit, level FROM fleet_websites WHERE domain = 'bravo-one.example'",
      );
      expect(bravo).toEqual({ server_id: two.serverId, account: 'bruno', usage: '150', website_limit: '100', level: 'over' });
      const health = await fleetQuery(
        url,
        'SELECT server_id, websites, last_sync_status, outbox FROM fleet_server_health ORDER BY websites',
      );
      expect(health).toEqual([
        { server_id: two.serverId, websites: 1, last_sync_status: 'ok', outbox: 0 },
        { server_id: one.serverId, websites: 2, last_sync_status: 'ok', outbox: 0 },
      ]);

      // A server that registered long ago and has not been heard from for 10 minutes (no health row either) is marked stale.
      await fleetQuery(
        url,
        `INSERT INTO fleet_servers (server_id, name, registered_at, last_seen_at)
         VALUES ('srv-gone', 'web9.host.example', now() - interval '1 day', now() - interval '10 minutes')`,
      );
      const servers = (await (await adminPages(one)).get('/admin/fleet')).body;
      const rowOf = (id: string) =>
        /<tr>(?:(?!<\/tr>)[\s\S])*<\/tr>/g.exec(servers.slice(servers.lastIndexOf('<tr>', servers.indexOf(id))))?.[0] ?? '';
      expect(rowOf('srv-gone')).toContain('web9.host.example');
      expect(rowOf('srv-gone')).toContain('badge warn">stale');
      expect(textOf(rowOf('srv-gone'))).toContain('10 minutes ago');
      expect(rowOf(two.serverId)).not.toContain('stale');
    } finally {
      await close(one, two);
    }
  }, 90_000);

  it('keeps working with the fleet database down, then sends everything once it is back; the pages say it is down', async () => {
    const database = await postgres.newDatabase();
    const proxy = await forwardedPort(postgres.port);
    await proxy.up();
    const url = database.replace(`:${postgres.port}/`, `:${proxy.port}/`);
    const plugin = await startFleetPlugin(url, 'web3.host.example');
    try {
      await waitFor(async () => (await fleetCount(database, 'SELECT 1 FROM fleet_server_health')) === 1, 15_000, 'the first round');
      const pages = await adminPages(plugin);
      expect((await pages.get('/admin/fleet')).status).toBe(200);

      await proxy.down();
      // The server goes on: websites provisioned, one paused by enforcement, while nothing reaches the fleet database.
      await websitesWithPause(
        plugin,
        'carla',
        ['charlie-one.example', 'charlie-two.example', 'charlie-three.example'],
        'charlie-two.example',
      );
      const outbox = () => plugin.db.prepare('SELECT COUNT(*) FROM fleet_outbox').pluck().get() as number;
      expect(outbox()).toBe(3);
      expect(await fleetQuery(database, 'SELECT domain FROM fleet_websites')).toEqual([]);

      for (const path of ['/admin/fleet', '/admin/fleet/websites?q=charlie', '/admin/fleet/log']) {
        const page = await pages.get(path);
        expect(page.status, path).toBe(200);
        const text = textOf(page.body);
        expect(text, path).toContain('The fleet database does not answer.');
        expect(text, path).toMatch(/It last answered (just now|\d+ minutes? ago)/);
      }

      await proxy.up();
      await waitFor(() => outbox() === 0, 20_000, 'the outbox to empty');
      await waitFor(async () => (await fleetCount(database, 'SELECT 1 FROM fleet_enforcement_log')) === 1, 10_000, 'the pause');
      const sent = await fleetQuery(database, 'SELECT domain, paused_by FROM fleet_websites ORDER BY domain');
      expect(sent).toEqual([
        { domain: 'charlie-one.example', paused_by: null },
        { domain: 'charlie-three.example', paused_by: null },
        { domain: 'charlie-two.example', paused_by: 'enforcement' },
      ]);
      expect(textOf((await pages.get('/admin/fleet/websites?q=charlie-two')).body)).toContain('charlie-two.example');

      // A crash between the fleet database's commit and the server forgetting what it sent sends it all again: no harm.
      plugin.db.exec(
        "INSERT OR IGNORE INTO fleet_outbox (domain, changed_at) SELECT domain, 0 FROM websites; DELETE FROM kv WHERE key = 'fleet.actions_sent_id'",
      );
      await waitFor(
        () => outbox() === 0 && plugin.db.prepare("SELECT 1 FROM kv WHERE key = 'fleet.actions_sent_id'").get(),
        20_000,
        'the resend',
      );
      const [counts] = await fleetQuery(
        database,
        'SELECT (SELECT COUNT(*) FROM fleet_websites)::int AS websites, (SELECT COUNT(*) FROM fleet_enforcement_log)::int AS actions',
      );
      expect(counts).toEqual({ websites: 3, actions: 1 });
    } finally {
      await close(plugin);
      await proxy.down();
    }
  }, 90_000);

  it('says the database does not answer when it hangs, after a few seconds rather than hanging', async () => {
    const database = await postgres.newDatabase();
    const proxy = await forwardedPort(postgres.port);
    await proxy.up();
    const url = database.replace(`:${postgres.port}/`, `:${proxy.port}/`);
    const plugin = await startFleetPlugin(url, 'web7.host.example');
    try {
      await waitFor(async () => (await fleetCount(database, 'SELECT 1 FROM fleet_server_health')) === 1, 15_000, 'the first round');
      const pages = await adminPages(plugin);
      expect(textOf((await pages.get('/admin/fleet')).body)).toContain('web7.host.example');
      proxy.hang();
      const started = Date.now();
      const page = await pages.get('/admin/fleet/log');
      const waited = Date.now() - started;
      expect(page.status).toBe(200);
      expect(textOf(page.body)).toContain('The fleet database does not answer.');
      // The page's reads give up after READ_TIMEOUT_MS (5 s), whatever the database does.
      expect(waited).toBeLessThan(9000);
      // Meanwhile the server keeps working, and its changes wait in the outbox.
      await plugin.postEvents([{ type: 'domain.added', account: 'gina', domain: 'golf.example' }]);
      await plugin.idle();
      expect(plugin.db.prepare("SELECT COUNT(*) FROM fleet_outbox WHERE domain = 'golf.example'").pluck().get()).toBe(1);
    } finally {
      await close(plugin);
      await proxy.down();
    }
  }, 60_000);

  it("is the admin's only, and absent without a fleet database", async () => {
    const url = await postgres.newDatabase();
    const fleetPlugin = await startFleetPlugin(url, 'web4.host.example');
    const alone = await startTestPlugin(sandbox);
    try {
      for (const role of [customer('sam'), reseller('res1')]) {
        const client = createPageClient(fleetPlugin.url);
        expect((await client.get(launchUrl(fleetPlugin, role))).status).toBe(303);
        const today = await client.get('/admin');
        for (const path of ['/admin/fleet', '/admin/fleet/websites?q=ab', '/admin/fleet/log']) {
          const page = await client.get(path);
          expect(page.status, `${role.role} ${path}`).toBe(today.status);
          expect(page.status).toBeGreaterThanOrEqual(400);
          expect(page.body).not.toContain(fleetPlugin.serverId);
        }
      }
      const pages = await adminPages(alone);
      expect((await pages.get('/admin/fleet')).status).toBe(404);
      expect((await pages.get('/admin')).body).not.toContain('/admin/fleet');
    } finally {
      await close(fleetPlugin, alone);
    }
  }, 60_000);

  it("publishes the last `wpp doctor` run with the server's health", async () => {
    const url = await postgres.newDatabase();
    const plugin = await startFleetPlugin(url, 'web5.host.example');
    try {
      const env = testEnv(plugin.dataDir, sandbox, { WPP_PORT: new URL(plugin.url).port, WPP_PUBLIC_URL: plugin.url });
      const run = await runWpp(['doctor', '--json'], { env });
      const printed = JSON.parse(run.stdout) as { checks: { name: string; status: string }[] };
      const worst = printed.checks.some((c) => c.status === 'fail')
        ? 'fail'
        : printed.checks.some((c) => c.status === 'warn')
          ? 'warn'
          : 'ok';
      const [row] = await waitFor(
        async () => {
          const rows = await fleetQuery<{ doctor_status: string | null; doctor_checks: { name: string }[] | null }>(
            url,
            'SELECT doctor_status, doctor_checks FROM fleet_server_health',
          );
          return rows[0]?.doctor_status ? rows : undefined;
        },
        15_000,
        'the doctor run in the fleet database',
      );
      expect(row?.doctor_status).toBe(worst);
      expect(row?.doctor_checks?.map((c) => c.name)).toEqual(printed.checks.map((c) => c.name));
      const pages = await adminPages(plugin);
      const health = textOf((await pages.get('/admin/fleet')).body);
      expect(health).toContain({ ok: 'all checks ok', warn: 'warnings', fail: 'failures' }[worst]);
      expect(health).not.toContain('never run');
    } finally {
      await close(plugin);
    }
  }, 60_000);

  it("speaks the admin's language on every page, the fleet database up or down", async () => {
    const database = await postgres.newDatabase();
    const proxy = await forwardedPort(postgres.port);
    await proxy.up();
    const url = database.replace(`:${postgres.port}/`, `:${proxy.port}/`);
    const plugin = await startFleetPlugin(url, 'web6.host.example');
    try {
      await websitesWithPause(plugin, 'dora', ['delta-one.example', 'delta-two.example'], 'delta-one.example');
      await waitFor(async () => (await fleetCount(database, 'SELECT 1 FROM fleet_enforcement_log')) === 1, 15_000, 'the pause');
      const visits = [
        { name: 'all servers', as: 'admin', path: '/admin/fleet', status: 200 },
        { name: 'search', as: 'admin', path: '/admin/fleet/websites?q=delta', status: 200 },
        { name: 'search asked', as: 'admin', path: '/admin/fleet/websites', status: 200 },
        { name: 'log', as: 'admin', path: '/admin/fleet/log', status: 200 },
      ] as const;
      const data = [
        'web6.host.example',
        plugin.serverId,
        'delta-one.example',
        'delta-two.example',
        'dora',
        'enforcement',
        'alice-admin',
        'Doctor',
      ];
      await expectTranslated(plugin, visits, data);
      await proxy.down();
      await expectTranslated(
        plugin,
        visits.map((visit) => ({ ...visit, name: `${visit.name} (database down)` })),
        data,
      );
    } finally {
      await close(plugin);
      await proxy.down();
    }
  }, 90_000);
});
