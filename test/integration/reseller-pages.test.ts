/**
 * The reseller's pages: a reseller signs in from the panel (a launch token of the reseller role)
 * and sees the accounts the panel says are theirs, and nothing of another reseller's or of the
 * host's own customers.
 */
import { describe, expect, it } from 'vitest';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { launchUrl, reseller } from '../helpers/pages.js';
import { startTestPlugin } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { removeTempDir } from '../helpers/temp.js';

const account = (name: string, owner: string | null) => ({
  account: name,
  email: null,
  plan: null,
  providerUserId: `${name}@panel.example`,
  providerApiKey: null,
  state: 'active' as const,
  reseller: owner,
});

describe('the reseller pages', () => {
  it("sign a reseller in to /reseller, listing their own customers and no one else's", async () => {
    const sandbox = await startTestSandbox();
    const plugin = await startTestPlugin(sandbox);
    try {
      plugin.accounts.saveAccount(account('alice', 'res1'));
      plugin.accounts.saveAccount(account('bob', 'res1'));
      plugin.accounts.saveAccount(account('carol', 'res2'));
      plugin.accounts.saveAccount(account('dave', null));
      const client = createPageClient(plugin.url);
      const launched = await client.get(launchUrl({ url: plugin.url, dataDir: plugin.dataDir }, reseller('res1')));
      expect(launched.status).toBe(303);
      expect(launched.headers.get('location')).toBe('/reseller');
      const page = await client.get('/reseller');
      expect(page.status).toBe(200);
      const text = textOf(page.body);
      expect(text).toContain('Your customers');
      expect(text).toContain('alice');
      expect(text).toContain('bob');
      expect(text).not.toContain('carol');
      expect(text).not.toContain('dave');
      // The reseller's cookie opens neither the admin pages nor a customer's.
      expect((await client.get('/admin')).status).toBe(401);
      expect((await client.get('/panel')).status).toBe(401);
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  });
});
