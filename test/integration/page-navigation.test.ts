/**
 * Finding one's way on the pages without a mouse or sight: a skip link to the content first,
 * and the menu says which item is the current page (aria-current), as screen readers announce
 * it. The run filters mark theirs with a valid attribute, not the escaped literal "page".
 */
import { describe, expect, it } from 'vitest';
import { admin, customer, launchUrl } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { withDemoPlugin, withPlugin } from '../helpers/plugin.js';

/** The main menu's links that carry aria-current, as `href=value`. */
function currentMenuItems(html: string): string[] {
  const nav = /<nav aria-label="Main">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  return [...nav.matchAll(/<a href="([^"]+)"([^>]*)>/g)].flatMap(([, href, rest]) => {
    const current = /aria-current="([^"]*)"/.exec(rest ?? '')?.[1];
    return current ? [`${href}=${current}`] : [];
  });
}

describe('page navigation', () => {
  it('marks the current page in the admin menu, and starts every page with a skip link', async () => {
    await withPlugin(async (plugin) => {
      const client = createPageClient(plugin.url);
      expect((await client.get(launchUrl(plugin, admin()))).status).toBe(303);
      const expected: Record<string, string[]> = {
        '/admin': ['/admin=page'],
        '/admin/websites': ['/admin/websites=page'],
        '/admin/accounts': ['/admin/accounts=page'],
        '/admin/jobs?state=dead': ['/admin/jobs=page'],
        '/admin/runs?run=enforce': ['/admin/runs=page'],
        '/admin/settings': ['/admin/settings=page'],
      };
      for (const [path, items] of Object.entries(expected)) {
        const page = await client.get(path);
        expect(page.status, path).toBe(200);
        expect(currentMenuItems(page.body), path).toEqual(items);
        expect(page.body, path).toMatch(/<body>\s*<a class="skip-link" href="#main">Skip to the content<\/a>/);
        expect(page.body, path).toContain('<main id="main"');
      }
      const runs = (await client.get('/admin/runs?run=enforce')).body;
      expect(runs).toContain('<a href="/admin/runs?run=enforce" aria-current="page">Enforcement passes</a>');
      expect(runs).not.toContain('&#34;page&#34;');
    });
  });

  it("marks My domains on the customer's list, and as the section on a domain's page", async () => {
    await withPlugin(async (plugin) => {
      await plugin.postEvents([
        { type: 'account.created', account: 'erin' },
        { type: 'domain.added', account: 'erin', domain: 'erin.example' },
      ]);
      await plugin.idle();
      const client = createPageClient(plugin.url);
      expect((await client.get(launchUrl(plugin, customer('erin')))).status).toBe(303);
      expect(currentMenuItems((await client.get('/panel')).body)).toEqual(['/panel=page']);
      const domain = await client.get('/panel/domains/erin.example');
      expect(domain.status).toBe(200);
      expect(currentMenuItems(domain.body)).toEqual(['/panel=true']);
    });
  });
});

describe('a page that does not exist', () => {
  it('is an HTML page for a browser, with a way back, and stays a JSON error for API clients', async () => {
    await withPlugin(async (plugin) => {
      const browser = await fetch(`${plugin.url}/no-such-page`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(browser.status).toBe(404);
      expect(browser.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await browser.text();
      expect(html).toContain('<h1>Not found</h1>');
      expect(html).toContain('<a href="/">Back to the start</a>');
      expect(html).toMatch(/<a class="skip-link" href="#main">/);
      const api = await fetch(`${plugin.url}/no-such-page`, { headers: { accept: '*/*' } });
      expect(api.status).toBe(404);
      expect(await api.json()).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
    });
  });
});

describe('a sign-in link that no longer works', () => {
  const staleLink = (plugin: { url: string; dataDir: string }) => launchUrl(plugin, admin(), { now: Date.now() - 60 * 60_000 });

  it('tells the demo user the command that prints a fresh link', async () => {
    await withDemoPlugin(async (plugin) => {
      const answer = await createPageClient(plugin.url).get(staleLink(plugin));
      expect(answer.status).toBe(401);
      expect(textOf(answer.body)).toContain('This sign-in link has expired. Open Web protection from your control panel again.');
      expect(textOf(answer.body)).toContain('In this demo, `npx wpp launch-url --admin NAME` in the plugin’s folder prints a fresh link.');
    });
  });

  it('sends a panel user back to the panel, with no word of the demo', async () => {
    await withPlugin(async (plugin) => {
      const answer = await createPageClient(plugin.url).get(staleLink(plugin));
      expect(answer.status).toBe(401);
      expect(textOf(answer.body)).toContain('This sign-in link has expired. Open Web protection from your control panel again.');
      expect(answer.body).not.toContain('launch-url');
    });
  });
});
