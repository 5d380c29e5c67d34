/**
 * The demo panel's steps follow what was just done (issue 21, part 1): the account just
 * created, or the domain just added, is the one the next forms are filled in with, and each
 * domain's "Next" is worked out again from its new state, a refused domain included.
 */
import { describe, expect, it } from 'vitest';
import { createPageClient } from '../helpers/page-client.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { withDemoPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

/** The value a form's field is filled in with, on the demo page. */
const valueIn = (html: string, action: string, name: string) => {
  const form = new RegExp(`<form[^>]*action="${action}"[\\s\\S]*?</form>`).exec(html)?.[0] ?? '';
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1];
};

/** The demo table's row of a domain, its tags removed. */
const rowOf = (html: string, domain: string) =>
  (new RegExp(`<tr>\\s*<td data-label="Domain">${domain.replace('.', '\\.')}</td>[\\s\\S]*?</tr>`).exec(html)?.[0] ?? '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('the demo panel follows what was just done', () => {
  it('fills the next forms with the account just created and the domain just added, not the newest ones', async () => {
    await withDemoPlugin(async (plugin) => {
      const client = createPageClient(plugin.url);
      expect((await client.get(launchUrl(plugin, admin('demo-admin')))).status).toBe(303);
      const demo = async (path: string, fields: Record<string, string>) => {
        await client.get('/admin/demo');
        const answer = await client.post(path, fields);
        expect(answer.status).toBe(303);
        return (await client.get(answer.headers.get('location') as string)).body;
      };
      await demo('/admin/demo/accounts', { account: 'alice' });
      await demo('/admin/demo/domains', { account: 'alice', domain: 'blog.example' });
      await waitFor(() => plugin.accounts.getWebsite('blog.example') !== null, 10_000, 'blog.example');
      await demo('/admin/demo/accounts', { account: 'zoe' });
      await waitFor(() => plugin.accounts.getAccount('zoe') !== null, 10_000, 'zoe');

      const created = await demo('/admin/demo/accounts', { account: 'yan' });
      expect(valueIn(created, '/admin/demo/domains', 'account')).toBe('yan');
      expect(valueIn(created, '/admin/demo/customer-view', 'account')).toBe('yan');

      // alice is not the newest account, and shop.example not her first domain: still they are what was just done.
      const added = await demo('/admin/demo/domains', { account: 'alice', domain: 'shop.example' });
      expect(valueIn(added, '/admin/demo/dns-verified', 'domain')).toBe('shop.example');
      expect(valueIn(added, '/admin/demo/traffic', 'domain')).toBe('shop.example');
      expect(valueIn(added, '/admin/demo/customer-view', 'account')).toBe('alice');
      expect(valueIn(added, '/admin/demo/domains', 'account')).toBe('alice');
      // Its row is there at once, and its Next follows its state.
      expect(rowOf(added, 'shop.example')).toMatch(/Setting up|Waiting for DNS/);

      const verified = await demo('/admin/demo/dns-verified', { domain: 'shop.example' });
      expect(valueIn(verified, '/admin/demo/traffic', 'domain')).toBe('shop.example');
      expect(valueIn(verified, '/admin/demo/customer-view', 'account')).toBe('alice');
    });
  });

  it('says what comes next for a domain the provider refused', async () => {
    await withDemoPlugin(async (plugin) => {
      const client = createPageClient(plugin.url);
      expect((await client.get(launchUrl(plugin, admin('demo-admin')))).status).toBe(303);
      await client.get('/admin/demo');
      await client.post('/admin/demo/accounts', { account: 'alice' });
      await client.get('/admin/demo');
      await client.post('/admin/demo/domains', { account: 'alice', domain: 'nowhere.invalid' });
      await waitFor(() => Boolean(plugin.accounts.getWebsite('nowhere.invalid')?.provisioningFailure), 10_000, 'the refusal');
      const row = rowOf((await client.get('/admin/demo')).body, 'nowhere.invalid');
      expect(row).toContain('Could not protect');
      expect(row).toContain('Websites');
      expect(row).toContain('Retry');
    });
  });
});
