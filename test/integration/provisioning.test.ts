/**
 * Panel events through the plugin into the real sandbox: what the hosting provider's
 * customers end up with at the provider, checked in the sandbox itself.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CALLBACK_REREAD_SPACING_MS } from '../../src/core/job-queue.js';
import { callbackTokenFor } from '../../src/core/identity.js';
import { deliverEvents } from '../../src/cli/hook.command.js';
import { translateCpanelHook } from '../../src/panel/adapters/cpanel.js';
import { translateDirectAdminHook } from '../../src/panel/adapters/directadmin.js';
import { translatePleskEvent } from '../../src/panel/adapters/plesk.js';
import { ownerFromDomainInfo } from '../../src/panel/plesk-owner.js';
import type { AdapterResult } from '../../src/panel/adapters/result.js';
import type { PanelEvent } from '../../src/panel/events.js';
import { signBody } from '../../src/core/signature.js';
import { callbackKeyOf, TEST_PANEL_SECRET, withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const fixture = (path: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/panels/${path}`, import.meta.url), 'utf8')) as Record<string, unknown>;

const eventsOf = (result: AdapterResult): PanelEvent[] => {
  if (!result.ok) throw new Error(result.error);
  return result.events;
};

interface SandboxWebsite {
  domain: string;
  user_id: string;
  subdomain: string[];
  ip: string[];
  tag: string[];
  requested_status: string;
  status: string;
  callbackUrl: string;
  settings: { rules: Record<string, string>; rulesets: Record<string, boolean>; loadbalancer: Record<string, unknown> };
}

const sandboxUsers = (sb: TestSandbox) => sb.control<{ id: string }[]>('GET', '/v1.0/user');
const sandboxWebsites = (sb: TestSandbox) => sb.control<SandboxWebsite[]>('GET', '/v1.0/website');
const sandboxWebsite = async (sb: TestSandbox, domain: string) => (await sandboxWebsites(sb)).find((w) => w.domain === domain);

const event = (type: string, fields: Record<string, string>) => ({ type, account: 'alice', ...fields });

describe('provisioning from panel events', () => {
  it('creates the provider user and the website with the plan defaults, www, tags, origin IP and a callback token', async () => {
    await withPlugin(async (plugin, sb) => {
      plugin.accounts.savePlan({
        name: 'gold',
        settings: { rules: { humans: 'captcha' }, rulesets: { wordpress: true }, loadbalancer: { cache_dynamic_pages: true } },
        subdomains: ['www'],
      });
      const answer = await plugin.postEvents([
        event('account.created', { email: 'Alice@Example.net', plan: 'gold' }),
        event('domain.added', { domain: 'Alice-Shop.example', ip: '198.51.100.20' }),
      ]);
      expect(answer.status).toBe(202);
      await plugin.idle();

      expect((await sandboxUsers(sb)).map((u) => u.id)).toEqual(['alice@panel.example']);
      const website = await sandboxWebsite(sb, 'alice-shop.example');
      expect(website).toMatchObject({
        user_id: 'alice@panel.example',
        subdomain: ['www'],
        ip: ['198.51.100.20'],
        // The server's id names the server that serves it (accounts that move between servers: docs/fleet.md).
        tag: ['plan:gold', 'server:web1.host.example', `served-by:${plugin.serverId}`],
        requested_status: 'online',
      });
      expect(website?.settings.rules.humans).toBe('captcha');
      expect(website?.settings.rulesets.wordpress).toBe(true);
      expect(website?.settings.loadbalancer.cache_dynamic_pages).toBe(true);
      expect(website?.callbackUrl).toBe(`${plugin.url}/callbacks/website/${callbackTokenFor(callbackKeyOf(plugin), 'alice-shop.example')}`);

      const account = plugin.accounts.getAccount('alice');
      const stored = await sb.control<{ api_key: string }>('GET', '/v1.0/user/alice@panel.example');
      expect(account).toMatchObject({ email: 'alice@example.net', plan: 'gold', providerUserId: 'alice@panel.example', state: 'active' });
      expect(account?.providerApiKey).toBe(stored.api_key);
    });
  });

  it('creates an unknown account first, and uses the server IP when the event names none', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents(event('domain.added', { domain: 'orphan.example' }));
      await plugin.idle();
      expect((await sandboxUsers(sb)).map((u) => u.id)).toEqual(['alice@panel.example']);
      expect((await sandboxWebsite(sb, 'orphan.example'))?.ip).toEqual(['192.0.2.5']);
    });
  });

  it('starts websites in setup when auto-protect is off', async () => {
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents(event('domain.added', { domain: 'later.example' }));
        await plugin.idle();
        expect((await sandboxWebsite(sb, 'later.example'))?.requested_status).toBe('setup');
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  });

  it('replaying every event twice (and again under a new id) leaves exactly one user and one website', async () => {
    await withPlugin(async (plugin, sb) => {
      plugin.accounts.savePlan({ name: 'gold', settings: { rules: { humans: 'captcha' } }, subdomains: ['www'] });
      const steps: [Record<string, string>, (w: SandboxWebsite) => void][] = [
        [event('account.created', { email: 'alice@example.net' }), () => {}],
        [event('domain.added', { domain: 'replay.example' }), (w) => expect(w.requested_status).toBe('online')],
        [event('subdomain.added', { domain: 'replay.example', subdomain: 'shop' }), (w) => expect(w.subdomain).toEqual(['www', 'shop'])],
        [event('subdomain.removed', { domain: 'replay.example', subdomain: 'www' }), (w) => expect(w.subdomain).toEqual(['shop'])],
        [
          event('plan.changed', { plan: 'gold' }),
          (w) => {
            expect(w.settings.rules.humans).toBe('captcha');
            expect(w.tag).toContain('plan:gold');
          },
        ],
        [event('account.suspended', {}), (w) => expect(w.requested_status).toBe('paused')],
        [event('account.unsuspended', {}), (w) => expect(w.requested_status).toBe('online')],
        [event('domain.removed', { domain: 'replay.example' }), (w) => expect(w.requested_status).toBe('paused')],
        [event('domain.added', { domain: 'replay.example' }), (w) => expect(w.requested_status).toBe('online')],
        [event('account.deleted', {}), (w) => expect(w.requested_status).toBe('paused')],
      ];
      for (const [i, [step, check]] of steps.entries()) {
        const id = `step-${i}`;
        const first = await plugin.postEvents({ ...step, id });
        const replay = await plugin.postEvents({ ...step, id });
        expect(first.status, `${step.type} first`).toBe(202);
        expect(replay.status, `${step.type} replay`).toBe(200);
        expect(replay.body.events[0].job).toBe(first.body.events[0].job);
        // The same event delivered again later, under another id, must converge too.
        expect((await plugin.postEvents({ ...step, id: `${id}-again` })).status).toBe(202);
        await plugin.idle();
        const websites = await sandboxWebsites(sb);
        expect(websites.map((w) => w.domain)).toEqual(i === 0 ? [] : ['replay.example']);
        if (i > 0) check(websites[0] as SandboxWebsite);
        expect((await sandboxUsers(sb)).map((u) => u.id)).toEqual(['alice@panel.example']);
      }
      expect(plugin.jobs.counts().dead).toBe(0);
      expect(plugin.accounts.getAccount('alice')?.state).toBe('deleted');
      expect(plugin.accounts.getWebsite('replay.example')).toMatchObject({ state: 'removed', pausedBy: 'account_deleted' });
    });
  });

  it('unsuspension resumes only what the suspension paused', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents([
        event('account.created', {}),
        event('domain.added', { domain: 'mine.example' }),
        event('domain.added', { domain: 'customer-paused.example' }),
      ]);
      await plugin.idle();
      // The customer paused one website themselves (the panel view does this through the provider).
      const own = plugin.accounts.getWebsite('customer-paused.example');
      await plugin.provider.setWebsiteStatus('customer-paused.example', 'paused');
      plugin.accounts.saveWebsite({ ...own!, desiredStatus: 'paused', pausedBy: 'customer' });

      await plugin.postEvents(event('account.suspended', {}));
      await plugin.idle();
      expect((await sandboxWebsite(sb, 'mine.example'))?.requested_status).toBe('paused');
      expect(plugin.accounts.getWebsite('mine.example')?.pausedBy).toBe('suspension');
      expect(plugin.accounts.getWebsite('customer-paused.example')?.pausedBy).toBe('customer');

      await plugin.postEvents(event('account.unsuspended', {}));
      await plugin.idle();
      expect((await sandboxWebsite(sb, 'mine.example'))?.requested_status).toBe('online');
      expect((await sandboxWebsite(sb, 'customer-paused.example'))?.requested_status).toBe('paused');
      expect(plugin.accounts.getWebsite('customer-paused.example')?.pausedBy).toBe('customer');
    });
  });

  it('gives up at once, keeping the reason, when a website has no origin IP', async () => {
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents(event('domain.added', { domain: 'no-origin.example' }));
        await plugin.idle();
        const dead = plugin.jobs.list({ state: 'dead' });
        expect(dead).toHaveLength(1);
        expect(dead[0]?.lastError).toMatch(/No origin IP for no-origin.example/);
        expect(await sandboxWebsite(sb, 'no-origin.example')).toBeUndefined();
      },
      { env: { WPP_SERVER_IP: '' } },
    );
  });

  it('moves a domain one customer removed to the customer who adds it next', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents({ type: 'domain.added', account: 'alice', domain: 'moving.example' });
      await plugin.postEvents({ type: 'domain.removed', account: 'alice', domain: 'moving.example' });
      await plugin.idle();
      expect((await sandboxWebsite(sb, 'moving.example'))?.requested_status).toBe('paused');
      // While alice still has it, bob cannot take it: that is a conflict for an admin, not a silent move.
      await plugin.postEvents({ type: 'domain.added', account: 'bob', domain: 'moving.example' });
      await plugin.idle();
      expect(await sandboxWebsite(sb, 'moving.example')).toMatchObject({ user_id: 'bob@panel.example', requested_status: 'online' });
      expect(plugin.accounts.getWebsite('moving.example')).toMatchObject({ account: 'bob', state: 'active', pausedBy: null });
      expect(plugin.jobs.counts().dead).toBe(0);

      await plugin.postEvents({ type: 'domain.added', account: 'carol', domain: 'moving.example' });
      await plugin.idle();
      const dead = plugin.jobs.list({ state: 'dead' });
      expect(dead.map((job) => job.lastError)).toEqual([expect.stringMatching(/already protected for panel account bob/)]);
      expect((await sandboxWebsite(sb, 'moving.example'))?.user_id).toBe('bob@panel.example');
    });
  });

  it('registers the panel server with the provider once', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.idle();
      expect(plugin.accounts.getFact(`server_registered:192.0.2.5:${plugin.serverId}`)).not.toBeNull();
      const partner = await sb.control<{ server: string[] }>('GET', `/v1.0/user/${encodeURIComponent('partner@sandbox.local')}`);
      expect(partner.server).toEqual(['192.0.2.5']);
      const registrations = (await sb.control<{ method: string; path: string }[]>('GET', '/_sandbox/requests?limit=1000')).filter(
        (r) => r.method === 'POST' && r.path === '/v1.0/server',
      );
      expect(registrations).toHaveLength(1);
    });
  });
});

describe('the plugin clock', () => {
  it('times jobs, their retries and provisioning records by the injected clock, not the machine clock', async () => {
    let time = Date.parse('2031-03-04T05:06:07Z');
    await withPlugin(
      async (plugin, sb) => {
        // The server registration queued at start, out of the way first.
        expect(await plugin.drain()).toEqual({ done: 1, failed: 0, dead: 0 });
        await sb.control('POST', '/_sandbox/faults', { mode: 'error' });
        await plugin.postEvents([
          event('account.created', { email: 'alice@example.net' }),
          event('domain.added', { domain: 'clock.example', ip: '198.51.100.20' }),
        ]);
        const created = plugin.jobs.list({ state: 'pending' }).find((job) => (job.payload as PanelEvent).type === 'account.created')!;
        expect(created).toMatchObject({ createdAt: time, runAt: time });

        expect(await plugin.drain()).toEqual({ done: 0, failed: 1, dead: 0 });
        const retry = plugin.jobs.get(created.id)!;
        expect(retry).toMatchObject({ state: 'pending', attempts: 1 });
        // The test plugin's backoff: base 20 ms, jitter in the upper half.
        expect(retry.runAt - time).toBeGreaterThanOrEqual(10);
        expect(retry.runAt - time).toBeLessThanOrEqual(20);
        // However long the machine waited, the retry is not due until the plugin's clock says so.
        await sb.control('POST', '/_sandbox/faults', { mode: 'none' });
        expect(await plugin.drain()).toEqual({ done: 0, failed: 0, dead: 0 });

        time = retry.runAt;
        // Both events run now (a status callback's re-read may run along: not counted here).
        expect(await plugin.drain()).toMatchObject({ failed: 0, dead: 0 });
        expect(plugin.jobs.get(created.id)).toMatchObject({ state: 'done', finishedAt: time });
        expect(plugin.accounts.getAccount('alice')).toMatchObject({ createdAt: time });
        expect(plugin.accounts.getWebsite('clock.example')).toMatchObject({ createdAt: time, providerCheckedAt: time });
      },
      { worker: false, now: () => time },
    );
  });
});

describe('the hooks endpoint refuses bad input and writes nothing', () => {
  it('answers 401 without a valid signature and 400 for bad bodies, leaving the queue untouched', async () => {
    await withPlugin(async (plugin) => {
      await plugin.idle();
      const before = plugin.jobs.counts();
      const good = event('domain.added', { domain: 'fine.example' });

      const unsigned = await plugin.postEvents(good, null);
      expect(unsigned.status).toBe(401);
      expect(unsigned.body).toMatchObject({ status: 'error', code: 'UNAUTHORIZED' });
      expect((await plugin.postEvents(good, 'sha256=' + '0'.repeat(64))).status).toBe(401);

      const notJson = await plugin.postEvents('{"type":', undefined);
      expect(notJson.status).toBe(400);
      expect(notJson.body.message).toMatch(/not JSON/);

      const missing = await plugin.postEvents(event('domain.added', {}));
      expect(missing.status).toBe(400);
      expect(missing.body.details).toEqual([{ path: 'domain', message: 'domain is required for domain.added' }]);

      const unknown = await plugin.postEvents(event('domain.transferred', { domain: 'x.example' }));
      expect(unknown.status).toBe(400);
      expect(unknown.body.details[0].path).toBe('type');

      const mixed = await plugin.postEvents([good, event('domain.added', { domain: 'not a domain' })]);
      expect(mixed.status).toBe(400);
      expect(mixed.body.details[0].path).toBe('[1].domain');

      // 100 bad events: a small answer that names the first problems and counts the rest.
      const manyBad = Array.from({ length: 100 }, (_, i) => event('domain.added', { domain: `bad domain ${i}` }));
      const raw = await fetch(`${plugin.url}/hooks/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wpp-signature': signBody(JSON.stringify(manyBad), TEST_PANEL_SECRET) },
        body: JSON.stringify(manyBad),
      });
      const text = await raw.text();
      expect(raw.status).toBe(400);
      expect(JSON.parse(text)).toMatchObject({
        code: 'VALIDATION_FAILED',
        details_omitted: 50,
        message: expect.stringContaining('and 95 more'),
      });
      expect(JSON.parse(text).details).toHaveLength(50);
      expect(text.length).toBeLessThan(8 * 1024);

      expect(plugin.jobs.counts()).toEqual(before);
    });
  });
});

describe('callbacks', () => {
  const tokenOf = (website: SandboxWebsite | undefined) => website?.callbackUrl.split('/').pop() ?? '';

  it('takes a genuine callback, re-reads the website and records the real status', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents(event('domain.added', { domain: 'cb.example' }));
      await plugin.idle();
      expect(plugin.accounts.getWebsite('cb.example')?.providerStatus).toBe('pending_dns');
      await sb.control('POST', '/_sandbox/websites/cb.example/dns-verified');
      await waitFor(() => plugin.accounts.getWebsite('cb.example')?.providerStatus === 'online', 5000, 'the callback to be applied');
    });
  });

  it('changes nothing false for a forged callback: unknown token, wrong signature, or a lying payload', async () => {
    // The plugin's clock, moved past a callback re-read's window (CALLBACK_REREAD_SPACING_MS) between two changes.
    const clock = { offset: 0 };
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents(event('domain.added', { domain: 'forged.example' }));
        await plugin.idle();
        await sb.control('POST', '/_sandbox/websites/forged.example/dns-verified');
        await waitFor(() => plugin.accounts.getWebsite('forged.example')?.providerStatus === 'online', 5000, 'online');
        clock.offset += CALLBACK_REREAD_SPACING_MS;
        await plugin.provider.setWebsiteStatus('forged.example', 'paused');
        await waitFor(() => plugin.accounts.getWebsite('forged.example')?.providerStatus === 'paused', 5000, 'paused');
        const jobsBefore = plugin.jobs.counts();
        const post = (token: string, body: unknown, headers: Record<string, string> = {}) =>
          fetch(`${plugin.url}/callbacks/website/${token}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: JSON.stringify(body),
          });
        const lie = { event: 'website.status_changed', domain: 'forged.example', status: 'online', previous_status: 'paused' };

        const unknown = await post('not-a-token', lie);
        expect(unknown.status).toBe(404);
        const badSignature = await post(tokenOf(await sandboxWebsite(sb, 'forged.example')), lie, {
          'x-signature': 'sha256=' + 'a'.repeat(64),
        });
        expect(badSignature.status).toBe(401);
        expect(plugin.jobs.counts()).toEqual(jobsBefore);

        // The right token with a lying payload: the plugin asks the provider and keeps the truth.
        clock.offset += CALLBACK_REREAD_SPACING_MS;
        const lying = await post(tokenOf(await sandboxWebsite(sb, 'forged.example')), lie);
        expect(lying.status).toBe(202);
        await plugin.idle();
        expect(plugin.accounts.getWebsite('forged.example')).toMatchObject({ providerStatus: 'paused' });
      },
      { now: () => Date.now() + clock.offset },
    );
  });
});

describe('a flood of callbacks', () => {
  it('costs one queued re-read and one provider read per website, replays included', async () => {
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents(event('domain.added', { domain: 'flood.example' }));
        await plugin.drain();
        const token = (await sandboxWebsite(sb, 'flood.example'))?.callbackUrl.split('/').pop() ?? '';
        const refreshJobs = () => plugin.jobs.list({ limit: 10_000 }).filter((job) => job.kind === 'website.refresh');
        const lookups = async () =>
          (await sb.control<{ method: string; path: string }[]>('GET', '/_sandbox/requests?limit=1000')).filter(
            (r) => r.method === 'GET' && r.path.startsWith('/v1.0/website?domain=flood.example'),
          ).length;
        // Unsigned (accepted by design) and byte-identical: 200 replays of one callback.
        const body = JSON.stringify({
          event: 'website.status_changed',
          domain: 'flood.example',
          status: 'online',
          previous_status: 'pending_dns',
        });
        const post = () =>
          fetch(`${plugin.url}/callbacks/website/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
            (r) => r.status,
          );
        const answers = await Promise.all(Array.from({ length: 200 }, post));
        expect(answers.every((status) => status === 202)).toBe(true);
        expect(refreshJobs()).toHaveLength(1);

        const before = await lookups();
        await plugin.drain();
        expect((await lookups()) - before).toBe(1);
        // Once that re-read has run, the next callback is news again.
        expect(await post()).toBe(202);
        expect(refreshJobs()).toHaveLength(2);
      },
      { worker: false },
    );
  });
});

describe('recorded panel payloads, each delivered twice', () => {
  it('yield exactly one provider user and website per account and domain, for every panel', async () => {
    await withPlugin(async (plugin, sb) => {
      const run = async (results: AdapterResult[]) => {
        for (const result of results) {
          const events = eventsOf(result);
          const first = await deliverEvents(plugin.config, events);
          const second = await deliverEvents(plugin.config, events);
          expect(second.map((r) => r.jobId)).toEqual(first.map((r) => r.jobId));
          expect(second.every((r) => !r.created)).toBe(true);
        }
        plugin.jobs.counts();
      };
      const cpanel = (name: string) => translateCpanelHook(fixture(`cpanel/${name}.json`));
      // Plesk's domain events name no owner: the hook asks `plesk bin domain --info`, recorded here.
      const owner = ownerFromDomainInfo(readFileSync(new URL('../fixtures/panels/plesk/domain-info-jdoe.txt', import.meta.url), 'utf8'));
      const plesk = (name: string) => {
        const f = fixture(`plesk/${name}.json`) as { event: string; env: Record<string, string> };
        return translatePleskEvent(f.event, f.env, undefined, f.event === 'client_create' ? undefined : owner);
      };
      const directadmin = (name: string) => {
        const f = fixture(`directadmin/${name}.json`) as { hook: string; env: Record<string, string> };
        return translateDirectAdminHook(f.hook, f.env);
      };
      await run([cpanel('accounts-create'), cpanel('whostmgr-addsubdomain'), cpanel('domain-park-addon'), cpanel('domain-park')]);
      await run([plesk('client-create'), plesk('domain-create'), plesk('subdomain-create')]);
      await run([directadmin('user-create-post'), directadmin('domain-create-post-user-creation'), directadmin('subdomain-create-post')]);
      await plugin.idle();
      expect(plugin.jobs.counts().dead).toBe(0);

      const users = (await sandboxUsers(sb)).map((u) => u.id).sort();
      expect(users).toEqual(['alice@panel.example', 'fred@panel.example', 'jdoe@panel.example']);
      const websites = await sandboxWebsites(sb);
      const domains = websites.map((w) => w.domain);
      expect(new Set(domains).size).toBe(domains.length);
      expect(domains).toContain('alice-shop.example');
      expect(domains).toContain('doe-shop.example');
      expect(domains).toContain('fred-site.example');
      expect(websites.find((w) => w.domain === 'alice-shop.example')?.subdomain).toEqual(['www', 'shop']);
      expect(websites.find((w) => w.domain === 'fred-site.example')?.subdomain).toEqual(['www', 'blog']);
      expect(websites.find((w) => w.domain === 'doe-shop.example')?.subdomain).toEqual(['www', 'shop']);
    });
  });
});
