/**
 * Plesk suspends subscriptions, not customers, and a domain whose owner Plesk cannot name yet
 * is kept until it can: both through the hook's own translation (translatePleskHook, with a
 * fake /usr/sbin/plesk below a temporary root) into a running plugin and the real sandbox.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEvents, queueOwnerLookup } from '../../src/cli/hook.command.js';
import { createToolRunner } from '../../src/install/tools.js';
import { PLESK_TOOL, translatePleskHook, type PleskOwnerSources } from '../../src/panel/plesk-owner.js';
import { fakeTool, toolCalls } from '../helpers/fake-tools.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { runWpp } from '../helpers/cli.js';
import { startTestPlugin, testEnv } from '../helpers/plugin.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const fixturePath = (name: string) => new URL(`../fixtures/panels/plesk/${name}`, import.meta.url).pathname;
const fixture = (name: string) => JSON.parse(readFileSync(fixturePath(name), 'utf8')) as { event: string; env: Record<string, string> };

let root: string;
let sandbox: TestSandbox;
let plugin: Awaited<ReturnType<typeof startTestPlugin>>;

/**
 * A fake /usr/sbin/plesk: `bin domain --info` prints `infoFile` (or fails as Plesk does for a
 * domain it does not know); `db -Ne <query>` prints the subscription's other sites, one per line.
 */
function fakePlesk(infoFile: string | undefined, sites: string[] = []) {
  fakeTool(root, PLESK_TOOL, {
    script: [
      `if [ "$1 $2" = "db -Ne" ]; then ${sites.map((site) => `echo '${site}'; `).join('')}exit 0; fi`,
      infoFile
        ? `[ "$1 $2 $3" = "bin domain --info" ] && exec cat '${fixturePath(infoFile)}'\nexit 1`
        : `echo "Unable to find domain $4" >&2\nexit 1`,
    ].join('\n'),
  });
}

const sources = (): PleskOwnerSources => ({
  tools: createToolRunner(root),
  websiteAccount: (domain) => plugin.accounts.getWebsite(domain.toLowerCase())?.account,
});

async function hook(name: string) {
  const { event, env } = fixture(name);
  const result = await translatePleskHook(event, env, sources());
  if (!result.ok) throw new Error(result.error);
  await deliverEvents(plugin.config, result.events);
  await plugin.idle();
  return result;
}

/** A page client signed in as an administrator of `on` (its forms carry the session's CSRF token). */
function signedInAdmin(on: Awaited<ReturnType<typeof startTestPlugin>>) {
  const client = createPageClient(on.url);
  return {
    async get(path: string) {
      if ((await client.get(launchUrl(on, admin('plesk-admin')))).status !== 303) throw new Error('the admin launch failed');
      return client.get(path);
    },
  };
}

const requested = async (domain: string) =>
  (await sandbox.control<{ domain: string; requested_status: string }[]>('GET', '/v1.0/website')).find((w) => w.domain === domain)
    ?.requested_status;

beforeAll(async () => {
  root = createTempDir('wpp-plesk-subscription-');
  sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  plugin = await startTestPlugin(sandbox, { panelRoot: root, panelToolsAsRoot: true, env: { WPP_SERVER_IP: '198.51.100.7' } });
  await plugin.postEvents([
    { type: 'account.created', account: 'jdoe' },
    { type: 'domain.added', account: 'jdoe', domain: 'doe-shop.example' },
    { type: 'domain.added', account: 'jdoe', domain: 'doe-blog.example' },
    { type: 'domain.added', account: 'jdoe', domain: 'doe-other-subscription.example' },
  ]);
  await plugin.idle();
});
afterAll(async () => {
  await plugin.close();
  await sandbox.close();
  removeTempDir(plugin.dataDir);
  removeTempDir(sandbox.dataDir);
  removeTempDir(root);
});

describe('Plesk: a suspended subscription', () => {
  it("pauses that subscription's websites only, and the customer's other subscription stays online", async () => {
    fakePlesk('domain-info-jdoe.txt', ['doe-blog.example']);
    await hook('domain-status-update-suspend.json');
    expect(await requested('doe-shop.example')).toBe('paused');
    expect(await requested('doe-blog.example')).toBe('paused');
    expect(await requested('doe-other-subscription.example')).toBe('online');
    expect(plugin.accounts.getWebsite('doe-shop.example')?.pausedBy).toBe('suspension');
    expect(plugin.accounts.getAccount('jdoe')?.state).toBe('active');
  });

  it('stays paused when the customer is suspended and reactivated while the subscription is still suspended', async () => {
    await hook('client-status-update-suspend.json');
    expect(await requested('doe-other-subscription.example')).toBe('paused');
    await plugin.postEvents({ type: 'account.unsuspended', account: 'jdoe' });
    await plugin.idle();
    expect(await requested('doe-other-subscription.example')).toBe('online');
    expect(await requested('doe-shop.example')).toBe('paused');
    expect(await requested('doe-blog.example')).toBe('paused');
  });

  it('is online again when Plesk reactivates the subscription', async () => {
    await hook('domain-status-update-unsuspend.json');
    expect(await requested('doe-shop.example')).toBe('online');
    expect(await requested('doe-blog.example')).toBe('online');
    expect(plugin.accounts.getWebsite('doe-shop.example')?.pausedBy).toBeNull();
  });
});

