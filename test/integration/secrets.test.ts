/**
 * One secret, one purpose (issue 18, item 2). The hook secret (WPP_PANEL_SECRET or
 * `panel-secret`) only signs panel events; sign-in links are signed with a key that exists only
 * in the data folder; callback URLs carry a token of their own key; notifications are signed
 * with the notification secret (WPP_NOTIFY_SECRET, or one generated and shown to admins).
 * Everything here runs for real: `wpp` processes, the plugin over HTTP, the sandbox's callbacks.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALLBACK_REREAD_SPACING_MS } from '../../src/core/job-queue.js';
import { createLaunchToken } from '../../src/core/launch-tokens.js';
import { signBody } from '../../src/core/signature.js';
import { runWpp, spawnWpp } from '../helpers/cli.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { TEST_PANEL_SECRET, withPlugin } from '../helpers/plugin.js';
import { startReceiver } from '../helpers/receiver.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { withTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

const PROCESSES = 90_000;
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
const secretFile = (dataDir: string, name: string) => readFileSync(join(dataDir, name), 'utf8').trim();

/**
 * `wpp launch-url` as a panel integration runs it (root, the launcher's environment): with the
 * hook secret in the environment and the given data folder. The provider URL only says this is
 * not the embedded sandbox (60-second links); the command never calls it.
 */
async function cliLaunchUrl(dataDir: string, pluginUrl: string, args: string[]): Promise<string> {
  const run = await runWpp(['launch-url', ...args], {
    env: {
      WPP_DATA_DIR: dataDir,
      WPP_PANEL_SECRET: TEST_PANEL_SECRET,
      WPP_PUBLIC_URL: pluginUrl,
      WPP_PROVIDER_URL: 'http://127.0.0.1:9',
      WPP_PROVIDER_API_KEY: 'unused-key',
      WPP_LOG_LEVEL: 'silent',
    },
  });
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim();
}

