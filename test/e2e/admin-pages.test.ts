/**
 * An admin runs the fleet in a real browser: launches from the panel, reads the overview,
 * searches websites, opens one, pauses and resumes it (seen at the sandbox), and retries a
 * dead job until the worker has done it. Screenshots of every admin page at 1280 and 390 px.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, launchUrl, screenshots } from '../helpers/pages.js';
import { withPlugin, type TestPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const requestedStatus = async (sandbox: TestSandbox, domain: string) =>
  (await sandbox.control<{ domain: string; requested_status: string }[]>('GET', '/v1.0/website')).find((w) => w.domain === domain)
    ?.requested_status;

/** Three customers' websites, protected, with traffic synced and enforced; and one domain.added that died while the provider failed. */
async function fleetWithADeadJob(plugin: TestPlugin, sandbox: TestSandbox): Promise<number> {
  const domains = { alice: ['alice-shop.example', 'alice-blog.example'], bob: ['bob-photos.example'], carol: ['carol-travel.example'] };
  for (const [account, names] of Object.entries(domains)) {
    await plugin.postEvents([
      { type: 'account.created', account, email: `${account}@mail.example` },
      ...names.map((domain) => ({ type: 'domain.added', account, domain })),
    ]);
  }
  await plugin.idle();
  for (const domain of Object.values(domains).flat()) {
    await sandbox.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
    await sandbox.control('POST', `/_sandbox/websites/${domain}/traffic`, { hits: 1500, blocked: 300 });
  }
  await plugin.syncStatistics();
  // bob's website over its limit (paused by enforcement), carol's near hers (a warning).
  const layer = { period: null, anchorDay: null, accountHits: null, domainLimit: null, warningPercent: null, exempt: null };
  plugin.stats.setLimits('website', 'bob-photos.example', { ...layer, websiteHits: 1000 });
  plugin.stats.setLimits('website', 'carol-travel.example', { ...layer, websiteHits: 1800 });
  plugin.stats.setLimits('website', 'alice-shop.example', { ...layer, websiteHits: 5000 });
  await plugin.enforceLimits();
  await sandbox.control('POST', '/_sandbox/faults', { mode: 'error' });
  await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: 'alice-news.example' }]);
  const dead = await waitFor(
    () => plugin.jobs.list({ state: 'dead' }).find((job) => (job.payload as { domain?: string }).domain === 'alice-news.example'),
    20_000,
    'the domain.added to die',
  );
  await sandbox.control('POST', '/_sandbox/faults', { mode: 'none' });
  return dead.id;
}

const clickAndWait = async (page: Page, name: string | RegExp) => {
  // Every button here submits a form: the next document's load is the answer.
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name, exact: true }).click()]);
};

