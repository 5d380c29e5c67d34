/**
 * What the provider shows is checked against what the host decided (issue 18, item 3). A
 * customer holds their own provider API key (it is in their rules-editor frame's address);
 * with it they can set `status=online` at the provider on a website the host paused. The
 * plugin pauses it again, records who undid it and tells the admin; a customer's own pause
 * stays theirs. All against the real sandbox, the customer's requests sent straight to it.
 */
import { describe, expect, it } from 'vitest';
import { CALLBACK_REREAD_SPACING_MS } from '../../src/core/job-queue.js';
import type { EnforcementAction } from '../../src/core/types.js';
import { customer, admin, launchUrl, reseller } from '../helpers/pages.js';
import { createPageClient } from '../helpers/page-client.js';
import { withPlugin } from '../helpers/plugin.js';
import { startReceiver } from '../helpers/receiver.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

const DOMAIN = 'alice.example';

/**
 * The plugin's clock. A callback's re-read runs at most once per CALLBACK_REREAD_SPACING_MS per
 * website (item 4): the customer's undo comes a window after the host's pause, as it would
 * have to for the re-pause to be immediate; a quicker undo is re-paused when its window ends.
 */
function movableClock() {
  const clock = { offset: 0 };
  return { now: () => Date.now() + clock.offset, passWindow: () => void (clock.offset += CALLBACK_REREAD_SPACING_MS) };
}

async function aliceOnline(plugin: Plugin, sb: TestSandbox): Promise<string> {
  await plugin.postEvents([
    { type: 'account.created', account: 'alice', email: 'alice@example.org' },
    { type: 'domain.added', account: 'alice', domain: DOMAIN },
  ]);
  await plugin.idle();
  await sb.control('POST', `/_sandbox/websites/${DOMAIN}/dns-verified`);
  await waitFor(() => plugin.accounts.getWebsite(DOMAIN)?.providerStatus === 'online', 5000, 'the website to be online');
  await plugin.idle();
  return plugin.accounts.getAccount('alice')?.providerApiKey as string;
}

/** The website at the sandbox, as the partner sees it. */
const atProvider = (sb: TestSandbox) =>
  sb.control<{ status: string; requested_status: string; callbackUrl: string | null }>('GET', `/v1.0/website?domain=${DOMAIN}`);

/** What the customer can do with their own key: a PUT straight to the provider's API. */
async function asCustomer(sb: TestSandbox, key: string, body: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${sb.url}/v1.0/website/${DOMAIN}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.body?.cancel();
  return response.status;
}

/** Every callback the sandbox queued so far delivered, and every re-read it caused done: only what follows can move the plugin. */
async function quiet(plugin: Plugin, sb: TestSandbox): Promise<void> {
  await waitFor(
    async () => (await sb.control<{ delivered_at: string | null }[]>('GET', '/_sandbox/callbacks?limit=1000')).every((c) => c.delivered_at),
    5000,
    'the sandbox to deliver its callbacks',
  );
  await plugin.idle();
}

const repauses = (plugin: Plugin): EnforcementAction[] => plugin.stats.recentActions(100).filter((a) => a.action === 'repause');

/** Each way the host pauses a website, made the way the host makes it. */
const HOST_PAUSES = {
  async suspension(plugin: Plugin) {
    await plugin.postEvents([{ type: 'account.suspended', account: 'alice' }]);
    await plugin.idle();
  },
  async admin(plugin: Plugin) {
    const page = createPageClient(plugin.url);
    await page.get(launchUrl(plugin, admin('root')));
    await page.get(`/admin/websites/${DOMAIN}`);
    expect((await page.post(`/admin/websites/${DOMAIN}/pause`)).status).toBe(303);
  },
  // alice's reseller pauses it from the reseller pages: to alice, it is her host's pause.
  async reseller(plugin: Plugin) {
    plugin.accounts.setAccountReseller('alice', 'res1');
    const page = createPageClient(plugin.url);
    await page.get(launchUrl(plugin, reseller('res1')));
    await page.get(`/reseller/websites/${DOMAIN}`);
    expect((await page.post(`/reseller/websites/${DOMAIN}/pause`)).status).toBe(303);
    expect(plugin.accounts.getWebsite(DOMAIN)?.pausedBy).toBe('reseller');
  },
  async enforcement(plugin: Plugin, sb: TestSandbox) {
    plugin.stats.setLimits('website', DOMAIN, { websiteHits: 10 });
    await plugin.syncStatistics();
    await sb.control('POST', `/_sandbox/websites/${DOMAIN}/traffic`, { hits: 50 });
    await plugin.syncStatistics();
    await plugin.enforceLimits();
  },
  // The account's hosting package no longer includes web protection (paused for the grace period).
  async package(plugin: Plugin) {
    await plugin.postEvents([{ type: 'plan.changed', account: 'alice', plan: 'basic', protection: false }]);
    await plugin.idle();
  },
} satisfies Record<string, (plugin: Plugin, sb: TestSandbox) => Promise<void>>;

const KINDS = Object.keys(HOST_PAUSES) as (keyof typeof HOST_PAUSES)[];

