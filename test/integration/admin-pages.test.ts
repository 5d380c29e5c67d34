/**
 * The admin pages over HTTP, on a real plugin and sandbox: only an admin session gets them;
 * the lists search, filter, sort and page over a seeded fleet; a query a page cannot use is a
 * 400 page; dead jobs go back to pending; an admin's pause and resume reach the sandbox and
 * the website's history; the enforcement log downloads as CSV.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededWebsite, seedViewsDatabase, type ViewsSeedSummary } from '../../bench/lib/views-seed.js';
import { admin, customer, launchUrl } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { startTestPlugin, withPlugin } from '../helpers/plugin.js';
import { startTestSandbox, removeTempDir, type TestSandbox } from '../helpers/sandbox.js';

const N = 300;
const ACCOUNTS = 100;

let sandbox: TestSandbox;
let plugin: Awaited<ReturnType<typeof startTestPlugin>>;
let summary: ViewsSeedSummary;

beforeAll(async () => {
  sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  // No worker: the tests look at jobs as the pages leave them, and drain when they mean to.
  plugin = await startTestPlugin(sandbox, { worker: false });
  summary = seedViewsDatabase(plugin.db, { n: N, accounts: ACCOUNTS, days: 1 });
}, 60_000);

afterAll(async () => {
  await plugin?.close();
  await sandbox?.close();
  if (plugin) removeTempDir(plugin.dataDir);
  if (sandbox) removeTempDir(sandbox.dataDir);
});

async function signedInAdmin(name = 'alice-admin') {
  const client = createPageClient(plugin.url);
  const launched = await client.get(launchUrl(plugin, admin(name)));
  expect(launched.status).toBe(303);
  // A page first: its forms carry the session's CSRF token.
  expect((await client.get('/admin')).status).toBe(200);
  return client;
}

const seeded = (predicate: (w: ReturnType<typeof seededWebsite>) => boolean) =>
  Array.from({ length: N }, (_, i) => seededWebsite(i, ACCOUNTS, 10_000)).filter(predicate);

/** The website domains a list page shows, in order. */
const listedDomains = (html: string) => [...html.matchAll(/<td data-label="Domain"><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);

const ADMIN_PAGES = ['/admin', '/admin/websites', '/admin/accounts', '/admin/websites/shop-4.views.example', '/admin/jobs', '/admin/runs'];

describe('admin pages: who may see them', () => {
  it('answers a customer session, and no session, with 401 on every admin page and form', async () => {
    const client = createPageClient(plugin.url);
    expect((await client.get(launchUrl(plugin, customer('customer4')))).status).toBe(303);
    expect((await client.get('/panel')).status).toBe(200);
    for (const path of [...ADMIN_PAGES, '/admin/enforcement.csv']) {
      const answer = await client.get(path);
      expect(answer.status, path).toBe(401);
      expect(answer.body).not.toContain('shop-4.views.example</');
      expect((await createPageClient(plugin.url).get(path)).status, path).toBe(401);
    }
    const deadBefore = plugin.jobs.counts().dead;
    expect((await client.post('/admin/jobs/retry-dead')).status).toBe(401);
    expect((await client.post('/admin/websites/shop-4.views.example/pause')).status).toBe(401);
    expect(plugin.jobs.counts().dead).toBe(deadBefore);
  });

  it('gives an admin every page with its title and h1', async () => {
    const client = await signedInAdmin();
    for (const path of ADMIN_PAGES) {
      const answer = await client.get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.body, path).toMatch(/<title>[^<]+ · Web protection<\/title>/);
      expect(answer.body, path).toMatch(/<h1>[^<]+<\/h1>/);
    }
  });
});

