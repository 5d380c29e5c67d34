/**
 * Accounts that move between panel servers (issue 23, docs/fleet.md "Accounts that move"): two
 * real plugins, each with its own data folder, SQLite and server id, on ONE sandbox and ONE
 * partner key, as a WHM transfer, a Plesk migration or a restore leaves them. The receiving
 * server adopts the provider user and websites (no duplicate, the customer's rules kept); the
 * sending server's later removal leaves alone every website the other now serves. In both
 * orders, with and without the fleet database.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectTranslated } from '../helpers/i18n-check.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { createPageClient } from '../helpers/page-client.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestPlugin } from '../helpers/plugin.js';
import { createTempDir, removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const DOMAIN = 'alice.example';
const USER = 'alice@panel.example';
/** The hosting plan on both servers: its settings grant humans and leave WordPress's ruleset off. */
const PLAN = { name: 'gold', settings: { rules: { humans: 'grant' as const }, rulesets: { wordpress: false } }, subdomains: ['www'] };
/** What the customer set through server A afterwards: humans shown a captcha, WordPress's ruleset on. */
const CUSTOMER_RULES = { rules: { humans: 'captcha' as const }, rulesets: { wordpress: true } };

type Plugin = Awaited<ReturnType<typeof startTestPlugin>>;
interface Server {
  plugin: Plugin;
  logs: { msg: string; [key: string]: unknown }[];
}

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sandboxForTest(): Promise<TestSandbox> {
  const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  cleanups.push(async () => {
    await sandbox.close();
    removeTempDir(sandbox.dataDir);
  });
  return sandbox;
}

/** A panel server with wpp on the shared sandbox key: its own data folder, address and name; its log lines kept. */
async function startServer(
  sandbox: TestSandbox,
  name: string,
  ip: string,
  env: Record<string, string> = {},
  now?: () => number,
): Promise<Server> {
  const logs: Server['logs'] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const dataDir = createTempDir(`wpp-${name}-`);
  const plugin = await startTestPlugin(sandbox, {
    dataDir,
    logger,
    env: { WPP_SERVER_IP: ip, WPP_SERVER_NAME: `${name}.host.example`, ...env },
    ...(now ? { now } : {}),
  });
  cleanups.push(async () => {
    await plugin.close();
    removeTempDir(dataDir);
  });
  plugin.accounts.savePlan(PLAN);
  return { plugin, logs };
}

const created = (ip: string) => [
  { type: 'account.created', account: 'alice', email: 'alice@example.com', plan: PLAN.name },
  { type: 'domain.added', account: 'alice', domain: DOMAIN, ip, plan: PLAN.name },
];
const deleted = [{ type: 'account.deleted', account: 'alice' }];

async function send(server: Server, events: object[]): Promise<void> {
  expect((await server.plugin.postEvents(events)).status).toBe(202);
  await server.plugin.idle();
}

/** The website as the provider has it now, read with the partner key (the test's own client). */
const atProvider = (server: Server) => server.plugin.provider.lookupWebsite(DOMAIN);
const providerUsersNamed = async (server: Server) => (await server.plugin.provider.listUsers()).filter((user) => user.id === USER);

/** Server A protects alice.example, and the customer sets a rule of their own through A's provider client. */
async function protectedOnA(a: Server): Promise<void> {
  await send(a, created('192.0.2.10'));
  expect((await atProvider(a)).settings.rules.humans).toBe('grant');
  await a.plugin.provider.updateWebsite(DOMAIN, { settings: CUSTOMER_RULES });
  const remote = await atProvider(a);
  expect(remote.tag).toContain(`served-by:${a.plugin.serverId}`);
  expect(remote.settings.rules.humans).toBe('captcha');
}

function expectKeptAndServedBy(remote: Awaited<ReturnType<typeof atProvider>>, b: Server, a: Server): void {
  expect(remote.user_id).toBe(USER);
  expect(remote.tag).toContain(`served-by:${b.plugin.serverId}`);
  expect(remote.tag.filter((tag) => tag.startsWith('served-by:') || tag.startsWith('released-by:'))).toHaveLength(1);
  expect(remote.tag).not.toContain(`server:a.host.example`);
  expect(remote.tag).toContain(`server:b.host.example`);
  expect(remote.tag).toContain(`plan:${PLAN.name}`);
  // The customer's rules, as set through A, not the plan's defaults.
  expect(remote.settings.rules.humans).toBe('captcha');
  expect(remote.settings.rulesets.wordpress).toBe(true);
  expect(remote.subdomain).toEqual(['www']);
  // Served from B's address now, B's callback address.
  expect(remote.ip).toEqual(['192.0.2.20']);
  expect(remote.callbackUrl).toContain(b.plugin.url);
  expect(a.plugin.serverId).not.toBe(b.plugin.serverId);
}

