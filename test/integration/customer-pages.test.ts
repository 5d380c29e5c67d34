/**
 * The customer pages at the HTTP level, against the real plugin and sandbox: a customer sees
 * and changes only their own account's domains, every form needs the session's CSRF token,
 * and a bad form is answered next to the field with nothing sent to the provider.
 */
import { describe, expect, it } from 'vitest';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { customer, launchUrl, type LaunchTarget } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

/** One customer's session (test/helpers/page-client.ts), answering with the page's html; posts carry the last page's CSRF token unless `token` says otherwise (null: none). */
async function signIn(plugin: LaunchTarget, account: string, now = Date.now()) {
  const client = createPageClient(plugin.url);
  const launched = await client.get(launchUrl(plugin, customer(account), { now }));
  expect(launched.status).toBe(303);
  const page = async (path: string) => {
    const answer = await client.get(path);
    return { status: answer.status, html: answer.body };
  };
  const post = async (path: string, fields: Record<string, string>, token: string | null = client.csrfToken ?? '') => {
    const answer = await client.post(path, { ...fields, _csrf: token });
    return { status: answer.status, location: answer.headers.get('location'), html: answer.body };
  };
  await page('/panel');
  return { page, post, csrf: () => client.csrfToken ?? '' };
}

/** The requests that could have changed a website at the sandbox. */
async function changesAt(sb: TestSandbox, domain: string) {
  const requests = await sb.control<{ method: string; path: string }[]>('GET', '/_sandbox/requests?limit=1000');
  return requests.filter((request) => request.method !== 'GET' && request.path.includes(domain));
}

async function setUp(plugin: Plugin) {
  const answer = await plugin.postEvents([
    { type: 'account.created', account: 'alice' },
    { type: 'domain.added', account: 'alice', domain: 'alice.example' },
    { type: 'account.created', account: 'bob' },
    { type: 'domain.added', account: 'bob', domain: 'bob.example' },
  ]);
  expect(answer.status).toBe(202);
  await plugin.idle();
  expect(plugin.accounts.getWebsite('bob.example')).not.toBeNull();
}

/** The form of the settings page as the browser would post it, with `changes` on top. */
function settingsFields(html: string, changes: Record<string, string>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<select id="[^"]+" name="([^"]+)"[\s\S]*?<option value="([^"]*)"[^>]* selected/g))
    fields[name as string] = value as string;
  for (const [, name] of html.matchAll(/type="checkbox" id="[^"]+" name="([^"]+)" value="on" checked/g)) fields[name as string] = 'on';
  fields.subdomains = /name="subdomains" value="([^"]*)"/.exec(html)?.[1] ?? '';
  fields.ipv4 = /name="ipv4"[^>]*>([^<]*)</.exec(html)?.[1] ?? '';
  fields.ipv6 = /name="ipv6"[^>]*>([^<]*)</.exec(html)?.[1] ?? '';
  fields.certs_issuer = /name="certs_issuer" value="(\w+)" checked/.exec(html)?.[1] ?? 'acme';
  return { ...fields, ...changes };
}