describe('admin pages: the lists', () => {
  it('shows the fleet on the overview: websites by state, accounts, last sync, dead jobs, actions', async () => {
    const client = await signedInAdmin();
    const text = textOf((await client.get('/admin')).body);
    expect(text).toContain(`${N - summary.removed} active websites (${summary.removed} removed)`);
    expect(text).toContain(`${summary.byProviderStatus.pending_dns} waiting for DNS`);
    expect(text).toContain(`${ACCOUNTS} accounts`);
    expect(text).toMatch(/last sync (just now|\d+ minutes? ago): 2\d\d read, 0 failed/);
    expect(text).toContain(`${summary.deadJobs} dead jobs`);
    expect(text).toContain('provider last answered just now');
  });

  it('searches, filters, sorts and pages the websites, keeping the query in every link', async () => {
    const client = await signedInAdmin();
    const shops = await client.get('/admin/websites?q=SHOP&state=online&sort=account');
    expect(shops.status).toBe(200);
    const shopsExpected = seeded((w) => w.domain.startsWith('shop') && !w.removed && w.providerStatus === 'online');
    expect(listedDomains(shops.body)).toEqual(
      shopsExpected
        .sort((a, b) => (a.account === b.account ? (a.domain < b.domain ? -1 : 1) : a.account < b.account ? -1 : 1))
        .map((w) => w.domain),
    );

    const page2 = await client.get('/admin/websites?state=online&sort=domain&dir=desc&page=2');
    const online = seeded((w) => !w.removed && w.providerStatus === 'online')
      .map((w) => w.domain)
      .sort()
      .reverse();
    expect(listedDomains(page2.body)).toEqual(online.slice(50, 100));
    expect(page2.body).toContain('<a href="/admin/websites?state=online&amp;sort=domain&amp;dir=desc&amp;page=3">Next</a>');
    expect(page2.body).toContain('<a href="/admin/websites?state=online&amp;sort=domain&amp;dir=desc">Previous</a>');
    expect(page2.body).toContain('<span class="current" aria-current="page">2</span>');
    expect(textOf(page2.body)).toContain(`${online.length} in all · page 2 of ${Math.ceil(online.length / 50)}`);

    const byUsage = await client.get('/admin/websites?quota=near_or_over&sort=usage&dir=desc');
    const hot = seeded((w) => w.level === 'near' || w.level === 'over').sort((a, b) => b.usage - a.usage || (a.domain < b.domain ? 1 : -1));
    expect(listedDomains(byUsage.body)).toEqual(hot.map((w) => w.domain));
    expect(byUsage.body).toContain('href="/admin/websites?quota=near_or_over&amp;sort=usage&amp;dir=asc"');

    const paused = await client.get('/admin/websites?paused=admin');
    expect(listedDomains(paused.body).sort()).toEqual(
      seeded((w) => w.pausedBy === 'admin' && !w.removed)
        .map((w) => w.domain)
        .sort(),
    );

    const ofAccount = await client.get('/admin/websites?account=customer7');
    expect(listedDomains(ofAccount.body).sort()).toEqual(
      seeded((w) => w.account === 'customer7')
        .map((w) => w.domain)
        .sort(),
    );
  });

  it('leaves out a one-character search and says so under the box', async () => {
    const client = await signedInAdmin();
    const answer = await client.get('/admin/websites?q=s');
    expect(answer.status).toBe(200);
    expect(textOf(answer.body)).toContain('Type at least 2 characters to search');
    expect(textOf(answer.body)).toContain(`${N} in all`);
    expect(textOf(answer.body)).toContain('At least 2 characters');
  });

  it('lists and searches accounts, linking to their websites', async () => {
    const client = await signedInAdmin();
    const answer = await client.get('/admin/accounts?q=customer1');
    expect(textOf(answer.body)).toContain('11 in all');
    expect(answer.body).toContain('href="/admin/websites?account=customer1"');
    const second = await client.get('/admin/accounts?page=2');
    expect(textOf(second.body)).toContain(`${ACCOUNTS} in all · page 2 of 2`);
  });

  it('answers a query a page cannot use with a 400 page that names it, never a 500', async () => {
    const client = await signedInAdmin();
    const bad = [
      '/admin/websites?page=abc',
      '/admin/websites?page=0',
      '/admin/websites?state=bogus',
      '/admin/websites?sort=price',
      '/admin/websites?dir=up',
      '/admin/websites?q=a&q=b',
      '/admin/accounts?page=-1',
      '/admin/jobs?kind=website.explode',
      '/admin/jobs?state=sleeping',
      '/admin/runs?action=delete',
      '/admin/runs?runpage=1.5',
      '/admin/enforcement.csv?action=delete',
    ];
    for (const path of bad) {
      const answer = await client.get(path);
      expect(answer.status, path).toBe(400);
      expect(textOf(answer.body), path).toContain('has a value it cannot use');
    }
    expect(textOf((await client.get('/admin/websites?state=bogus')).body)).toMatch(/state: Invalid option/i);
    expect((await client.get('/admin/websites/no-such.example')).status).toBe(404);
  });
});

