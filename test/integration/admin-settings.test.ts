/**
 * The admin Settings page over HTTP, on the real plugin and sandbox: limits, plans,
 * auto-protect and the notification URL change by the rules of the CLI, each change recorded
 * with `admin:<name>`; a refused form shows each message next to its field and stores nothing.
 * The demo panel exists only with the embedded sandbox: these plugins use an external one.
 */
import { describe, expect, it } from 'vitest';
import { admin, launchUrl } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { withPlugin } from '../helpers/plugin.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

/** An admin's page client, signed in. */
async function signIn(plugin: Plugin, name = 'alice-admin') {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, admin(name)))).status).toBe(303);
  expect((await client.get('/admin/settings')).status).toBe(200);
  return client;
}

/** The form field whose control has this id, with its messages. */
function field(html: string, id: string): { invalid: boolean; text: string } {
  const match = new RegExp(`<div class="field( invalid)?">\\s*<label for="${id}">[\\s\\S]*?</div>`).exec(html);
  if (!match) throw new Error(`no field ${id} in the page`);
  return { invalid: match[1] !== undefined, text: textOf(match[0]) };
}

describe('admin settings: limits', () => {
  it('shows a bad value next to its field and changes nothing; a good change is stored and recorded with the admin', async () => {
    await withPlugin(async (plugin) => {
      const client = await signIn(plugin);
      const bad = await client.post('/admin/settings/limits', { scope: 'global', 'website-hits': 'abc', 'warning-percent': '80' });
      expect(bad.status).toBe(400);
      expect(field(bad.body, 'limit-website-hits')).toEqual({
        invalid: true,
        text: expect.stringContaining('"abc" is not a whole number'),
      });
      expect(field(bad.body, 'limit-warning-percent').invalid).toBe(false);
      expect(bad.body).toContain('value="abc"');
      expect([...plugin.stats.limitLayers()]).toEqual([]);
      expect(plugin.audit.listChanges()).toEqual([]);

      const unknown = await client.post('/admin/settings/limits', { scope: 'account', subject: 'nobody', 'website-hits': '10' });
      expect(unknown.status).toBe(400);
      expect(field(unknown.body, 'limit-subject').text).toContain('the plugin knows no account "nobody"');
      const nothing = await client.post('/admin/settings/limits', { scope: 'global' });
      expect(nothing.status).toBe(400);
      expect(textOf(nothing.body)).toContain('nothing to change: give at least one value');
      expect(plugin.audit.listChanges()).toEqual([]);

      const good = await client.post('/admin/settings/limits', { scope: 'global', 'website-hits': '5000', period: 'daily', exempt: '' });
      expect(good.status).toBe(303);
      expect(good.headers.get('location')).toBe('/admin/settings?saved=limits#limits');
      expect(plugin.stats.limitLayer('global', '')).toMatchObject({ websiteHits: 5000, period: 'daily', exempt: null });
      const [change] = plugin.audit.listChanges();
      expect(change).toMatchObject({ actor: 'admin:alice-admin', what: 'limits:global:', before: null });
      const page = textOf((await client.get(good.headers.get('location') ?? '')).body);
      expect(page).toContain('The limits were saved.');
      expect(page).toContain('admin:alice-admin limits:global: period: none → daily websiteHits: none → 5000');
    });
  });
});

describe('admin settings: plans', () => {
  it('refuses a settings patch that is not JSON or not the API next to the field, and stores a good one', async () => {
    await withPlugin(async (plugin) => {
      const client = await signIn(plugin);
      const notJson = await client.post('/admin/settings/plans', { name: 'gold', settings: '{rules:', subdomains: 'www' });
      expect(notJson.status).toBe(400);
      expect(field(notJson.body, 'plan-settings').text).toContain('is not JSON');
      expect(field(notJson.body, 'plan-subdomains').invalid).toBe(false);
      const notApi = await client.post('/admin/settings/plans', {
        name: ' ',
        settings: '{"rules":{"humans":"maybe"}}',
        subdomains: 'bad_label!',
      });
      expect(notApi.status).toBe(400);
      expect(field(notApi.body, 'plan-settings').text).toContain('People (rules.humans):');
      expect(field(notApi.body, 'plan-subdomains').text).toContain('"bad_label!" is not a valid subdomain label');
      expect(field(notApi.body, 'plan-name').text).toContain('the plan name is empty');
      expect(plugin.accounts.listPlans()).toEqual([]);
      expect(plugin.audit.listChanges()).toEqual([]);

      const good = await client.post('/admin/settings/plans', {
        name: 'gold',
        settings: '{"rules":{"humans":"captcha"}}',
        subdomains: 'www, shop',
      });
      expect(good.status).toBe(303);
      expect(plugin.accounts.getPlan('gold')).toEqual({
        name: 'gold',
        settings: { rules: { humans: 'captcha' } },
        subdomains: ['www', 'shop'],
      });
      expect(plugin.audit.listChanges()[0]).toMatchObject({ actor: 'admin:alice-admin', what: 'plan:gold', before: null });
      const kept = await client.post('/admin/settings/plans', { name: 'gold', settings: '', subdomains: 'none' });
      expect(kept.status).toBe(303);
      expect(plugin.accounts.getPlan('gold')).toMatchObject({ settings: { rules: { humans: 'captcha' } }, subdomains: [] });
    });
  });
});