describe('customer pages', () => {
  it("never shows or changes another account's domain", async () => {
    await withPlugin(
      async (plugin, sb) => {
        await setUp(plugin);
        const bobKey = plugin.accounts.getAccount('bob')?.providerApiKey as string;
        const bobBefore = plugin.accounts.getWebsite('bob.example');
        const alice = await signIn(plugin, 'alice');
        const list = await alice.page('/panel');
        expect(list.html).toContain('alice.example');
        expect(list.html).not.toContain('bob.example');
        for (const path of [
          '/panel/domains/bob.example',
          '/panel/domains/bob.example?range=30d',
          '/panel/domains/bob.example/rules',
          '/panel/domains/bob.example/rules/check',
          '/panel/domains/nobody.example',
        ]) {
          const answer = await alice.page(path);
          expect(answer.status, path).toBe(404);
          expect(answer.html).not.toContain(bobKey);
        }
        // Bob's own page does carry his key (so the 404s above are not vacuous).
        const bob = await signIn(plugin, 'bob');
        expect((await bob.page('/panel/domains/bob.example/rules')).html).toContain(encodeURIComponent(bobKey));
        await alice.page('/panel');
        for (const action of ['protect', 'pause', 'resume', 'settings']) {
          const answer = await alice.post(`/panel/domains/bob.example/${action}`, {
            rule_humans: 'deny',
            ipv4: '198.51.100.9',
            certs_issuer: 'acme',
          });
          expect(answer.status, action).toBe(404);
        }
        expect(await changesAt(sb, 'bob.example')).toHaveLength(0);
        expect(plugin.accounts.getWebsite('bob.example')).toEqual(bobBefore);
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  });

  it('refuses every form without the session’s CSRF token, changing nothing', async () => {
    await withPlugin(
      async (plugin, sb) => {
        await setUp(plugin);
        const alice = await signIn(plugin, 'alice');
        await alice.page('/panel/domains/alice.example');
        for (const token of [null, 'not-the-token', '']) {
          for (const action of ['protect', 'settings']) {
            const answer = await alice.post(
              `/panel/domains/alice.example/${action}`,
              { rule_humans: 'deny', ipv4: '198.51.100.9', certs_issuer: 'acme' },
              token,
            );
            expect(answer.status, `${action} with ${token}`).toBe(403);
          }
        }
        expect(await changesAt(sb, 'alice.example')).toHaveLength(0);
        expect(plugin.accounts.getWebsite('alice.example')?.desiredStatus).toBe('setup');
        // The real token works.
        const protect = await alice.post('/panel/domains/alice.example/protect', { return_to: 'list' });
        expect(protect).toMatchObject({ status: 303, location: '/panel?done=protected' });
        expect(plugin.accounts.getWebsite('alice.example')?.desiredStatus).toBe('online');
        expect((await alice.page('/panel?done=protected')).html).toContain('Protection requested');
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  });

  it('answers bad settings next to the field and sends nothing; good ones only what changed', async () => {
    await withPlugin(async (plugin, sb) => {
      await setUp(plugin);
      const alice = await signIn(plugin, 'alice');
      const page = await alice.page('/panel/domains/alice.example');
      expect(page.status).toBe(200);
      const bad = await alice.post(
        '/panel/domains/alice.example/settings',
        settingsFields(page.html, { ipv4: '192.0.2.5, 999.1.2.3', rule_humans: 'captcha' }),
      );
      expect(bad.status).toBe(400);
      expect(bad.html).toMatch(/id="ipv4-problem">“999\.1\.2\.3” is not an IPv4 address</);
      // What was typed is shown again, escaped, in its field.
      expect(bad.html).toContain('192.0.2.5, 999.1.2.3</textarea>');
      expect(await changesAt(sb, 'alice.example')).toHaveLength(0);

      const good = await alice.post(
        '/panel/domains/alice.example/settings',
        settingsFields(page.html, { rule_humans: 'captcha', subdomains: 'www, shop' }),
      );
      expect(good).toMatchObject({ status: 303, location: '/panel/domains/alice.example?done=saved#settings' });
      const website = await sb.control<{ subdomain: string[]; settings: { rules: Record<string, string> } }>(
        'GET',
        '/v1.0/website?domain=alice.example',
      );
      expect(website.settings.rules.humans).toBe('captcha');
      expect(website.subdomain).toEqual(['www', 'shop']);
      expect(plugin.accounts.getWebsite('alice.example')?.subdomains).toEqual(['www', 'shop']);
      expect(await changesAt(sb, 'alice.example')).toHaveLength(1);
      expect((await alice.page('/panel/domains/alice.example?done=saved')).html).toContain('Settings saved');
    });
  });

  it('shows the hits per range and the mitigation breakdown from the stored statistics', async () => {
    await withPlugin(async (plugin, sb) => {
      await setUp(plugin);
      await sb.control('POST', '/_sandbox/websites/alice.example/dns-verified');
      await plugin.syncStatistics();
      await sb.control('POST', '/_sandbox/websites/alice.example/traffic', {
        hits: 1000,
        blocked: 120,
        mitigated: 30,
        category: 'content_scrapers',
      });
      await sb.control('POST', '/_sandbox/websites/alice.example/traffic', { hits: 500, blocked: 5, mitigated: 7, category: 'humans' });
      await plugin.syncStatistics();
      expect(plugin.stats.latestMitigation('alice.example')?.detail).toEqual({
        captcha: 37,
        deny: 125,
        byCategory: expect.objectContaining({ content_scrapers: 150, humans: 12 }),
      });
      const alice = await signIn(plugin, 'alice');
      const { html } = await alice.page('/panel/domains/alice.example?range=7d');
      expect(html).toMatch(
        /<td class="num" data-label="Hits">1,500<\/td>\s*<td class="num" data-label="Permitted">1,375<\/td>\s*<td class="num" data-label="Blocked">125<\/td>/,
      );
      expect(html).toMatch(/<div class="value">37<\/div><div class="label">challenged with a captcha/);
      expect(html).toMatch(/Content scrapers<\/td><td class="num" data-label="Mitigated">150</);
      const chart = JSON.parse(
        /<script type="application\/json" id="hits-data" data-chart="hits-chart"[^>]*>([^<]*)</.exec(html)?.[1] ?? '{}',
      );
      // The chart starts at the hour the website was added (a minute ago), not 7 days back.
      const addedHour = Math.floor((plugin.accounts.getWebsite('alice.example')?.createdAt ?? 0) / 3_600_000) * 3600;
      expect(chart.x[0]).toBe(addedHour);
      expect(chart.x.at(-1)).toBe(Math.floor(Date.now() / 3_600_000) * 3600);
      expect(chart.series.map((s: { values: number[] }) => s.values.reduce((a, b) => a + b, 0))).toEqual([1375, 125]);
    });
  });

  it('forecasts at the rate of the period so far while the sync has measured no current rate (a frozen clock)', async () => {
    // The 11th of a 30-day month: ten days of the monthly period have passed.
    const now = Date.UTC(2026, 10, 11);
    await withPlugin(
      async (plugin, sb) => {
        await setUp(plugin);
        await plugin.syncStatistics();
        await sb.control('POST', '/_sandbox/websites/alice.example/traffic', { hits: 1500 });
        await plugin.syncStatistics();
        const alice = await signIn(plugin, 'alice', now);
        const limitCell = async () => /data-label="Limit reached on">([^<]*)</.exec((await alice.page('/panel')).html)?.[1];
        expect(await limitCell()).toBe('not this period');
        // 150 hits a day: 3,000 are reached after 20 days.
        plugin.stats.setLimits('website', 'alice.example', { websiteHits: 3000 });
        expect(await limitCell()).toBe('21 Nov, 00:00 UTC');
        // The account's limit comes first when it is nearer.
        plugin.stats.setLimits('account', 'alice', { accountHits: 2250 });
        expect(await limitCell()).toBe('16 Nov, 00:00 UTC');
        plugin.stats.setLimits('website', 'alice.example', { websiteHits: 1000 });
        expect(await limitCell()).toBe('reached');
      },
      { now: () => now },
    );
  });

  it('forecasts the day and hour a limit is reached at the rate the statistics sync measured last', async () => {
    // The 11th of a 30-day month: at this period's average rate (1,800 hits in ten days) the limit is far off.
    const start = Date.UTC(2026, 10, 11);
    let clock = start;
    await withPlugin(
      async (plugin, sb) => {
        await setUp(plugin);
        plugin.stats.setLimits('website', 'alice.example', { websiteHits: 100_000 });
        await plugin.syncStatistics();
        // Half an hour later, 1,800 more hits: one a second.
        clock += 30 * 60_000;
        await sb.control('POST', '/_sandbox/websites/alice.example/traffic', { hits: 1800 });
        await plugin.syncStatistics();
        expect(plugin.schedule.get('alice.example')?.hitRate).toBeCloseTo(1, 6);
        const limitCell = async () => {
          // A fresh session each time: the clock jumps past a session's life.
          const alice = await signIn(plugin, 'alice', clock);
          return /data-label="Limit reached on">([^<]*)</.exec((await alice.page('/panel')).html)?.[1];
        };
        // 98,200 hits to go at one a second: 27 h 16 min 40 s after 00:30 on the 11th.
        expect(await limitCell()).toBe('12 Nov, 03:00 UTC');
        // A day later the forecast time has passed: reached, whatever the average says.
        clock += 28 * 3_600_000;
        expect(await limitCell()).toBe('reached');
      },
      { now: () => clock },
    );
  });

  it('shows the attack going on and the recent ones on the domain page, and none of another domain', async () => {
    const now = Date.UTC(2026, 10, 20, 10, 30);
    await withPlugin(
      async (plugin) => {
        await setUp(plugin);
        const spike = (startedAt: number, blockedPerHour: number, baselinePerHour: number) => ({
          domain: 'alice.example',
          account: 'alice',
          kind: 'attack_spike' as const,
          startedAt,
          blockedPerHour,
          baselinePerHour,
        });
        const page = { websites: [], accounts: [], groups: [] };
        plugin.schedule.save({ ...page, spikesStarted: [spike(now - 26 * 3_600_000, 900, 12)], spikesEnded: [] });
        plugin.schedule.save({
          ...page,
          spikesStarted: [],
          spikesEnded: [{ domain: 'alice.example', startedAt: now - 26 * 3_600_000, at: now - 25 * 3_600_000 }],
        });
        plugin.schedule.save({ ...page, spikesStarted: [spike(now - 95 * 60_000, 12_500, 40)], spikesEnded: [] });
        const alice = await signIn(plugin, 'alice', now);
        const { html } = await alice.page('/panel/domains/alice.example');
        expect(textOf(html)).toContain(
          'Attack in progress since 20 Nov, 08:55 UTC: about 12,500 blocked hits in the last hour (normally 40).',
        );
        expect(textOf(html)).toContain('19 Nov, 08:30 UTC to 19 Nov, 09:30 UTC: about 900 blocked hits an hour (normally 12).');
        const bob = await signIn(plugin, 'bob', now);
        expect((await bob.page('/panel/domains/bob.example')).html).not.toContain('Attack');
      },
      { now: () => now },
    );
  });

  it('keeps the new-window link and says why when the rules editor cannot load', async () => {
    await withPlugin(
      async (plugin) => {
        await setUp(plugin);
        const alice = await signIn(plugin, 'alice');
        const page = await alice.page('/panel/domains/alice.example/rules');
        expect(page.status).toBe(200);
        expect(page.html).toContain('If the editor does not appear below, open it in a new window.');
        expect(page.html).toMatch(
          /href="http:\/\/127\.0\.0\.1:9\/en\/alice\.example\?key=[^"]+" target="_blank" rel="noopener noreferrer"/,
        );
        expect(JSON.parse((await alice.page('/panel/domains/alice.example/rules/check')).html)).toEqual({ status: 'unreachable' });
      },
      { env: { WPP_RULES_EDITOR_URL: 'http://127.0.0.1:9/{lang}/{domain}?key={api_key}' } },
    );
  });
});
