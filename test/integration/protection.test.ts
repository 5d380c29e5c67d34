/**
 * Protect, pause and resume by hand (core/protection.ts) against the real sandbox: who may
 * end which pause, an admin's resume of a limit pause recorded as enforcement's override,
 * a provider outage changing nothing, and a re-provision through the job queue.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createJobQueue } from '../../src/core/job-queue.js';
import { createProtection } from '../../src/core/protection.js';
import { AppError } from '../../src/errors.js';
import { withPlugin } from '../helpers/plugin.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

const customer = { kind: 'customer', account: 'alice' } as const;
const admin = { kind: 'admin', admin: 'root' } as const;

function protectionOf(plugin: Plugin) {
  const queue = createJobQueue({ jobs: plugin.jobs, maxAttempts: 3, onQueued: () => {} });
  return createProtection({
    accounts: plugin.accounts,
    provider: plugin.provider,
    adminResume: plugin.adminResume,
    ingestEvents: queue.ingestEvents,
    logger: pino({ level: 'silent' }),
    now: Date.now,
  });
}

async function aliceWithDomain(plugin: Plugin) {
  await plugin.postEvents([
    { type: 'account.created', account: 'alice' },
    { type: 'domain.added', account: 'alice', domain: 'alice.example' },
  ]);
  await plugin.idle();
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof AppError ? error.code : error),
  );

describe('protection by hand', () => {
  it('lets a customer end only their own pause, and an admin end a limit pause as a recorded override', async () => {
    await withPlugin(async (plugin, sb) => {
      await aliceWithDomain(plugin);
      const protection = protectionOf(plugin);
      await sb.control('POST', '/_sandbox/websites/alice.example/dns-verified');
      expect(await refusal(protection.pause('alice.example', { kind: 'customer', account: 'bob' }))).toBe('NOT_FOUND');

      expect(await protection.pause('alice.example', customer)).toMatchObject({
        desiredStatus: 'paused',
        pausedBy: 'customer',
        providerStatus: 'paused',
      });
      expect(await protection.resume('alice.example', customer)).toMatchObject({
        desiredStatus: 'online',
        pausedBy: null,
        providerStatus: 'online',
      });

      await protection.pause('alice.example', admin);
      expect(plugin.accounts.getWebsite('alice.example')).toMatchObject({ pausedBy: 'admin' });
      expect(await refusal(protection.resume('alice.example', customer))).toBe('CONFLICT');
      await protection.resume('alice.example', admin);

      // The hit limit pauses it: the customer cannot resume, an admin can, and it is recorded.
      plugin.stats.setLimits('website', 'alice.example', { websiteHits: 10 });
      await plugin.syncStatistics();
      await sb.control('POST', '/_sandbox/websites/alice.example/traffic', { hits: 50 });
      await plugin.syncStatistics();
      await plugin.enforceLimits();
      expect(plugin.accounts.getWebsite('alice.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'enforcement' });
      expect(await refusal(protection.resume('alice.example', customer))).toBe('CONFLICT');
      const resumed = await protection.resume('alice.example', admin);
      expect(resumed).toMatchObject({ desiredStatus: 'online', pausedBy: null });
      expect(resumed.adminOverrideUntil).toBeGreaterThan(Date.now());
      expect(plugin.stats.recentActions(5)[0]).toMatchObject({ action: 'admin_resume', actor: 'admin:root', domain: 'alice.example' });

      // A pause the panel made (the account suspended) is the panel's to undo: an admin's resume is refused.
      await plugin.postEvents([{ type: 'account.suspended', account: 'alice' }]);
      await plugin.idle();
      expect(plugin.accounts.getWebsite('alice.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'suspension' });
      expect(await refusal(protection.resume('alice.example', admin))).toBe('CONFLICT');
      expect(plugin.accounts.getWebsite('alice.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'suspension' });
    });
  });

  it('changes nothing locally when the provider is down, and re-provisions through the queue', async () => {
    await withPlugin(
      async (plugin, sb) => {
        await aliceWithDomain(plugin);
        const protection = protectionOf(plugin);
        const before = plugin.accounts.getWebsite('alice.example');
        expect(before?.desiredStatus).toBe('setup');
        await sb.control('POST', '/_sandbox/faults', { mode: 'down' });
        expect(await refusal(protection.protect('alice.example', customer))).toBe('UNAVAILABLE');
        expect(plugin.accounts.getWebsite('alice.example')).toEqual(before);
        await sb.control('POST', '/_sandbox/faults', { mode: 'none' });

        const queued = protection.reprovision('alice.example', { kind: 'admin', admin: 'root' });
        expect(queued).toMatchObject({ type: 'domain.added', created: true });
        expect(protection.reprovision('alice.example', { kind: 'admin', admin: 'root' }).jobId).not.toBe(queued.jobId);
        await plugin.idle();
        expect(plugin.jobs.counts().dead).toBe(0);
        expect(plugin.accounts.getWebsite('alice.example')?.state).toBe('active');
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  });
});