const logged = (server: Server, msg: string) => server.logs.filter((line) => line.msg === msg);

describe.each([
  { fleet: false, label: 'without the fleet database' },
  { fleet: true, label: 'with the fleet database' },
])('an account moved from server A to server B, $label', ({ fleet }) => {
  const fleetEnv = async (): Promise<Record<string, string>> => (fleet ? { WPP_FLEET_DATABASE_URL: await postgres.newDatabase() } : {});

  it('restore first: B adopts the website A still serves, then A deletes the account and leaves it alone', async () => {
    const sandbox = await sandboxForTest();
    const env = await fleetEnv();
    const a = await startServer(sandbox, 'a', '192.0.2.10', env);
    const b = await startServer(sandbox, 'b', '192.0.2.20', env);
    await protectedOnA(a);

    // B receives the account (the restore's account.created and domain.added) while A still has it.
    await send(b, created('192.0.2.20'));
    expect(b.plugin.jobCounts().dead).toBe(0);
    expectKeptAndServedBy(await atProvider(b), b, a);
    expect((await atProvider(b)).requested_status ?? (await atProvider(b)).status).toBe('online');
    expect(await providerUsersNamed(b)).toHaveLength(1);
    expect(b.plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ state: 'active', desiredStatus: 'online', account: 'alice' });
    expect(logged(b, `website adopted from server ${a.plugin.serverId}`)).toHaveLength(1);

    // A's panel removes the account afterwards: the website B serves is not paused or removed.
    await send(a, deleted);
    expect(a.plugin.jobCounts().dead).toBe(0);
    const after = await atProvider(b);
    expectKeptAndServedBy(after, b, a);
    expect(after.requested_status ?? after.status).toBe('online');
    expect(await providerUsersNamed(b)).toHaveLength(1);
    // A stopped managing it: its row is out of A's sync, enforcement and reconcile, and names who took it.
    expect(a.plugin.accounts.getWebsite(DOMAIN)?.state).toBe('removed');
    expect(a.plugin.accounts.getFact(`website_served_by:${DOMAIN}`)).toBe(b.plugin.serverId);
    expect(a.plugin.stats.managedCount()).toBe(0);
    expect(logged(a, `website now served by server ${b.plugin.serverId}: left alone`)).toHaveLength(1);
    // B still has it as it was.
    expect(b.plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ state: 'active', desiredStatus: 'online' });
    // A's admin page names the server that took it, in every language.
    const page = createPageClient(a.plugin.url);
    await page.get(launchUrl(a.plugin, admin('root')));
    const shown = await page.get(`/admin/websites/${DOMAIN}`);
    expect(shown.body).toContain(`This website is now served by another panel server (${b.plugin.serverId})`);
    await expectTranslated(
      a.plugin,
      [{ name: 'a website another server took', as: 'admin', path: `/admin/websites/${DOMAIN}`, status: 200 }],
      [b.plugin.serverId, DOMAIN],
    );
  }, 60_000);

  it('removal first: A deletes the account (paused at the provider), then B receives it and protects it again', async () => {
    const sandbox = await sandboxForTest();
    const env = await fleetEnv();
    const a = await startServer(sandbox, 'a', '192.0.2.10', env);
    const b = await startServer(sandbox, 'b', '192.0.2.20', env);
    await protectedOnA(a);

    await send(a, deleted);
    const released = await atProvider(a);
    // Today's rule for a deleted account: paused at the provider, not deleted; tagged as let go by A.
    expect(released.requested_status ?? released.status).toBe('paused');
    expect(released.tag).toContain(`released-by:${a.plugin.serverId}`);
    expect(released.tag).not.toContain(`served-by:${a.plugin.serverId}`);
    expect(a.plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ state: 'removed', pausedBy: 'account_deleted' });

    await send(b, created('192.0.2.20'));
    expect(b.plugin.jobCounts().dead).toBe(0);
    const adopted = await atProvider(b);
    expectKeptAndServedBy(adopted, b, a);
    expect(adopted.requested_status ?? adopted.status).toBe('online');
    expect(await providerUsersNamed(b)).toHaveLength(1);
    expect(b.plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ state: 'active', desiredStatus: 'online', pausedBy: null });
    expect(logged(b, `website adopted from server ${a.plugin.serverId}`)).toHaveLength(1);
  }, 60_000);
});