describe('admin pages in a browser', () => {
  it('an admin reads the overview, searches, pauses and resumes a website and retries a dead job', async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        const jobId = await fleetWithADeadJob(plugin, sandbox);
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.goto(launchUrl(plugin, admin('dana-admin')));
          await expect.poll(() => page.locator('h1').textContent()).toBe('Overview');
          const overview = await page.locator('main').innerText();
          // The domain whose set-up died is a website too, from its event on: in error, with the provider's reason.
          expect(overview).toMatch(/5\s+active websites/);
          expect(overview).toMatch(/1\s+in error/);
          expect(overview).toMatch(/\d+\s+dead jobs?: see and retry them/);
          expect(overview).toMatch(/last sync just now: 4 read, 0 failed/);
          expect(overview).toMatch(/1\s+paused: 1 by enforcement/);
          expect(overview).toMatch(/2\s+enforcement actions today \(UTC\): 1 pause, 1 warning/);
          await screenshots(page, 'admin-overview');

          await page.getByRole('link', { name: 'Websites', exact: true }).click();
          await page.getByLabel('Domain or account').fill('alice');
          await clickAndWait(page, 'Search');
          expect(await page.locator('td[data-label="Domain"]').allInnerTexts()).toEqual([
            'alice-blog.example',
            'alice-news.example',
            'alice-shop.example',
          ]);
          await screenshots(page, 'admin-websites');

          await page.getByRole('link', { name: 'alice-shop.example' }).click();
          await expect.poll(() => page.locator('h1').textContent()).toBe('alice-shop.example');
          await clickAndWait(page, 'Pause');
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Paused at the provider');
          expect(await page.locator('main').innerText()).toContain('Paused by an admin');
          expect(await requestedStatus(sandbox, 'alice-shop.example')).toBe('paused');
          await clickAndWait(page, 'Resume');
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Resumed at the provider');
          expect(await requestedStatus(sandbox, 'alice-shop.example')).toBe('online');
          expect(await page.locator('#status-history').innerText()).toMatch(/paused → online/);
          expect(await page.locator('main').innerText()).toMatch(/1,500 of 5,000[\s\S]*Within the limit/);
          await screenshots(page, 'admin-website');

          await page.getByRole('link', { name: 'Accounts', exact: true }).click();
          expect(await page.locator('td[data-label="Account"]').allInnerTexts()).toEqual([
            expect.stringContaining('alice'),
            expect.stringContaining('bob'),
            expect.stringContaining('carol'),
          ]);
          await screenshots(page, 'admin-accounts');

          await page.getByRole('link', { name: 'Jobs', exact: true }).click();
          const deadRow = page.locator('tr', { has: page.getByRole('button', { name: `Retry #${jobId}`, exact: true }) });
          expect(await deadRow.locator('td[data-label="Last error"]').innerText()).toMatch(/500|internal/i);
          await screenshots(page, 'admin-jobs');
          await clickAndWait(page, `Retry #${jobId}`);
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain(`Job #${jobId} queued again`);
          await plugin.idle();
          await page.goto(`${plugin.url}/admin/jobs?state=done`);
          const doneRow = page.locator('tr', { has: page.locator('td[data-label="Job"]', { hasText: new RegExp(`^#${jobId}$`) }) });
          expect(await doneRow.locator('td[data-label="State"]').innerText()).toBe('done');
          expect(plugin.accounts.getWebsite('alice-news.example')?.state).toBe('active');

          await page.getByRole('link', { name: 'Sync & enforcement' }).click();
          const runs = await page.locator('main').innerText();
          expect(runs).toMatch(/Statistics sync #\d+/);
          expect(runs).toMatch(/bob \/ bob-photos\.example\s+pause\s+enforcement\s+website limit\s+1,500\s+1,000/);
          await screenshots(page, 'admin-runs');
        });
      },
      { env: { WPP_JOB_MAX_ATTEMPTS: '2' } },
    );
  }, 120_000);

  it('an admin bulk-protects the domains left in setup, then lowers and raises a limit and sees enforcement pause and resume', async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        await plugin.postEvents([
          { type: 'account.created', account: 'erin' },
          { type: 'domain.added', account: 'erin', domain: 'erin-shop.example' },
          { type: 'domain.added', account: 'erin', domain: 'erin-blog.example' },
        ]);
        await plugin.idle();
        expect(await requestedStatus(sandbox, 'erin-shop.example')).toBe('setup');
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.goto(launchUrl(plugin, admin('dana-admin')));
          await page.getByRole('link', { name: 'Bulk protect' }).click();
          expect(await page.getByTestId('setup-count').innerText()).toBe('2');
          await screenshots(page, 'admin-bulk-protect');
          await clickAndWait(page, 'Protect 2 domains');
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Queued: 2 websites to protect');
          await plugin.idle();
          for (const domain of ['erin-shop.example', 'erin-blog.example']) {
            expect(await requestedStatus(sandbox, domain), domain).toBe('online');
            await sandbox.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
          }
          await plugin.syncStatistics();
          await sandbox.control('POST', '/_sandbox/websites/erin-shop.example/traffic', { hits: 1500 });
          await plugin.syncStatistics();

          const setWebsiteLimit = async (hits: string) => {
            await page.goto(`${plugin.url}/admin/settings`);
            await page.getByLabel('Scope').selectOption('website');
            await page.getByLabel('Subject').fill('erin-shop.example');
            await page.getByLabel('Hits per website').fill(hits);
            await clickAndWait(page, 'Save limits');
            await expect.poll(() => page.getByRole('status').first().textContent()).toContain('The limits were saved');
            // The schedule runs enforcement after each sync; the test runs the pass itself.
            await plugin.enforceLimits();
            await page.goto(`${plugin.url}/admin/websites/erin-shop.example`);
            return page.locator('main').innerText();
          };
          expect(await setWebsiteLimit('1000')).toMatch(/paused by the hit limit/i);
          expect(await requestedStatus(sandbox, 'erin-shop.example')).toBe('paused');
          expect(await setWebsiteLimit('5000')).toMatch(/1,500 of 5,000/);
          expect(await requestedStatus(sandbox, 'erin-shop.example')).toBe('online');
          await page.goto(`${plugin.url}/admin/runs`);
          const log = await page.locator('main').innerText();
          expect(log).toMatch(/erin-shop\.example\s+resume/);
          expect(log).toMatch(/erin-shop\.example\s+pause/);
        });
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  }, 120_000);
});
