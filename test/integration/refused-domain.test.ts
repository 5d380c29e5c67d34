/**
 * A domain the provider refuses (issue 21, part 1): its website row exists from the event on,
 * the customer and the admin see it with the provider's reason, a permanent refusal is not
 * retried, and the customer's Try again (their own domains only) or the admin's Retry
 * provisions it once the cause is fixed.
 */
import { createTranslations, loadCatalogs } from '../../src/core/i18n.js';
import { paths } from '../../src/paths.js';
import { describe, expect, it } from 'vitest';
import { describeWebsite as describeIn, type Audience, type StateInput } from '../../src/core/website-state.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, customer, launchUrl, type LaunchTarget } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

/** The English messages (locales/en.json), as the pages pass them. */
const t = createTranslations(loadCatalogs(paths.locales)).en;
const describeWebsite = (website: StateInput, ...rest: [Audience?, (string | null)?]) => describeIn(website, t, ...rest);

async function signIn(plugin: LaunchTarget, request: Parameters<typeof launchUrl>[1], home: string) {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, request))).status).toBe(303);
  expect((await client.get(home)).status).toBe(200);
  return client;
}

/** The panel.event jobs of `domain`'s domain.added, oldest first. */
const addJobsOf = (
  plugin: { jobs: { list(filter: { limit: number }): { kind: string; payload: unknown; state: string; attempts: number }[] } },
  domain: string,
) =>
  plugin.jobs
    .list({ limit: 1000 })
    .filter((job) => job.kind === 'panel.event' && (job.payload as { domain?: string; type: string }).domain === domain)
    .reverse();