/**
 * Every way server A pauses or removes a website, made the way A's host makes it, after B
 * adopted the website and while A has heard nothing of the move (its row still active).
 */
const PAUSES_ON_A: Record<string, (a: Server, sandbox: TestSandbox) => Promise<void>> = {
  'the panel removes the domain': (a) => send(a, [{ type: 'domain.removed', account: 'alice', domain: DOMAIN }]),
  'the panel suspends the account': (a) => send(a, [{ type: 'account.suspended', account: 'alice' }]),
  'the panel removes a subdomain': (a) => send(a, [{ type: 'subdomain.removed', account: 'alice', domain: DOMAIN, subdomain: 'www' }]),
  "the account's package loses protection": (a) => send(a, [{ type: 'plan.changed', account: 'alice', plan: 'basic', protection: false }]),
  async 'enforcement pauses it over its limit'(a, sandbox) {
    a.plugin.stats.setLimits('website', DOMAIN, { websiteHits: 10 });
    await sandbox.control('POST', `/_sandbox/websites/${DOMAIN}/traffic`, { hits: 50 });
    await a.plugin.syncStatistics();
    const result = await a.plugin.enforceLimits();
    expect(result).toMatchObject({ paused: 0, leftAlone: 1, failed: 0 });
  },
  async 'an admin pauses it on its pages'(a) {
    const page = createPageClient(a.plugin.url);
    await page.get(launchUrl(a.plugin, admin('root')));
    await page.get(`/admin/websites/${DOMAIN}`);
    // Refused, and the page says why; nothing is sent to the provider.
    const answer = await page.post(`/admin/websites/${DOMAIN}/pause`);
    expect(answer.status).toBe(409);
    expect(answer.body).toContain('is now served by another panel server');
  },
  async 'a reconcile re-reads it'(a) {
    // A status A no longer trusts: the reconcile pass re-reads it.
    a.plugin.accounts.setProviderStatus(DOMAIN, 'pending_dns');
    expect(a.plugin.reconcile(Date.now() + 61_000).enqueued).toBe(1);
    await a.plugin.idle();
  },
};

describe('server A, which heard nothing of the move, leaves the website B serves alone when', () => {
  it.each(Object.keys(PAUSES_ON_A))(
    '%s',
    async (path) => {
      const sandbox = await sandboxForTest();
      const a = await startServer(sandbox, 'a', '192.0.2.10');
      const b = await startServer(sandbox, 'b', '192.0.2.20');
      await protectedOnA(a);
      await send(b, created('192.0.2.20'));
      expect(a.plugin.accounts.getWebsite(DOMAIN)?.state).toBe('active');

      await (PAUSES_ON_A[path] as (a: Server, sandbox: TestSandbox) => Promise<void>)(a, sandbox);
      await a.plugin.idle();
      expect(a.plugin.jobCounts().dead).toBe(0);
      const remote = await atProvider(b);
      expect(remote.requested_status ?? remote.status).toBe('online');
      expectKeptAndServedBy(remote, b, a);
      expect(a.plugin.accounts.getWebsite(DOMAIN)?.state).toBe('removed');
      expect(a.plugin.accounts.getFact(`website_served_by:${DOMAIN}`)).toBe(b.plugin.serverId);
      expect(logged(a, `website now served by server ${b.plugin.serverId}: left alone`)).toHaveLength(1);
    },
    60_000,
  );
});