describe('admin pages: jobs', () => {
  it('lists dead jobs with their last error, retries one, then all, saying how many', async () => {
    const client = await signedInAdmin();
    const deadPage = await client.get('/admin/jobs?state=dead');
    expect(textOf(deadPage.body)).toContain('provider answered 500: internal error');
    expect(textOf(deadPage.body)).toContain(`Retry all ${summary.deadJobs} dead jobs`);
    const ids = [...deadPage.body.matchAll(/action="\/admin\/jobs\/(\d+)\/retry"/g)].map((m) => Number(m[1]));
    expect(ids).toHaveLength(summary.deadJobs);

    const one = await client.post(`/admin/jobs/${ids[0]}/retry`);
    expect(one.status).toBe(303);
    expect(plugin.jobs.get(ids[0] as number)).toMatchObject({ state: 'pending', attempts: 0 });
    expect(textOf((await client.get(one.headers.get('location') ?? '')).body)).toContain(`Job #${ids[0]} queued again`);

    const again = await client.post(`/admin/jobs/${ids[0]}/retry`);
    expect(again.status).toBe(409);
    expect(textOf(again.body)).toContain('is not dead');

    await client.get('/admin/jobs');
    const all = await client.post('/admin/jobs/retry-dead');
    expect(all.status).toBe(303);
    expect(textOf((await client.get(all.headers.get('location') ?? '')).body)).toContain(`${summary.deadJobs - 1} dead jobs queued again`);
    expect(plugin.jobs.counts().dead).toBe(0);
    for (const id of ids) expect(plugin.jobs.get(id)?.state).toBe('pending');
  });

  it('filters jobs by kind', async () => {
    const client = await signedInAdmin();
    const answer = await client.get('/admin/jobs?kind=website.refresh&state=done');
    const kinds = [...answer.body.matchAll(/<td data-label="Kind">([^<]+)<\/td>/g)].map((m) => m[1]);
    expect(kinds.length).toBe(50);
    expect(new Set(kinds)).toEqual(new Set(['website.refresh']));
  });
});