describe('a domain the provider refuses', () => {
  it('has its website row at once, "setting up" while its job runs, then "could not protect" with the reason; the job is dead at once', async () => {
    await withPlugin(async (plugin, sb) => {
      await sb.control('POST', '/_sandbox/nxdomain', { domains: ['nowhere.example'] });
      // The provider answers slowly: the row is there, setting up, before any answer.
      await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 1500, times: 3 });
      expect(
        (
          await plugin.postEvents([
            { type: 'account.created', account: 'alice' },
            { type: 'domain.added', account: 'alice', domain: 'nowhere.example' },
          ])
        ).status,
      ).toBe(202);
      await waitFor(() => plugin.accounts.getWebsite('nowhere.example') !== null, 5000, 'the website row');
      const early = plugin.accounts.getWebsite('nowhere.example');
      expect(early).toMatchObject({ account: 'alice', state: 'active' });
      expect(describeWebsite(early!, 'customer')).toMatchObject({ kind: 'being_set_up', label: 'Setting up' });
      await plugin.idle();

      const website = plugin.accounts.getWebsite('nowhere.example');
      expect(website?.provisioningFailure).toMatchObject({ code: 'domain_unresolvable' });
      expect(website?.provisioningFailure?.reason).toContain('does not resolve');
      const state = describeWebsite(website!, 'customer');
      expect(state).toMatchObject({ kind: 'could_not_protect', label: 'Could not protect', tone: 'bad' });
      expect(state.summary).toContain('does not resolve');
      expect(state.todo).toContain('DNS');
      expect(state.todo).toContain('Try again');
      const jobs = addJobsOf(plugin, 'nowhere.example');
      expect(jobs.map((job) => [job.state, job.attempts])).toEqual([['dead', 1]]);
    });
  });

  it('is still retried after 5xx and 429 answers, and then provisioned', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents([{ type: 'account.created', account: 'alice' }]);
      await plugin.idle();
      await sb.control('POST', '/_sandbox/faults', { mode: 'error', times: 4 });
      await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: 'flaky.example' }]);
      await plugin.idle();
      await sb.control('POST', '/_sandbox/faults', { mode: 'ratelimit', retryAfter: 0, times: 3 });
      await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: 'busy.example' }]);
      await plugin.idle();
      for (const domain of ['flaky.example', 'busy.example']) {
        const website = plugin.accounts.getWebsite(domain);
        expect(website?.provisioningFailure ?? null).toBeNull();
        expect(describeWebsite(website!, 'customer').kind).toBe('waiting_dns');
        const [job] = addJobsOf(plugin, domain);
        expect(job?.state).toBe('done');
        expect(job?.attempts).toBeGreaterThan(1);
      }
    });
  });

  it('shows the failure of its last attempt as could not protect, with the reason, once the job runs out of attempts', async () => {
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents([{ type: 'account.created', account: 'alice' }]);
        await plugin.idle();
        await sb.control('POST', '/_sandbox/faults', { mode: 'error' });
        await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: 'down.example' }]);
        await waitFor(() => addJobsOf(plugin, 'down.example')[0]?.state === 'dead', 10_000, 'the job to run out of attempts');
        await sb.control('POST', '/_sandbox/faults', { mode: 'none' });
        const website = plugin.accounts.getWebsite('down.example');
        expect(addJobsOf(plugin, 'down.example')[0]?.attempts).toBe(2);
        expect(website?.provisioningFailure?.code).toBe('internal_error');
        const state = describeWebsite(website!, 'customer');
        expect(state).toMatchObject({ kind: 'could_not_protect', label: 'Could not protect' });
        expect(state.todo).toContain('Try again');
      },
      { env: { WPP_JOB_MAX_ATTEMPTS: '2' } },
    );
  });

  it('offers the customer Try again on their own domain only, and provisions it once the DNS resolves', async () => {
    await withPlugin(async (plugin, sb) => {
      await sb.control('POST', '/_sandbox/nxdomain', { domains: ['nowhere.example'] });
      await plugin.postEvents([
        { type: 'account.created', account: 'alice' },
        { type: 'domain.added', account: 'alice', domain: 'nowhere.example' },
        { type: 'account.created', account: 'bob' },
        { type: 'domain.added', account: 'bob', domain: 'bob.example' },
      ]);
      await plugin.idle();
      const alice = await signIn(plugin, customer('alice'), '/panel');
      const list = textOf((await alice.get('/panel')).body);
      expect(list).toContain('nowhere.example');
      expect(list).toContain('Could not protect');
      expect(list).toContain('does not resolve');
      const page = (await alice.get('/panel/domains/nowhere.example')).body;
      expect(page).toContain('action="/panel/domains/nowhere.example/retry"');

      // Another account's customer can neither see nor retry it: 404, and nothing queued.
      const bob = await signIn(plugin, customer('bob'), '/panel');
      const before = addJobsOf(plugin, 'nowhere.example').length;
      expect((await bob.post('/panel/domains/nowhere.example/retry')).status).toBe(404);
      expect(addJobsOf(plugin, 'nowhere.example')).toHaveLength(before);
      // Without the session's CSRF token: refused, nothing queued.
      expect((await alice.post('/panel/domains/nowhere.example/retry', { _csrf: 'forged' })).status).toBe(403);
      expect(addJobsOf(plugin, 'nowhere.example')).toHaveLength(before);

      // Still unresolvable: tried again, refused again, with a new time.
      const firstAt = plugin.accounts.getWebsite('nowhere.example')?.provisioningFailure?.at ?? 0;
      await alice.get('/panel/domains/nowhere.example');
      expect((await alice.post('/panel/domains/nowhere.example/retry', { return_to: 'domain' })).status).toBe(303);
      await plugin.idle();
      expect(plugin.accounts.getWebsite('nowhere.example')?.provisioningFailure?.at).toBeGreaterThanOrEqual(firstAt);
      expect(addJobsOf(plugin, 'nowhere.example')).toHaveLength(before + 1);

      // Fixed at the DNS: Try again provisions it.
      await sb.control('DELETE', '/_sandbox/nxdomain', { domains: ['nowhere.example'] });
      await alice.get('/panel/domains/nowhere.example');
      const retried = await alice.post('/panel/domains/nowhere.example/retry', { return_to: 'domain' });
      expect(retried.status).toBe(303);
      expect(retried.headers.get('location')).toBe('/panel/domains/nowhere.example?done=retried');
      await plugin.idle();
      const website = plugin.accounts.getWebsite('nowhere.example');
      expect(website?.provisioningFailure ?? null).toBeNull();
      expect(describeWebsite(website!, 'customer').kind).toBe('waiting_dns');
      expect(textOf((await alice.get('/panel/domains/nowhere.example?done=retried')).body)).toContain('Waiting for DNS');
    });
  });

  it('counts it in error on the admin overview, finds it by search, and shows the reason and Retry on its page', async () => {
    await withPlugin(async (plugin, sb) => {
      await sb.control('POST', '/_sandbox/nxdomain', { domains: ['nowhere.example'] });
      await plugin.postEvents([
        { type: 'account.created', account: 'alice' },
        { type: 'domain.added', account: 'alice', domain: 'nowhere.example' },
      ]);
      await plugin.idle();
      const client = await signIn(plugin, admin(), '/admin');
      expect(textOf((await client.get('/admin')).body)).toMatch(/1 in error/);
      expect(textOf((await client.get('/admin/websites?state=error')).body)).toContain('nowhere.example');
      expect(textOf((await client.get('/admin/websites?q=nowhere')).body)).toContain('nowhere.example');
      const page = textOf((await client.get('/admin/websites/nowhere.example')).body);
      expect(page).toContain('Could not protect');
      expect(page).toContain('does not resolve');
      expect(page).toContain('domain_unresolvable');
      expect(page).toContain('Retry');

      await sb.control('DELETE', '/_sandbox/nxdomain', { domains: ['nowhere.example'] });
      await client.get('/admin/websites/nowhere.example');
      expect((await client.post('/admin/websites/nowhere.example/reprovision')).status).toBe(303);
      await plugin.idle();
      expect(describeWebsite(plugin.accounts.getWebsite('nowhere.example')!, 'admin').kind).toBe('waiting_dns');
      expect(textOf((await client.get('/admin')).body)).toMatch(/0 in error/);
    });
  });
});