describe('admin settings: auto-protect and the notification URL', () => {
  it('turns auto-protect off, after which a domain added in the panel waits in setup', async () => {
    await withPlugin(async (plugin) => {
      const client = await signIn(plugin, 'bob');
      const off = await client.post('/admin/settings/auto-protect', { action: 'off' });
      expect(off.status).toBe(303);
      expect(plugin.settings.autoProtect()).toBe(false);
      expect(plugin.audit.listChanges()[0]).toMatchObject({ actor: 'admin:bob', what: 'auto_protect', before: true, after: false });
      expect(textOf((await client.get('/admin/settings')).body)).toContain('Off changed by admin:bob on');

      const added = await plugin.postEvents([
        { type: 'account.created', account: 'carol' },
        { type: 'domain.added', account: 'carol', domain: 'carol.example' },
      ]);
      expect(added.status).toBeLessThan(300);
      await plugin.idle();
      expect(plugin.accounts.getWebsite('carol.example')).toMatchObject({ desiredStatus: 'setup' });

      expect((await client.post('/admin/settings/auto-protect', { action: 'environment' })).status).toBe(303);
      expect(plugin.settings.autoProtect()).toBe(true);
      expect((await client.post('/admin/settings/auto-protect', { action: 'maybe' })).status).toBe(400);
    });
  });

  it('refuses a notification URL that is not http(s) next to the field, and sets, turns off and resets one', async () => {
    await withPlugin(async (plugin) => {
      const client = await signIn(plugin);
      const ftp = await client.post('/admin/settings/notify-url', { action: 'set', url: 'ftp://panel.example/notify' });
      expect(ftp.status).toBe(400);
      expect(field(ftp.body, 'notify-url')).toEqual({ invalid: true, text: expect.stringContaining('must be an absolute http(s) URL') });
      const empty = await client.post('/admin/settings/notify-url', { action: 'set', url: ' ' });
      expect(empty.status).toBe(400);
      expect(field(empty.body, 'notify-url').text).toContain('enter the URL enforcement actions are sent to');
      expect(plugin.audit.listChanges()).toEqual([]);

      expect((await client.post('/admin/settings/notify-url', { action: 'set', url: 'https://panel.example/notify/' })).status).toBe(303);
      expect(plugin.settings.notifyUrl()).toBe('https://panel.example/notify');
      expect((await client.post('/admin/settings/notify-url', { action: 'off', url: '' })).status).toBe(303);
      expect(plugin.settings.current().notifyUrl).toBeNull();
      expect(plugin.settings.overrides().notify_url).toMatchObject({ value: null, updatedBy: 'admin:alice-admin' });
      expect((await client.post('/admin/settings/notify-url', { action: 'environment' })).status).toBe(303);
      expect(plugin.settings.overrides().notify_url).toBeNull();
      const history = textOf((await client.get('/admin/settings')).body);
      expect(history).toContain('admin:alice-admin notify_url https://panel.example/notify → none');
      expect(history).toContain('admin:alice-admin notify_url none → https://panel.example/notify');
    });
  });
});

describe('the demo panel without the embedded sandbox', () => {
  it('is not found and not linked', async () => {
    await withPlugin(async (plugin) => {
      const client = await signIn(plugin);
      const settings = await client.get('/admin/settings');
      expect(settings.body).toContain('href="/admin/settings"');
      expect(settings.body).not.toContain('/admin/demo');
      expect((await client.get('/admin/demo')).status).toBe(404);
      expect((await client.post('/admin/demo/accounts', { account: 'alice' })).status).toBe(404);
      expect(plugin.accounts.getAccount('alice')).toBeNull();
    });
  });
});