describe("server A's package release after the move", () => {
  it('removes nothing at the provider when its grace ends after B adopted the website', async () => {
    let clock = Date.now();
    const sandbox = await sandboxForTest();
    const a = await startServer(sandbox, 'a', '192.0.2.10', {}, () => clock);
    const b = await startServer(sandbox, 'b', '192.0.2.20');
    await protectedOnA(a);
    // A's package loses protection: paused at once, removed at the provider once the grace (14 days) is over.
    await send(a, [{ type: 'plan.changed', account: 'alice', plan: 'basic', protection: false }]);
    expect(a.plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ state: 'active', pausedBy: 'package' });

    // Meanwhile the account moved to B, which serves the website now (A's pause kept, for the customer to end).
    await send(b, created('192.0.2.20'));
    expect(b.plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ state: 'active', desiredStatus: 'paused', pausedBy: 'external' });

    clock += 15 * 24 * 3_600_000;
    await waitFor(() => logged(a, `website now served by server ${b.plugin.serverId}: left alone`).length === 1, 10_000, 'the release');
    await a.plugin.idle();
    expect(a.plugin.jobCounts().dead).toBe(0);
    expectKeptAndServedBy(await atProvider(b), b, a);
    expect(a.plugin.accounts.getWebsite(DOMAIN)?.state).toBe('removed');
  }, 60_000);
});

describe('the sending server, alone with its websites', () => {
  it('still removes an older website without a server tag when its own account is deleted (and tags it)', async () => {
    const sandbox = await sandboxForTest();
    const a = await startServer(sandbox, 'a', '192.0.2.10');
    await send(a, created('192.0.2.10'));
    // As a website made before servers told themselves apart: no served-by tag.
    await a.plugin.provider.updateWebsite(DOMAIN, { tag: ['plan:default', 'server:a.host.example'] });

    await send(a, deleted);
    const remote = await atProvider(a);
    expect(remote.requested_status ?? remote.status).toBe('paused');
    expect(remote.tag).toContain(`released-by:${a.plugin.serverId}`);
    expect(a.plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ state: 'removed', pausedBy: 'account_deleted' });
    expect(logged(a, `website now served by server ${a.plugin.serverId}: left alone`)).toHaveLength(0);
  }, 60_000);

  it('retries the removal while the provider cannot say who serves the website, and never pauses on a guess', async () => {
    const sandbox = await sandboxForTest();
    const a = await startServer(sandbox, 'a', '192.0.2.10');
    await send(a, created('192.0.2.10'));

    await sandbox.control('POST', '/_sandbox/faults', { mode: 'error' });
    expect((await a.plugin.postEvents(deleted)).status).toBe(202);
    await waitFor(() => a.plugin.jobs.list({ state: 'pending', limit: 10 }).some((job) => job.attempts > 0), 10_000, 'a failed attempt');
    await sandbox.control('POST', '/_sandbox/faults', { mode: 'none' });
    // Not paused while the check failed.
    expect((await atProvider(a)).requested_status).toBe('online');
    expect(a.plugin.accounts.getWebsite(DOMAIN)?.state).toBe('active');

    // The job's retry checks again, finds the website A's own, and removes it as before.
    await a.plugin.idle();
    expect(a.plugin.jobCounts().dead).toBe(0);
    expect((await atProvider(a)).requested_status).toBe('paused');
    expect(a.plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ state: 'removed', pausedBy: 'account_deleted' });
  }, 60_000);

  it('registers itself with the provider under its server id, the tag its websites carry', async () => {
    const sandbox = await sandboxForTest();
    const a = await startServer(sandbox, 'a', '192.0.2.10', { WPP_SERVER_TAG: 'rack-7' });
    await waitFor(() => logged(a, 'panel server registered with the provider').length === 1, 10_000, 'the registration');
    // The provider's record, read from the sandbox's own database (the interface lists no servers).
    const db = new Database(join(sandbox.dataDir, 'sandbox.sqlite'), { readonly: true });
    try {
      expect(db.prepare('SELECT name, tag FROM servers WHERE ip = ?').get('192.0.2.10')).toEqual({
        name: 'a.host.example',
        tag: `served-by:${a.plugin.serverId}`,
      });
    } finally {
      db.close();
    }
    expect(logged(a, 'panel server registered with the provider')[0]).toMatchObject({ serverId: a.plugin.serverId });
    await send(a, created('192.0.2.10'));
    expect((await atProvider(a)).tag).toEqual(expect.arrayContaining([`served-by:${a.plugin.serverId}`, 'rack-7']));
  }, 60_000);
});