describe('admin pages: a website', () => {
  const DOMAIN = 'admin-pause.example';

  it('pauses and resumes a website at the provider, refuses while the provider fails, and shows the history', async () => {
    await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: DOMAIN }]);
    await plugin.drain();
    await sandbox.control('POST', `/_sandbox/websites/${DOMAIN}/dns-verified`);
    const atSandbox = async () =>
      (await sandbox.control<{ domain: string; requested_status: string }[]>('GET', '/v1.0/website')).find((w) => w.domain === DOMAIN);
    const client = await signedInAdmin('bob-admin');
    expect((await client.get(`/admin/websites/${DOMAIN}`)).status).toBe(200);

    await sandbox.control('POST', '/_sandbox/faults', { mode: 'error', times: 5 });
    const refused = await client.post(`/admin/websites/${DOMAIN}/pause`);
    expect(refused.status).toBe(503);
    expect(textOf(refused.body)).toContain('The protection service did not answer properly');
    expect(textOf(refused.body)).toContain('Nothing was changed');
    expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ desiredStatus: 'online', pausedBy: null });
    await sandbox.control('POST', '/_sandbox/faults', { mode: 'none' });

    const paused = await client.post(`/admin/websites/${DOMAIN}/pause`);
    expect(paused.status).toBe(303);
    expect((await atSandbox())?.requested_status).toBe('paused');
    expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ desiredStatus: 'paused', pausedBy: 'admin' });
    const pausedPage = textOf((await client.get(paused.headers.get('location') ?? '')).body);
    expect(pausedPage).toContain('Paused at the provider');
    expect(pausedPage).toContain('Paused by an admin');

    expect((await client.post(`/admin/websites/${DOMAIN}/resume`)).status).toBe(303);
    expect((await atSandbox())?.requested_status).toBe('online');
    expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ desiredStatus: 'online', pausedBy: null });

    const page = (await client.get(`/admin/websites/${DOMAIN}`)).body;
    const history = textOf(page.slice(page.indexOf('id="status-history"'), page.indexOf('Enforcement actions</h2>')));
    expect(history).toContain('online → paused');
    expect(history).toContain('– → admin');
    expect(history).toContain('paused → online');
    expect(history).toContain('admin → –');
  });

  it('resumes a website paused by enforcement through the recorded admin override', async () => {
    const client = await signedInAdmin('carol-admin');
    const website = plugin.accounts.getWebsite(DOMAIN);
    if (!website) throw new Error('website missing');
    await plugin.provider.setWebsiteStatus(DOMAIN, 'paused');
    plugin.accounts.saveWebsite({ ...website, desiredStatus: 'paused', pausedBy: 'enforcement' });
    expect((await client.post(`/admin/websites/${DOMAIN}/resume`)).status).toBe(303);
    expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({
      desiredStatus: 'online',
      pausedBy: null,
      adminOverrideUntil: expect.any(Number),
    });
    const log = textOf((await client.get(`/admin/runs?domain=${DOMAIN}`)).body);
    expect(log).toContain('admin resume');
    expect(log).toContain('admin:carol-admin');
  });

  it('queues a re-provision as a fresh domain.added event of the website', async () => {
    const client = await signedInAdmin();
    const answer = await client.post(`/admin/websites/${DOMAIN}/reprovision`);
    expect(answer.status).toBe(303);
    const jobId = Number(new URL(answer.headers.get('location') ?? '', plugin.url).searchParams.get('job'));
    expect(plugin.jobs.get(jobId)).toMatchObject({ kind: 'panel.event', state: 'pending', account: 'alice' });
    expect(plugin.jobs.get(jobId)?.payload).toMatchObject({ type: 'domain.added', account: 'alice', domain: DOMAIN });
    expect(textOf((await client.get(answer.headers.get('location') ?? '')).body)).toContain(
      `Queued for provisioning again. Job #${jobId}.`,
    );
  });
});

