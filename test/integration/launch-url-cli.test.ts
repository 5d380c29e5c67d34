/**
 * `wpp launch-url` as a panel runs it: a real process prints a URL the plugin accepts once,
 * for the role asked, signed with the sign-in key of the data folder (no secret in its
 * environment); bad input is a usage error naming the problem.
 */
import { describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { createPageClient } from '../helpers/page-client.js';
import { TEST_PANEL_SECRET, withPlugin } from '../helpers/plugin.js';

const PROCESSES = 60_000;

describe('wpp launch-url', () => {
  it(
    "prints a one-time URL into the customer's domain page, and one into the admin pages",
    async () => {
      await withPlugin(async (plugin) => {
        const env = {
          WPP_DATA_DIR: plugin.dataDir,
          WPP_PUBLIC_URL: plugin.url,
          WPP_LOG_LEVEL: 'silent',
        };
        // The embedded sandbox's 15 minutes are for a demo: this plugin has a real provider configured.
        const provider = { WPP_PROVIDER_URL: 'http://127.0.0.1:9', WPP_PROVIDER_API_KEY: 'key' };
        const customer = await runWpp(['launch-url', '--account', 'Alice', '--domain', 'Shop.Example', '--panel', 'cpanel'], {
          env: { ...env, ...provider },
        });
        expect(customer.code).toBe(0);
        const url = customer.stdout.trim();
        expect(url).toMatch(new RegExp(`^${plugin.url}/launch\\?token=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
        const claims = JSON.parse(Buffer.from(new URL(url).searchParams.get('token')?.split('.')[0] ?? '', 'base64url').toString());
        expect(claims).toMatchObject({ role: 'customer', account: 'alice', domain: 'shop.example', panel: 'cpanel' });
        expect(claims.expiresAt - claims.issuedAt).toBe(60_000);

        const client = createPageClient(plugin.url);
        const signIn = await client.get(url);
        expect(signIn.status).toBe(303);
        expect(signIn.headers.get('location')).toBe('/panel/domains/shop.example');
        expect((await createPageClient(plugin.url).get(url)).status).toBe(401);

        const admin = await runWpp(['launch-url', '--admin', 'Bob'], { env: { ...env, ...provider } });
        expect(admin.code).toBe(0);
        const adminClient = createPageClient(plugin.url);
        expect((await adminClient.get(admin.stdout.trim())).headers.get('location')).toBe('/admin');
        expect((await adminClient.get('/admin')).status).toBe(200);

        const reseller = await runWpp(['launch-url', '--reseller', 'Res1', '--panel', 'cpanel'], { env: { ...env, ...provider } });
        expect(reseller.code).toBe(0);
        const resellerClient = createPageClient(plugin.url);
        expect((await resellerClient.get(reseller.stdout.trim())).headers.get('location')).toBe('/reseller');
        expect((await resellerClient.get('/reseller')).status).toBe(200);
        expect((await resellerClient.get('/admin')).status).toBe(401);
      });
    },
    PROCESSES,
  );

  it(
    'refuses no role or two, and a domain for an admin or a reseller (exit 2, nothing printed on stdout)',
    async () => {
      const env = { WPP_DATA_DIR: '/nonexistent-wpp-data', WPP_PANEL_SECRET: TEST_PANEL_SECRET, WPP_LOG_LEVEL: 'silent' };
      for (const [args, message] of [
        [[], 'give one of --account'],
        [['--account', 'a', '--admin', 'b'], 'give one of --account'],
        [['--reseller', 'r', '--admin', 'b'], 'give one of --account'],
        [['--admin', 'b', '--domain', 'x.example'], '--domain goes with --account'],
        [['--reseller', 'r', '--domain', 'x.example'], '--domain goes with --account'],
        [['--account', 'a', '--domain', 'not a domain'], 'is not a valid domain name'],
      ] as const) {
        const run = await runWpp(['launch-url', ...args], { env });
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain(message);
      }
    },
    PROCESSES,
  );

  it(
    "carries the panel user's language (--lang) into the pages, and leaves out one that is not a language tag",
    async () => {
      await withPlugin(async (plugin) => {
        const env = { WPP_DATA_DIR: plugin.dataDir, WPP_PUBLIC_URL: plugin.url, WPP_LOG_LEVEL: 'silent' };
        const provider = { WPP_PROVIDER_URL: 'http://127.0.0.1:9', WPP_PROVIDER_API_KEY: 'key' };
        const claimsOf = (url: string) =>
          JSON.parse(Buffer.from(new URL(url).searchParams.get('token')?.split('.')[0] ?? '', 'base64url').toString()) as Record<
            string,
            unknown
          >;

        const german = await runWpp(['launch-url', '--admin', 'root', '--panel', 'webmin', '--lang', 'de_AT.UTF-8'], {
          env: { ...env, ...provider },
        });
        expect(german.code).toBe(0);
        expect(claimsOf(german.stdout.trim())).toMatchObject({ role: 'admin', admin: 'root', locale: 'de-AT' });
        const client = createPageClient(plugin.url);
        expect((await client.get(german.stdout.trim())).status).toBe(303);
        const page = await client.get('/admin/jobs');
        expect(page.body).toContain('<html lang="de">');
        expect(page.body).toContain('<h1>Aufträge</h1>');

        const junk = await runWpp(['launch-url', '--account', 'alice', '--lang', '"><script>'], { env: { ...env, ...provider } });
        expect(junk.code).toBe(0);
        expect(claimsOf(junk.stdout.trim())).not.toHaveProperty('locale');
        expect(junk.stderr).toContain('is not a language tag: the pages open in English');
      });
    },
    PROCESSES,
  );
});