describe('a host pause undone with the customer’s own provider key', () => {
  for (const kind of KINDS) {
    it(`(${kind}) is paused again within one callback, recorded as the customer's doing, and the admin is told`, async () => {
      const receiver = await startReceiver();
      const clock = movableClock();
      try {
        await withPlugin(
          async (plugin, sb) => {
            const key = await aliceOnline(plugin, sb);
            await HOST_PAUSES[kind](plugin, sb);
            expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ desiredStatus: 'paused', pausedBy: kind });
            expect((await atProvider(sb)).requested_status).toBe('paused');
            await quiet(plugin, sb);

            clock.passWindow();
            expect(await asCustomer(sb, key, { status: 'online' })).toBe(200);
            // No reconcile runs here (the test plugin has no schedule): only the sandbox's callback can bring the plugin in.
            await waitFor(
              async () => repauses(plugin).length > 0 && (await atProvider(sb)).requested_status === 'paused',
              5000,
              'the plugin to pause the website again',
            );
            expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ desiredStatus: 'paused', pausedBy: kind });
            const [record] = repauses(plugin);
            expect(record).toMatchObject({
              account: 'alice',
              domain: DOMAIN,
              actor: 'customer:alice',
              reason: `${kind}_undone`,
              statusBefore: 'online',
              statusAfter: 'paused',
            });

            await plugin.idle();
            const notices = receiver.received.map((r) => JSON.parse(r.body) as { event: string; action?: { action: string } });
            const told = notices.find((n) => n.event === 'enforcement.action' && n.action?.action === 'repause');
            expect(told?.action).toMatchObject({ domain: DOMAIN, actor: 'customer:alice', reason: `${kind}_undone` });
          },
          { env: { WPP_NOTIFY_URL: `${receiver.url}/wpp-events` }, now: clock.now },
        );
      } finally {
        await receiver.close();
      }
    });

    it(`(${kind}) is paused again at the next reconcile pass when the customer also turned the callbacks off`, async () => {
      const clock = movableClock();
      await withPlugin(
        async (plugin, sb) => {
          const key = await aliceOnline(plugin, sb);
          const callbackUrl = (await atProvider(sb)).callbackUrl;
          await HOST_PAUSES[kind](plugin, sb);
          await quiet(plugin, sb);

          // The callback address cleared in the same request: the provider tells the plugin nothing.
          expect(await asCustomer(sb, key, { status: 'online', callbackUrl: '' })).toBe(200);
          expect(await atProvider(sb)).toMatchObject({ requested_status: 'online', callbackUrl: null });
          await new Promise((resolve) => setTimeout(resolve, 200));
          expect(repauses(plugin)).toHaveLength(0);

          // The next reconcile pass (every minute when scheduled) reads it again.
          expect(plugin.reconcile(clock.now() + 61_000).enqueued).toBeGreaterThanOrEqual(1);
          await plugin.idle();
          expect(await atProvider(sb)).toMatchObject({ requested_status: 'paused', callbackUrl });
          expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ desiredStatus: 'paused', pausedBy: kind, providerStatus: 'paused' });
          expect(repauses(plugin)).toHaveLength(1);
          expect(repauses(plugin)[0]).toMatchObject({ actor: 'customer:alice', reason: `${kind}_undone` });
        },
        { now: clock.now },
      );
    });

    it(`(${kind}) is paused again at the next statistics read that counts visits, without a callback or a reconcile`, async () => {
      await withPlugin(async (plugin, sb) => {
        const key = await aliceOnline(plugin, sb);
        await plugin.syncStatistics();
        await HOST_PAUSES[kind](plugin, sb);
        await quiet(plugin, sb);
        expect(await asCustomer(sb, key, { status: 'online', callbackUrl: '' })).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(repauses(plugin)).toHaveLength(0);

        // Visitors reach the website through the provider again: the next read counts them.
        await sb.control('POST', `/_sandbox/websites/${DOMAIN}/traffic`, { hits: 25 });
        await plugin.syncStatistics();
        await plugin.idle();
        expect(await atProvider(sb)).toMatchObject({ requested_status: 'paused' });
        expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ desiredStatus: 'paused', pausedBy: kind, providerStatus: 'paused' });
        expect(repauses(plugin)).toHaveLength(1);
      });
    });
  }

  it("leaves a customer's own pause theirs: resumed with their key, it stays online", async () => {
    const clock = movableClock();
    await withPlugin(
      async (plugin, sb) => {
        const key = await aliceOnline(plugin, sb);
        const page = createPageClient(plugin.url);
        await page.get(launchUrl(plugin, customer('alice')));
        await page.get(`/panel/domains/${DOMAIN}`);
        // The confirmation page's form: a pause without `confirm` only asks.
        expect((await page.post(`/panel/domains/${DOMAIN}/pause`, { confirm: 'yes' })).status).toBe(303);
        expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ desiredStatus: 'paused', pausedBy: 'customer' });
        await quiet(plugin, sb);

        clock.passWindow();
        expect(await asCustomer(sb, key, { status: 'online' })).toBe(200);
        // The sandbox's callback, then the refresh job it queues (background work in the pacer): on
        // a loaded machine this took over 5 s (seen failing under a parallel suite).
        await waitFor(
          () => plugin.accounts.getWebsite(DOMAIN)?.desiredStatus === 'online',
          15_000,
          "the callback to record the end of the customer's pause",
        );
        expect(plugin.accounts.getWebsite(DOMAIN)).toMatchObject({ pausedBy: null, providerStatus: 'online' });
        plugin.reconcile(clock.now() + 61_000);
        await plugin.idle();
        expect((await atProvider(sb)).requested_status).toBe('online');
        expect(repauses(plugin)).toHaveLength(0);
      },
      { now: clock.now },
    );
  });
});