describe('admin pages: a website’s forecast and attacks', () => {
  it('forecasts each limit at the rate the statistics sync measured last, and shows the attacks', async () => {
    // The 11th of a 30-day month: at this period's average rate (1,800 hits in ten days) no limit is near.
    let clock = Date.UTC(2026, 10, 11);
    await withPlugin(
      async (own, sb) => {
        await own.postEvents([
          { type: 'account.created', account: 'dora' },
          { type: 'domain.added', account: 'dora', domain: 'dora.example' },
        ]);
        await own.idle();
        own.stats.setLimits('website', 'dora.example', { websiteHits: 100_000 });
        own.stats.setLimits('account', 'dora', { accountHits: 60_000 });
        await own.syncStatistics();
        // Half an hour later, 1,800 more hits: one a second.
        clock += 30 * 60_000;
        await sb.control('POST', '/_sandbox/websites/dora.example/traffic', { hits: 1800 });
        await own.syncStatistics();
        await own.enforceLimits();
        const page = { websites: [], accounts: [], groups: [] };
        const spike = { domain: 'dora.example', account: 'dora', kind: 'attack_spike' as const };
        own.schedule.save({
          ...page,
          spikesStarted: [{ ...spike, startedAt: clock - 50 * 3_600_000, blockedPerHour: 700, baselinePerHour: 3 }],
          spikesEnded: [],
        });
        own.schedule.save({
          ...page,
          spikesStarted: [],
          spikesEnded: [{ domain: 'dora.example', startedAt: clock - 50 * 3_600_000, at: clock - 48 * 3_600_000 }],
        });
        own.schedule.save({
          ...page,
          spikesStarted: [{ ...spike, startedAt: clock - 10 * 60_000, blockedPerHour: 9_000, baselinePerHour: 25 }],
          spikesEnded: [],
        });

        const client = createPageClient(own.url);
        expect((await client.get(launchUrl(own, admin(), { now: clock }))).status).toBe(303);
        const answer = await client.get('/admin/websites/dora.example');
        expect(answer.status).toBe(200);
        const text = textOf(answer.body);
        // 98,200 hits to the website's limit, 58,200 to the account's, at one a second from 00:30 on the 11th.
        expect(text).toContain('Website limit: 12 Nov, 03:00 UTC (tomorrow)');
        expect(text).toContain('Account limit: 11 Nov, 16:00 UTC (in 16 hours)');
        expect(text).toContain('At the rate of about the last half hour.');
        expect(text).toContain('Attack in progress since 11 Nov, 00:20 UTC: about 9,000 blocked hits in the last hour (normally 25).');
        expect(text).toContain(
          'Recent attacks (last 7 days): 8 Nov, 22:30 UTC to 9 Nov, 00:30 UTC: about 700 blocked hits an hour (normally 3).',
        );
      },
      { now: () => clock, worker: true },
    );
  });
});

describe('admin pages: the enforcement log as CSV', () => {
  it('downloads the filtered log with a header row, quoted fields and formulas made text', async () => {
    const at = Date.now();
    const base = { at, account: 'mallory', usage: 5, limitValue: 4, periodStart: at - 1000, periodEnd: at + 1000, statusBefore: 'online' };
    plugin.stats.recordAction({
      ...base,
      domain: 'csv.example',
      action: 'pause',
      actor: 'enforcement',
      reason: '=HYPERLINK("http://x")',
      statusAfter: 'paused',
      actionKey: 'csv-1',
    });
    plugin.stats.recordAction({
      ...base,
      domain: 'csv.example',
      action: 'warning',
      actor: 'enforcement',
      reason: 'near, "very" near',
      statusAfter: 'online',
      actionKey: 'csv-2',
    });
    const client = await signedInAdmin();
    const response = await fetch(`${plugin.url}/admin/enforcement.csv?account=mallory`, {
      headers: { cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="enforcement-log-\d{4}-\d\d-\d\d\.csv"$/);
    const lines = (await response.text()).split('\r\n');
    expect(lines[0]).toBe(
      'id,at_utc,account,domain,action,actor,reason,usage,limit,period_first_day,period_last_day,status_before,status_after',
    );
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(lines[1]).toContain(`,mallory,csv.example,pause,enforcement,"'=HYPERLINK(""http://x"")",5,4,`);
    expect(lines[2]).toContain(`,warning,enforcement,"near, ""very"" near",5,4,`);
    expect(lines[1]).toContain(new Date(at).toISOString());

    const pauses = await fetch(`${plugin.url}/admin/enforcement.csv?action=pause`, {
      headers: { cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
    }).then((r) => r.text());
    const rows = pauses.trim().split('\r\n').slice(1);
    expect(rows).toHaveLength(seeded((w) => w.level === 'over').length + 1);
    expect(rows.every((row) => row.split(',')[4] === 'pause')).toBe(true);
  });
});