describe('sign-in links', () => {
  it(
    'a launch link made with the hook secret and another data folder is refused',
    async () => {
      await withPlugin(async (plugin) => {
        await withTempDir(async (elsewhere) => {
          // Someone who knows WPP_PANEL_SECRET (a non-root hook sender has it) but not the data folder.
          const forged = await cliLaunchUrl(join(elsewhere, 'data'), plugin.url, ['--admin', 'anyone']);
          const client = createPageClient(plugin.url);
          const refused = await client.get(forged);
          expect(refused.status).toBe(401);
          expect(refused.headers.get('location')).toBeNull();
          expect(client.cookies.size).toBe(0);
          expect((await client.get('/admin')).status).not.toBe(200);

          // Nor does a token signed with the hook secret itself, made by hand.
          const { token } = createLaunchToken(TEST_PANEL_SECRET, { role: 'admin', admin: 'anyone', panel: 'x' }, { now: Date.now() });
          expect((await createPageClient(plugin.url).get(`/launch?token=${token}`)).status).toBe(401);

          // The same command on the plugin's own data folder (root, as the panels run it) signs in.
          const genuine = await cliLaunchUrl(plugin.dataDir, plugin.url, ['--admin', 'root']);
          const admin = createPageClient(plugin.url);
          expect((await admin.get(genuine)).status).toBe(303);
          expect((await admin.get('/admin')).status).toBe(200);
        });
      });
    },
    PROCESSES,
  );

  it.runIf(process.getuid?.() === 0)(
    'a user who holds the hook secret but may not read the data folder gets no link at all, and the message names no secret',
    async () => {
      await withPlugin(async (plugin) => {
        const run = await runWpp(['launch-url', '--admin', 'anyone'], {
          uid: 65534,
          gid: 65534,
          env: { WPP_DATA_DIR: plugin.dataDir, WPP_PANEL_SECRET: TEST_PANEL_SECRET, WPP_PUBLIC_URL: plugin.url, WPP_LOG_LEVEL: 'silent' },
        });
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain(`${join(plugin.dataDir, 'sign-in-key')} may not be read by this user (uid 65534)`);
        expect(run.stderr).not.toContain(TEST_PANEL_SECRET);
        expect(run.stderr).not.toContain(secretFile(plugin.dataDir, 'sign-in-key'));
      });
    },
    PROCESSES,
  );

  it(
    "the sign-in key is created 0600 in the data folder and appears in no log or output; npm start's admin link still works",
    async () => {
      await withTempDir(async (tmp) => {
        const dataDir = join(tmp, 'data');
        // `npm start`: the embedded sandbox, generated secrets, the most talkative log, umask 000.
        const serve = spawnWpp(['serve'], {
          umask: 0o000,
          env: { WPP_DATA_DIR: dataDir, WPP_PORT: '0', WPP_SANDBOX_PORT: '0', WPP_LOG_LEVEL: 'trace' },
        });
        // Read once the server made it; an empty value would make the checks below fail.
        let signInKey: string | undefined;
        try {
          await serve.waitForStdout('/launch?token=');
          expect(mode(join(dataDir, 'sign-in-key'))).toBe('0600');
          signInKey = secretFile(dataDir, 'sign-in-key');
          expect(signInKey.length).toBeGreaterThanOrEqual(43);
          expect(signInKey).not.toBe(secretFile(dataDir, 'panel-secret'));

          // The demo admin link `npm start` prints signs in (it is signed with the sign-in key).
          const printed = /(http:\/\/\S+\/launch\?token=\S+)/.exec(serve.output().stdout)?.[1] ?? '';
          const demo = createPageClient(new URL(printed).origin);
          expect((await demo.get(printed)).status).toBe(303);
          expect((await demo.get('/admin')).status).toBe(200);

          // `wpp launch-url` on the same folder, as the panels run it: a link, and never the key.
          const launched = await runWpp(['launch-url', '--admin', 'second'], { env: { WPP_DATA_DIR: dataDir, WPP_LOG_LEVEL: 'trace' } });
          expect(launched.code, launched.stderr).toBe(0);
          expect(launched.stdout.trim()).toMatch(/\/launch\?token=[\w-]+\.[\w-]+$/);
          expect(`${launched.stdout}${launched.stderr}`).not.toContain(signInKey);
        } finally {
          serve.kill('SIGTERM');
        }
        const run = await serve.exited(20_000);
        expect(run).not.toBeNull();
        expect(signInKey).toBeDefined();
        expect(`${run?.stdout}${run?.stderr}`).not.toContain(signInKey ?? '');
        expect(run?.stderr).toContain('"level"');
      });
    },
    PROCESSES,
  );
});

