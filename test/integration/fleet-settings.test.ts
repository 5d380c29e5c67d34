/**
 * Fleet settings (docs/fleet.md "Fleet settings") with a real PostgreSQL from npm and three
 * real plugins, each its own data folder, on one sandbox: a limit or a plan set once (`wpp
 * limits ... --fleet`, `wpp plans set ... --fleet`, the Settings page's "All servers") applies
 * on every server within a poll, recorded on each with who made it and where; with the fleet
 * database down it is refused and nothing changes; a server that was stopped gets what it
 * missed when it starts, once.
 */
import { userInfo } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLEET_SETTINGS_VERSION_FACT } from '../../src/core/fleet-settings.js';
import { FLEET_SETTINGS_POLL_MS } from '../../src/wiring/fleet-settings.js';
import { runWpp } from '../helpers/cli.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestPlugin, testEnv, type TestPlugin } from '../helpers/plugin.js';
import { createTempDir, removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { forwardedPort, freePort } from '../helpers/port-forward.js';

type Plugin = TestPlugin & { dataDir: string };

let postgres: TestPostgres;
let sandbox: TestSandbox;
beforeAll(async () => {
  [postgres, sandbox] = await Promise.all([startTestPostgres(), startTestSandbox()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([postgres?.stop(), sandbox?.close()]);
  if (sandbox) removeTempDir(sandbox.dataDir);
});

/** A change made anywhere is applied everywhere within one poll; the margin covers a busy 2-core machine. */
const WITHIN_A_POLL = FLEET_SETTINGS_POLL_MS + 4_000;
/** Each `wpp` run is a process start (about a second on a busy machine), and tests run several plugins. */
const SLOW = 90_000;
const osUser = (() => {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
})();

const started: Plugin[] = [];
async function server(url: string, name: string, dataDir?: string): Promise<Plugin> {
  const plugin = await startTestPlugin(sandbox, {
    ...(dataDir ? { dataDir } : {}),
    env: { WPP_FLEET_DATABASE_URL: url, WPP_SERVER_NAME: name },
  });
  started.push(plugin);
  return plugin;
}
async function stop(plugin: Plugin): Promise<void> {
  started.splice(started.indexOf(plugin), 1);
  await plugin.close();
}
async function stopAll(): Promise<void> {
  for (const plugin of started.splice(0)) {
    await plugin.close();
    removeTempDir(plugin.dataDir);
  }
}

/** `wpp <args>` on a server's data folder, as its operator runs it. */
const wppOn = (dataDir: string, url: string | undefined, name: string, args: string[]) =>
  runWpp(args, {
    env: testEnv(dataDir, sandbox, { ...(url ? { WPP_FLEET_DATABASE_URL: url } : {}), WPP_SERVER_NAME: name }),
  });

async function fleetRows(url: string): Promise<{ version: string; what: string; actor: string; server_name: string }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const exists = await client.query("SELECT to_regclass('fleet_settings_changes') AS t");
    if (!exists.rows[0].t) return [];
    return (await client.query('SELECT version, what, actor, server_name FROM fleet_settings_changes ORDER BY version')).rows;
  } finally {
    await client.end();
  }
}

/** Waits until the check holds on the server; returns how long that took. */
async function appliedOn<T>(plugin: Plugin, check: (plugin: Plugin) => T, what: string): Promise<number> {
  const start = Date.now();
  await waitFor(() => Boolean(check(plugin)), WITHIN_A_POLL, `${what} on ${plugin.config.server.name}`);
  return Date.now() - start;
}

const fleetChanges = (plugin: Plugin) => plugin.audit.listChanges().filter((change) => change.actor.startsWith('fleet:'));

describe('fleet settings from the command line', () => {
  it(
    'a limit and a plan set with --fleet on server A apply on B and C within a poll, recorded with who and where',
    async () => {
      const url = await postgres.newDatabase();
      try {
        const [a, b, c] = await Promise.all([
          server(url, 'web1.host.example'),
          server(url, 'web2.host.example'),
          server(url, 'web3.host.example'),
        ]);
        const limits = await wppOn(a.dataDir, url, 'web1.host.example', [
          'limits',
          '--scope',
          'global',
          '--website-hits',
          '5000',
          '--period',
          'daily',
          '--fleet',
        ]);
        expect(limits.stderr).toBe('');
        expect(limits.code).toBe(0);
        expect(limits.stdout).toContain('Shared with every server as fleet change 1; applied here');
        // Applied on A before the command ended, from the fleet database, as every server applies it.
        expect(a.stats.limitLayer('global', '')).toMatchObject({ websiteHits: 5000, period: 'daily' });
        const who = `fleet:${osUser}@web1.host.example`;
        for (const other of [b, c]) {
          const took = await appliedOn(other, (p) => p.stats.limitLayer('global', '')?.websiteHits === 5000, 'the fleet limit');
          expect(took).toBeLessThan(WITHIN_A_POLL);
          expect(other.stats.limitLayer('global', '')).toMatchObject({ websiteHits: 5000, period: 'daily' });
          expect(fleetChanges(other)).toEqual([
            expect.objectContaining({
              actor: who,
              what: 'limits:global:',
              before: null,
              after: expect.objectContaining({ websiteHits: 5000 }),
            }),
          ]);
        }

        const plan = await wppOn(a.dataDir, url, 'web1.host.example', [
          'plans',
          'set',
          'gold',
          '--subdomains',
          'www,shop',
          '--monitor-days',
          '3',
          '--fleet',
        ]);
        expect(plan.code).toBe(0);
        expect(plan.stdout).toContain('fleet change 2');
        for (const other of [a, b, c]) {
          await appliedOn(other, (p) => p.accounts.getPlan('gold')?.monitorDays === 3, 'the fleet plan');
          expect(other.accounts.getPlan('gold')).toMatchObject({ subdomains: ['www', 'shop'], monitorDays: 3, settings: {} });
          expect(fleetChanges(other)[0]).toMatchObject({ actor: who, what: 'plan:gold', before: null });
        }
        expect((await fleetRows(url)).map((row) => [row.version, row.what, row.actor, row.server_name])).toEqual([
          ['1', 'limits:global:', osUser, 'web1.host.example'],
          ['2', 'plan:gold', osUser, 'web1.host.example'],
        ]);
      } finally {
        await stopAll();
      }
    },
    SLOW,
  );

  it(
    'only what was given changes; a later fleet change overrides a local one; the newest version wins everywhere',
    async () => {
      const url = await postgres.newDatabase();
      try {
        const [a, b] = await Promise.all([server(url, 'web1.host.example'), server(url, 'web2.host.example')]);
        // B's own row: a local change stays local.
        const local = await wppOn(b.dataDir, url, 'web2.host.example', [
          'limits',
          '--scope',
          'plan',
          '--subject',
          'default',
          '--website-hits',
          '100',
          '--account-hits',
          '700',
        ]);
        expect(local.code).toBe(0);
        expect(await fleetRows(url)).toEqual([]);
        expect(a.stats.limitLayer('plan', 'default')).toBeNull();

        // Two fleet changes of one value from two servers: the later version wins on both, B's own account hits stay.
        for (const [dataDir, name, hits] of [
          [a.dataDir, 'web1.host.example', '200'],
          [b.dataDir, 'web2.host.example', '300'],
        ] as const) {
          const run = await wppOn(dataDir, url, name, [
            'limits',
            '--scope',
            'plan',
            '--subject',
            'default',
            '--website-hits',
            hits,
            '--fleet',
          ]);
          expect(run.code).toBe(0);
        }
        for (const plugin of [a, b]) {
          await appliedOn(plugin, (p) => Number(p.accounts.getFact(FLEET_SETTINGS_VERSION_FACT)) === 2, 'both fleet changes');
          expect(plugin.stats.limitLayer('plan', 'default')?.websiteHits).toBe(300);
        }
        expect(b.stats.limitLayer('plan', 'default')?.accountHits).toBe(700);
        expect(a.stats.limitLayer('plan', 'default')?.accountHits).toBeNull();
      } finally {
        await stopAll();
      }
    },
    SLOW,
  );

  it(
    'with no fleet database, or one that is down, --fleet is refused (exit 1) and nothing changes',
    async () => {
      const dataDir = createTempDir('wpp-fleet-none-');
      const downPort = await freePort();
      const down = (await postgres.newDatabase()).replace(`:${postgres.port}/`, `:${downPort}/`);
      try {
        const unset = await wppOn(dataDir, undefined, 'web1.host.example', [
          'limits',
          '--scope',
          'global',
          '--website-hits',
          '5',
          '--fleet',
        ]);
        expect(unset.code).toBe(1);
        expect(unset.stderr).toContain('--fleet needs the fleet database, and WPP_FLEET_DATABASE_URL is not set: nothing was changed');
        const refused = await wppOn(dataDir, down, 'web1.host.example', ['limits', '--scope', 'global', '--website-hits', '5', '--fleet']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('cannot be reached');
        expect(refused.stderr).toContain('Nothing was changed.');
        expect(refused.stderr).not.toContain(postgres.password);
        const plan = await wppOn(dataDir, down, 'web1.host.example', ['plans', 'set', 'gold', '--monitor-days', '2', '--fleet']);
        expect(plan.code).toBe(1);
        expect(plan.stderr).toContain('Nothing was changed.');

        const table = await wppOn(dataDir, undefined, 'web1.host.example', ['limits']);
        expect(table.stdout).toBe('');
        const plans = await wppOn(dataDir, undefined, 'web1.host.example', ['plans']);
        expect(plans.stdout).not.toContain('gold');
      } finally {
        removeTempDir(dataDir);
      }
    },
    SLOW,
  );
});

describe('fleet settings from the Settings page', () => {
  it(
    'a change for all servers applies on B; this server only stays local; the choice is on the page',
    async () => {
      const url = await postgres.newDatabase();
      try {
        const [a, b] = await Promise.all([server(url, 'web1.host.example'), server(url, 'web2.host.example')]);
        // Each server joins the fleet database in the background; until then the page refuses "All servers", as while it is down.
        await joined(url, 2);
        const client = await signIn(a);
        const page = textOf((await client.get('/admin/settings')).body);
        expect(page).toContain('All servers (fleet settings)');
        expect(page).toContain('This server only (web1.host.example)');

        const local = await client.post('/admin/settings/limits', { scope: 'global', 'warning-percent': '70', servers: 'this' });
        expect(local.status).toBe(303);
        expect(local.headers.get('location')).toBe('/admin/settings?saved=limits#limits');
        const all = await client.post('/admin/settings/limits', { scope: 'global', 'website-hits': '4000', servers: 'all' });
        expect(all.status).toBe(303);
        expect(all.headers.get('location')).toBe('/admin/settings?saved=limits-fleet#limits');
        expect(textOf((await client.get(all.headers.get('location') ?? '')).body)).toContain('The limits were saved for all servers');
        const plan = await client.post('/admin/settings/plans', { name: 'silver', subdomains: 'www,blog', servers: 'all' });
        expect(plan.status).toBe(303);
        expect(a.stats.limitLayer('global', '')).toMatchObject({ websiteHits: 4000, warningPercent: 70 });

        await appliedOn(b, (p) => p.accounts.getPlan('silver') !== null, 'the plan from the page');
        expect(b.stats.limitLayer('global', '')).toMatchObject({ websiteHits: 4000, warningPercent: null });
        expect(b.accounts.getPlan('silver')?.subdomains).toEqual(['www', 'blog']);
        expect(fleetChanges(b).map((change) => [change.actor, change.what])).toEqual([
          ['fleet:admin:alice-admin@web1.host.example', 'plan:silver'],
          ['fleet:admin:alice-admin@web1.host.example', 'limits:global:'],
        ]);
        // B's page shows who made it, and where.
        const history = textOf((await (await signIn(b)).get('/admin/settings')).body);
        expect(history).toContain('fleet:admin:alice-admin@web1.host.example limits:global:');
        expect((await fleetRows(url)).map((row) => row.what)).toEqual(['limits:global:', 'plan:silver']);
      } finally {
        await stopAll();
      }
    },
    SLOW,
  );

  it(
    'with the fleet database down, a change for all servers is refused with the form as typed and nothing changes',
    async () => {
      const database = await postgres.newDatabase();
      const proxy = await forwardedPort(postgres.port);
      await proxy.up();
      const url = database.replace(`:${postgres.port}/`, `:${proxy.port}/`);
      try {
        const a = await server(url, 'web1.host.example');
        await joined(database, 1);
        const client = await signIn(a);
        await proxy.down();

        const refused = await client.post('/admin/settings/limits', { scope: 'global', 'website-hits': '4000', servers: 'all' });
        expect(refused.status).toBe(400);
        const text = textOf(refused.body);
        expect(text).toContain('The fleet database cannot be reached now, so the change was not made on any server');
        expect(refused.body).toContain('value="4000"');
        expect(a.stats.limitLayer('global', '')).toBeNull();
        expect(a.audit.listChanges()).toEqual([]);
        expect(await fleetRows(database)).toEqual([]);

        // This server only still works while the fleet database is down.
        const local = await client.post('/admin/settings/limits', { scope: 'global', 'website-hits': '4000', servers: 'this' });
        expect(local.status).toBe(303);
        expect(a.stats.limitLayer('global', '')?.websiteHits).toBe(4000);
      } finally {
        await stopAll();
        await proxy.down();
      }
    },
    SLOW,
  );
});

describe('a server that was down', () => {
  it(
    'gets the changes made meanwhile when it starts, once: a restart neither misses nor repeats one',
    async () => {
      const url = await postgres.newDatabase();
      const bDir = createTempDir('wpp-fleet-b-');
      try {
        const a = await server(url, 'web1.host.example');
        const b = await server(url, 'web2.host.example', bDir);
        await stop(b);
        for (const hits of ['111', '222']) {
          const run = await wppOn(a.dataDir, url, 'web1.host.example', ['limits', '--scope', 'global', '--website-hits', hits, '--fleet']);
          expect(run.code).toBe(0);
        }
        const again = await server(url, 'web2.host.example', bDir);
        await appliedOn(again, (p) => p.stats.limitLayer('global', '')?.websiteHits === 222, 'the changes made while it was down');
        expect(fleetChanges(again).map((change) => (change.after as { websiteHits: number }).websiteHits)).toEqual([222, 111]);
        expect(again.accounts.getFact(FLEET_SETTINGS_VERSION_FACT)).toBe('2');

        // Restarted with nothing new: nothing applied twice, through more than one poll.
        await stop(again);
        const third = await server(url, 'web2.host.example', bDir);
        await new Promise((resolve) => setTimeout(resolve, FLEET_SETTINGS_POLL_MS + 1_000));
        expect(fleetChanges(third)).toHaveLength(2);
        expect(third.stats.limitLayer('global', '')?.websiteHits).toBe(222);
      } finally {
        await stopAll();
        removeTempDir(bDir);
      }
    },
    SLOW,
  );
});

async function signIn(plugin: Plugin, name = 'alice-admin') {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, admin(name)))).status).toBe(303);
  expect((await client.get('/admin/settings')).status).toBe(200);
  return client;
}

/** Waits until `count` servers have joined the fleet database (each registers once its link is in). */
async function joined(url: string, count: number): Promise<void> {
  await waitFor(
    async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const registered = await client.query("SELECT to_regclass('fleet_servers') AS t");
        return Boolean(registered.rows[0].t) && (await client.query('SELECT 1 FROM fleet_servers')).rowCount === count;
      } finally {
        await client.end();
      }
    },
    10_000,
    `${count} servers to join the fleet database`,
  );
}
