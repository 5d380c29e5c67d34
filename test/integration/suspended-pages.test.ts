/**
 * A suspended or deleted account's pages (issue 18, item 3): its page sessions end when the
 * panel's event is applied, and a suspended customer who opens the pages again sees one page
 * saying the account is suspended, with no form and no rules-editor address (which carries
 * their provider key).
 */
import { describe, expect, it } from 'vitest';
import { customer, launchUrl } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

const DOMAIN = 'alice.example';

async function aliceOnline(plugin: Plugin, sb: TestSandbox): Promise<void> {
  await plugin.postEvents([
    { type: 'account.created', account: 'alice', email: 'alice@example.org' },
    { type: 'domain.added', account: 'alice', domain: DOMAIN },
  ]);
  await plugin.idle();
  await sb.control('POST', `/_sandbox/websites/${DOMAIN}/dns-verified`);
  await waitFor(() => plugin.accounts.getWebsite(DOMAIN)?.providerStatus === 'online', 5000, 'the website to be online');
  await plugin.idle();
}

const requestedAtProvider = async (sb: TestSandbox) =>
  (await sb.control<{ requested_status: string }>('GET', `/v1.0/website?domain=${DOMAIN}`)).requested_status;

describe('a suspended or deleted account’s pages', () => {
  const aliceSessions = (plugin: Plugin) =>
    (plugin.db.prepare("SELECT COUNT(*) AS n FROM sessions WHERE role = 'customer' AND subject = 'alice'").get() as { n: number }).n;

  for (const type of ['account.suspended', 'account.deleted'] as const) {
    it(`end at ${type}`, async () => {
      await withPlugin(async (plugin, sb) => {
        await aliceOnline(plugin, sb);
        const page = createPageClient(plugin.url);
        await page.get(launchUrl(plugin, customer('alice')));
        expect((await page.get('/panel')).status).toBe(200);
        const bob = createPageClient(plugin.url);
        await bob.get(launchUrl(plugin, customer('bob')));

        await plugin.postEvents([{ type, account: 'alice' }]);
        await plugin.idle();
        expect(aliceSessions(plugin)).toBe(0);
        expect((await page.get('/panel')).status).toBe(401);
        // Another customer's session is not touched.
        expect((await bob.get('/panel')).status).toBe(200);
      });
    });
  }

  it('show a suspended customer, freshly launched, that the account is suspended, with no form', async () => {
    await withPlugin(async (plugin, sb) => {
      await aliceOnline(plugin, sb);
      await plugin.postEvents([{ type: 'account.suspended', account: 'alice' }]);
      await plugin.idle();

      const page = createPageClient(plugin.url);
      expect((await page.get(launchUrl(plugin, customer('alice', DOMAIN)))).status).toBe(303);
      for (const path of ['/panel', `/panel/domains/${DOMAIN}`, `/panel/domains/${DOMAIN}/rules`]) {
        const answer = await page.get(path);
        expect(answer.status, path).toBe(403);
        expect(textOf(answer.body), path).toContain('account is suspended');
        expect(answer.body, path).not.toContain('<form');
        // The rules editor's address carries the customer's provider key: never on this page.
        expect(answer.body, path).not.toContain('api-key');
      }
      expect((await page.post(`/panel/domains/${DOMAIN}/resume`, { _csrf: 'x' })).status).toBeGreaterThanOrEqual(400);
      expect(await requestedAtProvider(sb)).toBe('paused');
    });
  });
});