describe('callback tokens', () => {
  const sandboxWebsite = async (sb: TestSandbox, domain: string) =>
    (await sb.control<{ domain: string; callbackUrl: string }[]>('GET', '/v1.0/website')).find((w) => w.domain === domain);
  const tokenAtProvider = async (sb: TestSandbox, domain: string) => (await sandboxWebsite(sb, domain))?.callbackUrl.split('/').pop() ?? '';
  const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
  /** The callback token of releases up to 0.3: an HMAC of the domain keyed with the panel secret. */
  const panelSecretToken = (domain: string) =>
    createHmac('sha256', TEST_PANEL_SECRET).update(`website-callback\u0000${domain}`).digest('base64url');
  /** The sandbox's deliveries to the plugin for a domain, newest first, as the sandbox recorded their answers. */
  const deliveries = async (sb: TestSandbox, domain: string) =>
    (await sb.control<{ domain: string; url: string; last_status: number | null }[]>('GET', '/_sandbox/callbacks?limit=100')).filter(
      (c) => c.domain === domain,
    );

  async function provision(plugin: Plugin, domain: string) {
    expect((await plugin.postEvents({ type: 'domain.added', account: 'alice', domain, id: `add-${domain}-${Date.now()}` })).status).toBe(
      202,
    );
    await plugin.idle();
  }

  it('are not derived from the hook secret, and the stored hash matches the URL the provider has', async () => {
    await withPlugin(async (plugin, sb) => {
      await provision(plugin, 'fresh.example');
      const token = await tokenAtProvider(sb, 'fresh.example');
      expect(token).not.toBe(panelSecretToken('fresh.example'));
      expect(plugin.accounts.getWebsite('fresh.example')?.callbackTokenHash).toBe(hashOf(token));
      await sb.control('POST', '/_sandbox/websites/fresh.example/dns-verified');
      await waitFor(() => plugin.accounts.getWebsite('fresh.example')?.providerStatus === 'online', 5000, 'the callback to be applied');
    });
  });

  it(
    "a website provisioned before the upgrade (token from the panel secret) still gets its callbacks; re-registering it stores the new URL's hash",
    async () => {
      // The plugin's clock, moved past a callback re-read's window (CALLBACK_REREAD_SPACING_MS) between the two changes.
      const clock = { offset: 0 };
      await withPlugin(
        async (plugin, sb) => {
          await provision(plugin, 'old.example');
          // What an earlier release left: the provider holds a callback URL whose token came from
          // the panel secret, and the plugin stores that token's hash.
          const oldToken = panelSecretToken('old.example');
          await plugin.provider.updateWebsite('old.example', { callbackUrl: `${plugin.url}/callbacks/website/${oldToken}` });
          const website = plugin.accounts.getWebsite('old.example');
          if (!website) throw new Error('old.example was not provisioned');
          plugin.accounts.saveWebsite({ ...website, callbackTokenHash: hashOf(oldToken) });

          // The sandbox's own signed callback on the old URL is taken.
          await sb.control('POST', '/_sandbox/websites/old.example/dns-verified');
          await waitFor(
            () => plugin.accounts.getWebsite('old.example')?.providerStatus === 'online',
            5000,
            'the old URL callback to be applied',
          );
          expect((await deliveries(sb, 'old.example')).map((c) => [c.url.endsWith(oldToken), c.last_status])).toContainEqual([true, 202]);

          // The panel sends the domain again (a replay, an import): the website is registered again.
          await provision(plugin, 'old.example');
          const newToken = await tokenAtProvider(sb, 'old.example');
          expect(newToken).not.toBe(oldToken);
          expect(plugin.accounts.getWebsite('old.example')?.callbackTokenHash).toBe(hashOf(newToken));
          clock.offset += CALLBACK_REREAD_SPACING_MS;
          await plugin.provider.setWebsiteStatus('old.example', 'paused');
          await waitFor(
            () => plugin.accounts.getWebsite('old.example')?.providerStatus === 'paused',
            5000,
            'the new URL callback to be applied',
          );
          expect((await deliveries(sb, 'old.example')).map((c) => [c.url.endsWith(newToken), c.last_status])).toContainEqual([true, 202]);
          // The old URL is the provider's no longer: it names nothing.
          const stale = await fetch(`${plugin.url}/callbacks/website/${oldToken}`, { method: 'POST', body: '{}' });
          expect(stale.status).toBe(404);
        },
        { now: () => Date.now() + clock.offset },
      );
    },
    PROCESSES,
  );
});