describe('Plesk: a new domain whose owner Plesk cannot name yet', () => {
  it('is kept as a job the worker retries until Plesk names the owner, then protected for that owner', async () => {
    fakePlesk(undefined);
    const { event, env } = fixture('domain-create.json');
    const result = await translatePleskHook(event, { ...env, NEW_DOMAIN_NAME: 'doe-new.example' }, sources());
    expect(result).toMatchObject({ ok: true, events: [], pending: { panel: 'plesk', event: 'domain_create', domain: 'doe-new.example' } });
    if (!result.ok || !result.pending) throw new Error('expected a pending owner lookup');
    const queued = queueOwnerLookup(plugin.config, result.pending);
    expect(queued.created).toBe(true);

    // Plesk still cannot say: the job waits, with the reason for the admin, and nothing is lost.
    // A claim counts the attempt before the run fails: wait for the failure itself.
    await waitFor(() => Boolean(plugin.jobs.get(queued.jobId)?.lastError), 10_000, 'a first failed attempt');
    const waiting = plugin.jobs.get(queued.jobId);
    expect(waiting).toMatchObject({ kind: 'panel.owner', domain: 'doe-new.example' });
    expect(waiting?.state).not.toBe('done');
    expect(waiting?.lastError).toContain('Unable to find domain doe-new.example');
    // The admin sees it waiting, in words, with why.
    const page = await signedInAdmin(plugin).get('/admin/jobs?kind=panel.owner');
    expect(page.status).toBe(200);
    const shown = textOf(page.body);
    expect(shown).toContain("waiting for the panel to name the domain's owner");
    expect(shown).toContain('doe-new.example');
    expect(shown).toContain('Unable to find domain doe-new.example');

    fakePlesk('domain-info-jdoe.txt');
    await waitFor(() => plugin.jobs.get(queued.jobId)?.state === 'done', 10_000, 'the owner lookup to succeed');
    await plugin.idle();
    expect(plugin.accounts.getWebsite('doe-new.example')).toMatchObject({ account: 'jdoe', state: 'active' });
    expect(await requested('doe-new.example')).toBe('online');
    expect(toolCalls(root)).toContainEqual([PLESK_TOOL, 'bin', 'domain', '--info', 'doe-new.example']);
  });
});

describe('Plesk: a kept event on an installed server, whose serve may not run Plesk (root only)', () => {
  it("waits, saying so, until the root timer's wpp import plesk asks Plesk and queues it", async () => {
    const installed = await startTestPlugin(sandbox, { panelToolsAsRoot: false, env: { WPP_SERVER_IP: '198.51.100.7' } });
    try {
      fakePlesk('domain-info-jdoe.txt');
      const lookup = {
        panel: 'plesk' as const,
        event: 'site_create',
        domain: 'doe-kept.example',
        env: { NEW_DOMAIN_NAME: 'doe-kept.example' },
        occurredAt: new Date().toISOString(),
      };
      const queued = queueOwnerLookup(installed.config, lookup);
      await waitFor(() => Boolean(installed.jobs.get(queued.jobId)?.lastError), 10_000, 'the worker to try');
      expect(installed.jobs.get(queued.jobId)?.lastError).toContain(
        "waiting for the plesk panel check: this process may not run the panel's tools (root only)",
      );
      expect(installed.jobs.get(queued.jobId)?.state).toBe('pending');

      // wpp-panel-check.timer's command, as root: asks Plesk, queues the event, settles the job.
      const run = await runWpp(['import', 'plesk', '--root', root, '--if-due'], {
        env: testEnv(installed.dataDir, sandbox, { WPP_SERVER_IP: '198.51.100.7' }),
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('1 kept Plesk event queued: Plesk named the owner');
      expect(installed.jobs.get(queued.jobId)?.state).toBe('done');
      await installed.idle();
      expect(installed.accounts.getWebsite('doe-kept.example')).toMatchObject({ account: 'jdoe', state: 'active' });
      expect(await requested('doe-kept.example')).toBe('online');
    } finally {
      await installed.close();
      removeTempDir(installed.dataDir);
    }
  }, 30_000);
});
