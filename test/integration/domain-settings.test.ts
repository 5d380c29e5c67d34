/**
 * The settings part of the customer's domain page, over HTTP against the real plugin and
 * sandbox: the page shows the last settings read without waiting on the provider (slow or
 * down: the stored settings, with a note that they may be out of date), and every place names
 * a setting with the same words (provider/setting-words.ts): the customer's form, the
 * provider's rules editor, the admin's plans and the messages of a refused form.
 */
import { describe, expect, it } from 'vitest';
import { createPageClient } from '../helpers/page-client.js';
import { admin, customer, launchUrl } from '../helpers/pages.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

const DOMAIN = 'stored.example';

/** A customer's signed-in page client. */
async function signIn(plugin: { url: string; dataDir: string }, account: string) {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, customer(account)))).status).toBe(303);
  return client;
}

/** GETs a page, giving up after `ms`: a page that waits on a slow provider fails here. */
async function pageWithin(client: ReturnType<typeof createPageClient>, url: string, ms: number) {
  const deadline = AbortSignal.timeout(ms);
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await fetch(url, { headers: { cookie }, signal: deadline });
  return { status: response.status, html: await response.text() };
}

const selected = (html: string, name: string) =>
  new RegExp(`<select id="${name}" name="${name}"[\\s\\S]*?<option value="(\\w+)" selected`).exec(html)?.[1];

describe('domain page settings', () => {
  it(
    'shows the stored settings at once while the provider is slow, then down, saying they may be out of date',
    { timeout: 60_000 },
    async () => {
      await withPlugin(async (plugin, sb) => {
        await protectedWebsite(plugin, sb, 'sam', DOMAIN);
        await plugin.provider.updateWebsite(DOMAIN, { settings: { rules: { humans: 'captcha' } } });
        const client = await signIn(plugin, 'sam');
        const first = await client.get(`/panel/domains/${DOMAIN}`);
        expect(first.status).toBe(200);
        expect(selected(first.body, 'rule_humans')).toBe('captcha');

        // The provider now takes 8 s to answer (longer than the plugin's client waits).
        await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 8000 });
        const slow = await pageWithin(client, `${plugin.url}/panel/domains/${DOMAIN}`, 3000);
        expect(slow.status).toBe(200);
        expect(selected(slow.html, 'rule_humans')).toBe('captcha');
        expect(slow.html).toMatch(/Settings as of [^<]*UTC[^<]*may be out of date/);

        // Down: the read behind the page fails and is noted; the next view says so, with the stored settings.
        await sb.control('POST', '/_sandbox/faults', { mode: 'down' });
        const down = await waitFor(
          async () => {
            const page = await pageWithin(client, `${plugin.url}/panel/domains/${DOMAIN}`, 3000);
            return page.html.includes('did not answer') ? page : undefined;
          },
          20_000,
          'the failed read to be noted',
        );
        expect(down.status).toBe(200);
        expect(selected(down.html, 'rule_humans')).toBe('captcha');
        expect(down.html).toMatch(
          /The protection service did not answer at [^<]*\. These are your settings as of [^<]*: they may be out of date\./,
        );
        await sb.control('POST', '/_sandbox/faults', { mode: 'none' });
      });
    },
  );

  it('names every setting with the same words in the form, the rules editor, the plans and the messages', { timeout: 60_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'tia', DOMAIN);
      const client = await signIn(plugin, 'tia');
      const page = (await client.get(`/panel/domains/${DOMAIN}`)).body;
      for (const words of [
        '<label for="lb_upstreams_use_https">Send visitors to your server over HTTPS</label>',
        '<label for="ruleset_wordpress">WordPress</label>',
        '<label for="rule_humans">People</label>',
        '<option value="captcha">Ask for a captcha</option>',
      ])
        expect(page).toContain(words);
      expect(page).toMatch(/id="lb_upstreams_use_https-hint">The protection service connects to your server with HTTPS/);

      // The provider's rules editor (the sandbox's dashboard), with the customer's own key.
      const rules = (await client.get(`/panel/domains/${DOMAIN}/rules`)).body;
      const frameUrl = /<iframe id="rules-editor"[^>]* src="([^"]+)"/.exec(rules)?.[1]?.replaceAll('&amp;', '&') ?? '';
      const editor = await (await fetch(frameUrl)).text();
      expect(editor).toContain('>Send visitors to your server over HTTPS</label>');
      expect(editor).toContain('>WordPress</label>');
      expect(editor).toContain('>People</label>');
      expect(editor).toContain('>Ask for a captcha</option>');

      // A refused form names the field as its label: the summary's line.
      const bad = await client.post(`/panel/domains/${DOMAIN}/settings`, { rule_humans: 'maybe', ipv4: '192.0.2.5', certs_issuer: 'acme' });
      expect(bad.status).toBe(400);
      expect(bad.body).toContain('<a href="#rule_humans">People: choose “Let in”, “Ask for a captcha” or “Turn away”</a>');

      // The admin's plans: what a plan sets, in the same words.
      const adminClient = createPageClient(plugin.url);
      expect((await adminClient.get(launchUrl(plugin, admin()))).status).toBe(303);
      await adminClient.get('/admin/settings');
      const saved = await adminClient.post('/admin/settings/plans', {
        name: 'gold',
        settings: '{"rules":{"humans":"captcha"},"rulesets":{"wordpress":true},"loadbalancer":{"upstreams_use_https":true}}',
      });
      expect(saved.status).toBe(303);
      const plans = (await adminClient.get('/admin/settings')).body;
      for (const line of ['People: Ask for a captcha', 'WordPress: on', 'Send visitors to your server over HTTPS: on'])
        expect(plans).toContain(`<li>${line}</li>`);
      const refused = await adminClient.post('/admin/settings/plans', { name: 'gold', settings: '{"rulesets":{"wordpress":"yes"}}' });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatch(/<a href="#plan-settings">Provider settings \(JSON\): Rule set: WordPress \(rulesets\.wordpress\): /);
    });
  });
});