describe('notifications', () => {
  const NOTIFY_SECRET = 'the-receivers-own-secret-0123456789';

  async function pauseOneWebsite(plugin: Plugin, sb: TestSandbox) {
    expect((await plugin.postEvents({ type: 'domain.added', account: 'lea', domain: 'over.example' })).status).toBe(202);
    await plugin.idle();
    plugin.stats.setLimits('global', '', { websiteHits: 100 });
    await sb.control('POST', '/_sandbox/websites/over.example/traffic', { hits: 500, blocked: 0 });
    await plugin.syncStatistics();
    expect((await plugin.enforceLimits()).paused).toBe(1);
    await plugin.idle();
  }

  it('carry a signature made with WPP_NOTIFY_SECRET, which the panel secret does not verify', async () => {
    const receiver = await startReceiver();
    try {
      await withPlugin(
        async (plugin, sb) => {
          await pauseOneWebsite(plugin, sb);
          const [sent] = receiver.received;
          expect(receiver.received).toHaveLength(1);
          expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({
            event: 'enforcement.action',
            action: { action: 'pause', domain: 'over.example' },
          });
          expect(sent?.headers['x-wpp-signature']).toBe(signBody(sent?.body ?? '', NOTIFY_SECRET));
          expect(sent?.headers['x-wpp-signature']).not.toBe(signBody(sent?.body ?? '', TEST_PANEL_SECRET));
        },
        { env: { WPP_NOTIFY_URL: receiver.url, WPP_NOTIFY_SECRET: NOTIFY_SECRET } },
      );
    } finally {
      await receiver.close();
    }
  });

  it('without WPP_NOTIFY_SECRET carry a signature made with the generated notify-secret (0600), not the panel secret', async () => {
    const receiver = await startReceiver();
    try {
      await withPlugin(
        async (plugin, sb) => {
          await pauseOneWebsite(plugin, sb);
          const generated = secretFile(plugin.dataDir, 'notify-secret');
          expect(mode(join(plugin.dataDir, 'notify-secret'))).toBe('0600');
          expect(generated).not.toBe(TEST_PANEL_SECRET);
          const [sent] = receiver.received;
          expect(sent?.headers['x-wpp-signature']).toBe(signBody(sent?.body ?? '', generated));
          expect(sent?.headers['x-wpp-signature']).not.toBe(signBody(sent?.body ?? '', TEST_PANEL_SECRET));
        },
        { env: { WPP_NOTIFY_URL: receiver.url } },
      );
    } finally {
      await receiver.close();
    }
  });
});

describe('the notification secret on the Settings page', () => {
  it(
    'shows the generated secret to an admin, and to no customer or visitor',
    async () => {
      await withPlugin(async (plugin) => {
        const admin = createPageClient(plugin.url);
        expect((await admin.get(await cliLaunchUrl(plugin.dataDir, plugin.url, ['--admin', 'root']))).status).toBe(303);
        const page = await admin.get('/admin/settings');
        const generated = secretFile(plugin.dataDir, 'notify-secret');
        expect(page.status).toBe(200);
        expect(page.headers.get('cache-control')).toBe('no-store');
        expect(page.body).toContain(generated);
        expect(textOf(page.body)).toContain('Notification signing secret');

        const customer = createPageClient(plugin.url);
        expect((await customer.get(await cliLaunchUrl(plugin.dataDir, plugin.url, ['--account', 'alice']))).status).toBe(303);
        for (const path of ['/panel', '/panel/domains', '/admin/settings', '/admin']) {
          const answer = await customer.get(path);
          expect(answer.body, path).not.toContain(generated);
        }
        // The customer's own cookie under the admin's name: refused (item 1), and nothing shown.
        const swapped = createPageClient(plugin.url);
        swapped.cookies.set('wpp_admin', customer.cookies.get('wpp_customer') ?? '');
        const refused = await swapped.get('/admin/settings');
        expect(refused.status).not.toBe(200);
        expect(refused.body).not.toContain(generated);
        const visitor = await createPageClient(plugin.url).get('/admin/settings');
        expect(visitor.status).toBe(401);
        expect(visitor.body).not.toContain(generated);
      });
    },
    PROCESSES,
  );

  it(
    'says the secret comes from WPP_NOTIFY_SECRET when it is set, without showing it',
    async () => {
      const fromEnvironment = 'set-by-the-administrator-0123456789';
      await withPlugin(
        async (plugin) => {
          const admin = createPageClient(plugin.url);
          expect((await admin.get(await cliLaunchUrl(plugin.dataDir, plugin.url, ['--admin', 'root']))).status).toBe(303);
          const page = await admin.get('/admin/settings');
          expect(page.status).toBe(200);
          expect(page.body).not.toContain(fromEnvironment);
          expect(textOf(page.body)).toContain('WPP_NOTIFY_SECRET');
        },
        { env: { WPP_NOTIFY_SECRET: fromEnvironment } },
      );
    },
    PROCESSES,
  );
});
