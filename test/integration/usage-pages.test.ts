/**
 * Usage and its consequences on the customer's pages, over HTTP against the real plugin and
 * sandbox: the host's upgrade page (WPP_UPGRADE_URL) for a website the hit limit paused, set,
 * unset and refused when invalid; pausing only after the confirmation step, and only one's
 * own domain; and the enforcement log's CSV with each period's first and last day.
 */
import { describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, customer, launchUrl } from '../helpers/pages.js';
import { testEnv, withPlugin } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

async function signedIn(plugin: Plugin, who: Parameters<typeof launchUrl>[1], now = Date.now()) {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, who, { now }))).status).toBe(303);
  return client;
}

/** alice's shop.example and bob's bob.example, set up at the sandbox. */
async function twoAccounts(plugin: Plugin) {
  await plugin.postEvents([
    { type: 'account.created', account: 'alice' },
    { type: 'domain.added', account: 'alice', domain: 'shop.example' },
    { type: 'account.created', account: 'bob' },
    { type: 'domain.added', account: 'bob', domain: 'bob.example' },
  ]);
  await plugin.idle();
}

/** shop.example as enforcement leaves it: paused by the hit limit at `at`, in the period starting `periodStart`. */
function pausedByTheLimit(plugin: Plugin, at: number, periodStart: number, periodEnd: number) {
  const website = plugin.accounts.getWebsite('shop.example');
  if (!website) throw new Error('shop.example was not set up');
  plugin.accounts.saveWebsite({ ...website, desiredStatus: 'paused', pausedBy: 'enforcement', enforcementPausedPeriod: periodStart });
  plugin.stats.recordAction({
    at,
    account: 'alice',
    domain: 'shop.example',
    action: 'pause',
    actor: 'enforcement',
    reason: 'website_limit',
    usage: 1100,
    limitValue: 1100,
    periodStart,
    periodEnd,
    statusBefore: 'online',
    statusAfter: 'paused',
    actionKey: 'usage-pause-1',
  });
}

const NOV_20 = Date.UTC(2026, 10, 20, 10, 30);
const NOV_1 = Date.UTC(2026, 10, 1);
const DEC_1 = Date.UTC(2026, 11, 1);

describe('a website paused by the hit limit', () => {
  it("says since when and until when, and links the host's upgrade page with the account and domain filled in", async () => {
    await withPlugin(
      async (plugin) => {
        await twoAccounts(plugin);
        pausedByTheLimit(plugin, Date.UTC(2026, 10, 18, 9, 5), NOV_1, DEC_1);
        const page = await (await signedIn(plugin, customer('alice'), NOV_20)).get('/panel/domains/shop.example');
        const text = textOf(page.body);
        expect(text).toContain('Paused since 18 Nov 2026, 09:05 UTC.');
        expect(text).toContain('Protection resumes on 1 Dec 2026, when the next period starts.');
        expect(page.body).toContain('href="https://host.example/upgrade?account=alice&amp;site=shop.example"');
        expect(text).toContain('Raise your limit');
      },
      { env: { WPP_UPGRADE_URL: 'https://host.example/upgrade?account={account}&site={domain}' }, now: () => NOV_20 },
    );
  });

  it('tells the customer to contact their host when no upgrade page is set', async () => {
    await withPlugin(
      async (plugin) => {
        await twoAccounts(plugin);
        pausedByTheLimit(plugin, Date.UTC(2026, 10, 18, 9, 5), NOV_1, DEC_1);
        const page = await (await signedIn(plugin, customer('alice'), NOV_20)).get('/panel/domains/shop.example');
        expect(textOf(page.body)).toContain('To resume sooner, contact your host.');
        expect(page.body).not.toContain('Raise your limit');
      },
      { now: () => NOV_20 },
    );
  });

  it("writes the times in the panel's time zone (WPP_TIME_ZONE) and names it", async () => {
    await withPlugin(
      async (plugin) => {
        await twoAccounts(plugin);
        pausedByTheLimit(plugin, Date.UTC(2026, 10, 18, 9, 5), NOV_1, DEC_1);
        const page = await (await signedIn(plugin, customer('alice'), NOV_20)).get('/panel/domains/shop.example');
        expect(textOf(page.body)).toMatch(/Paused since 18 Nov 2026, 18:05 (JST|GMT\+9)\./);
        expect(textOf(page.body)).toContain('Hits per hour (Asia/Tokyo)');
        expect(page.body).toContain('data-time-zone="Asia/Tokyo"');
      },
      { env: { WPP_TIME_ZONE: 'Asia/Tokyo' }, now: () => NOV_20 },
    );
  });

  it('refuses to start with an upgrade page that is no http(s) URL, and says which setting and why', async () => {
    const sandbox = await startTestSandbox();
    const dataDir = createTempDir('wpp-plugin-');
    try {
      const served = await runWpp(['serve'], { env: testEnv(dataDir, sandbox, { WPP_UPGRADE_URL: 'javascript:alert({account})' }) });
      expect(served.code).not.toBe(0);
      expect(served.stderr).toContain('WPP_UPGRADE_URL: must be an http(s) URL, with {account} and {domain} where the host wants them');
    } finally {
      await sandbox.close();
      removeTempDir(dataDir);
      removeTempDir(sandbox.dataDir);
    }
  });
});

