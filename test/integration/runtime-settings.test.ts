/**
 * Settings an admin changes at runtime, on the admin Settings page over HTTP, on the real
 * plugin and the real sandbox: the running plugin follows them without a restart.
 */
import { describe, expect, it } from 'vitest';
import { createPageClient } from '../helpers/page-client.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { startReceiver } from '../helpers/receiver.js';
import { withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';

const requested = async (sb: TestSandbox, domain: string) =>
  (await sb.control<{ requested_status: string }>('GET', `/v1.0/website?domain=${domain}`)).requested_status;
/** Admin anna's page client, signed in as the panel signs an admin in. */
async function annaSignedIn(plugin: Parameters<Parameters<typeof withPlugin>[0]>[0]) {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, admin('anna')))).status).toBe(303);
  // The page gives the form its CSRF token.
  expect((await client.get('/admin/settings')).status).toBe(200);
  return client;
}
const traffic = (sb: TestSandbox, domain: string, hits: number) => sb.control('POST', `/_sandbox/websites/${domain}/traffic`, { hits });

describe('auto-protect changed at runtime', () => {
  it('a website added after an admin turns auto-protect off starts in setup at the provider, and online once it is on again', async () => {
    await withPlugin(async (plugin, sb) => {
      expect(plugin.config.autoProtect).toBe(true);
      const anna = await annaSignedIn(plugin);
      expect((await anna.post('/admin/settings/auto-protect', { action: 'off' })).status).toBe(303);
      expect(plugin.settings.autoProtect()).toBe(false);
      await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: 'later.example' }]);
      await plugin.idle();
      expect(await requested(sb, 'later.example')).toBe('setup');
      expect(plugin.accounts.getWebsite('later.example')?.desiredStatus).toBe('setup');

      expect((await anna.post('/admin/settings/auto-protect', { action: 'on' })).status).toBe(303);
      await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: 'now.example' }]);
      await plugin.idle();
      expect(await requested(sb, 'now.example')).toBe('online');
      expect(plugin.audit.listChanges({ what: 'auto_protect' }).map((change) => [change.actor, change.after])).toEqual([
        ['admin:anna', true],
        ['admin:anna', false],
      ]);
    });
  });
});

describe('notifications turned off at runtime', () => {
  it('a notification queued before finishes without sending, and no new one is queued while off', async () => {
    const receiver = await startReceiver();
    try {
      await withPlugin(
        async (plugin, sb) => {
          const notifications = () => plugin.jobs.list({ limit: 100 }).filter((job) => job.kind === 'notification.send');
          await plugin.postEvents(['one.example', 'two.example'].map((domain) => ({ type: 'domain.added', account: 'alice', domain })));
          await plugin.drain();
          plugin.stats.setLimits('global', '', { websiteHits: 100 });
          await traffic(sb, 'one.example', 500);
          await plugin.syncStatistics();
          expect((await plugin.enforceLimits()).paused).toBe(1);
          expect(notifications().map((job) => job.state)).toEqual(['pending']);

          const anna = await annaSignedIn(plugin);
          expect((await anna.post('/admin/settings/notify-url', { action: 'off', url: '' })).status).toBe(303);
          expect(plugin.settings.notifyUrl()).toBeNull();
          await plugin.drain();
          expect(notifications().map((job) => job.state)).toEqual(['done']);
          await traffic(sb, 'two.example', 500);
          await plugin.syncStatistics();
          expect((await plugin.enforceLimits()).paused).toBe(1);
          expect(notifications()).toHaveLength(1);
          expect(receiver.received).toEqual([]);
        },
        // No worker loop: the test says when queued jobs run.
        { worker: false, env: { WPP_NOTIFY_URL: `${receiver.url}/wpp-events` } },
      );
    } finally {
      await receiver.close();
    }
  });
});