describe('pausing protection', () => {
  it('asks for confirmation first: the Pause form leads to a page, and only its Confirm pauses', async () => {
    await withPlugin(async (plugin, sb) => {
      await twoAccounts(plugin);
      await sb.control('POST', '/_sandbox/websites/shop.example/dns-verified');
      const alice = await signedIn(plugin, customer('alice'));
      await alice.get('/panel');

      const confirm = await alice.get('/panel/domains/shop.example/pause?return_to=list');
      expect(confirm.status).toBe(200);
      const text = textOf(confirm.body);
      expect(text).toContain('Pause protection of shop.example?');
      expect(text).toContain('the protection service lets every visitor through and only watches');
      expect(confirm.body).toMatch(/<form method="post" action="\/panel\/domains\/shop\.example\/pause">/);
      expect(confirm.body).toContain('name="confirm" value="yes"');
      expect(confirm.body).toMatch(/<a [^>]*href="\/panel"[^>]*>Cancel<\/a>/);

      // A POST from an old one-click form, without the confirmation: shown the question, nothing paused.
      const unconfirmed = await alice.post('/panel/domains/shop.example/pause', { return_to: 'list' });
      expect(unconfirmed.status).toBe(303);
      expect(unconfirmed.headers.get('location')).toBe('/panel/domains/shop.example/pause?return_to=list');
      expect(plugin.accounts.getWebsite('shop.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });

      await alice.get('/panel/domains/shop.example/pause?return_to=list');
      const confirmed = await alice.post('/panel/domains/shop.example/pause', { return_to: 'list', confirm: 'yes' });
      expect(confirmed.status).toBe(303);
      expect(confirmed.headers.get('location')).toBe('/panel?done=paused');
      expect(plugin.accounts.getWebsite('shop.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'customer' });
      const after = await alice.get('/panel?done=paused');
      // The result is a warning, not a success: the website is unprotected now.
      expect(after.body).toContain(
        '<p class="note warn" role="status">Protection paused: the protection service now lets every visitor through, unfiltered.',
      );
    });
  });

  it("cannot be asked or confirmed for another account's domain", async () => {
    await withPlugin(async (plugin) => {
      await twoAccounts(plugin);
      const alice = await signedIn(plugin, customer('alice'));
      await alice.get('/panel');
      expect((await alice.get('/panel/domains/bob.example/pause')).status).toBe(404);
      expect((await alice.post('/panel/domains/bob.example/pause', { confirm: 'yes' })).status).toBe(404);
      expect(plugin.accounts.getWebsite('bob.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
    });
  });
});

describe('the enforcement log as CSV', () => {
  it("gives each action's period as its first and last day, the last one inclusive", async () => {
    await withPlugin(async (plugin) => {
      await twoAccounts(plugin);
      pausedByTheLimit(plugin, Date.UTC(2026, 10, 18, 9, 5), NOV_1, DEC_1);
      const client = await signedIn(plugin, admin());
      const csv = await client.get('/admin/enforcement.csv?account=alice');
      const [header, row] = csv.body.split('\r\n');
      expect(header).toBe(
        'id,at_utc,account,domain,action,actor,reason,usage,limit,period_first_day,period_last_day,status_before,status_after',
      );
      expect(row).toContain(',2026-11-01,2026-11-30,');
      expect(row).toContain('2026-11-18T09:05:00.000Z');
      // The log page says the same period, its last day inclusive (not the next period's first day).
      const runs = textOf((await client.get('/admin/runs?account=alice')).body);
      expect(runs).toContain('1 Nov 2026 to 30 Nov 2026');
    });
  });
});
