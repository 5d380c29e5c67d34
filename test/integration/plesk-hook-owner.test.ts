/**
 * `wpp hook plesk <event>` for the events that name no owner: the hook asks
 * `/usr/sbin/plesk bin domain --info <domain>` and queues the event for that login.
 *
 * The hook always runs the real /usr/sbin/plesk (root '/'); nothing in its environment can
 * point it elsewhere, since Plesk runs it as root. So the owner path with a fake plesk runs
 * in-process through the function the hook calls (translatePleskHook) with a tool runner
 * rooted in a temporary folder, and the events go through the hook's own deliverEvents into a
 * real database; the real CLI is run for what needs no Plesk (the tool missing, a removal).
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEvents } from '../../src/cli/hook.command.js';
import { loadConfig } from '../../src/config.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { createToolRunner } from '../../src/install/tools.js';
import { PLESK_TOOL, translatePleskHook } from '../../src/panel/plesk-owner.js';
import { runWpp } from '../helpers/cli.js';
import { fakeTool, toolCalls } from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const fixturePath = (name: string) => new URL(`../fixtures/panels/plesk/${name}`, import.meta.url).pathname;
const fixture = (name: string) => JSON.parse(readFileSync(fixturePath(name), 'utf8')) as { event: string; env: Record<string, string> };

let dataDir: string;
let root: string;
const baseEnv = () => ({ WPP_DATA_DIR: dataDir, WPP_PANEL_SECRET: 'plesk-owner-test-secret-0123456789', WPP_LOG_LEVEL: 'silent' });
const config = () => loadConfig(baseEnv());

function jobs() {
  const db = openPluginDatabase(config());
  try {
    return createJobsRepo(db)
      .list({ limit: 1000 })
      .map((job) => job.payload as { type: string; account: string; domain?: string });
  } finally {
    db.close();
  }
}

/** A fake /usr/sbin/plesk whose `bin domain --info` prints `infoFile` (or fails when none). */
function fakePlesk(infoFile?: string) {
  fakeTool(root, PLESK_TOOL, {
    script: infoFile
      ? `[ "$1 $2 $3" = "bin domain --info" ] && exec cat '${fixturePath(infoFile)}'\nexit 1`
      : `echo "Unable to find domain $4" >&2\nexit 1`,
  });
}

const noWebsites = () => undefined;

beforeAll(() => {
  dataDir = createTempDir('wpp-plesk-owner-');
  root = createTempDir('wpp-plesk-root-');
});
afterAll(() => {
  removeTempDir(dataDir);
  removeTempDir(root);
});

describe('wpp hook plesk: the owner from plesk bin domain --info', () => {
  it('queues a domain_create that names no owner for the login Plesk gives as the owner', async () => {
    fakePlesk('domain-info-jdoe.txt');
    const { event, env } = fixture('domain-create.json');
    const result = await translatePleskHook(event, env, { tools: createToolRunner(root), websiteAccount: noWebsites });
    if (!result.ok) throw new Error(result.error);
    await deliverEvents(config(), result.events);
    expect(jobs()).toContainEqual(expect.objectContaining({ type: 'domain.added', account: 'jdoe', domain: 'doe-shop.example' }));
    expect(toolCalls(root)).toContainEqual([PLESK_TOOL, 'bin', 'domain', '--info', 'doe-shop.example']);
  });

  it("asks about a subdomain's parent domain", async () => {
    fakePlesk('domain-info-jdoe.txt');
    const { event, env } = fixture('subdomain-create.json');
    const result = await translatePleskHook(event, env, { tools: createToolRunner(root), websiteAccount: noWebsites });
    if (!result.ok) throw new Error(result.error);
    expect(result.events.map((e) => [e.type, e.account, e.domain, e.subdomain])).toEqual([
      ['subdomain.added', 'jdoe', 'doe-shop.example', 'shop'],
    ]);
    expect(toolCalls(root).at(-1)).toEqual([PLESK_TOOL, 'bin', 'domain', '--info', 'doe-shop.example']);
  });

  it('keeps the event, queueing no panel event, when plesk cannot say (the worker asks again)', async () => {
    fakePlesk();
    const before = jobs().length;
    const at = new Date('2025-06-02T09:15:20Z');
    const result = await translatePleskHook(
      'site_create',
      { NEW_DOMAIN_NAME: 'lost.example', NEW_IP_ADDRESS: '203.0.113.9', NEW_SYSTEM_USER: 'lost_ftp' },
      { tools: createToolRunner(root), websiteAccount: noWebsites },
      at,
    );
    expect(result).toEqual({
      ok: true,
      events: [],
      note: `Plesk site_create: the owner of lost.example is not known yet (${PLESK_TOOL} bin exited 1: Unable to find domain lost.example): kept, wpp asks Plesk again`,
      // Only the event's domain variables are kept.
      pending: {
        panel: 'plesk',
        event: 'site_create',
        domain: 'lost.example',
        env: { NEW_DOMAIN_NAME: 'lost.example' },
        occurredAt: at.toISOString(),
      },
    });
    expect(jobs()).toHaveLength(before);
  });

  it('takes the owner of a removed domain from the plugin, not from Plesk (which no longer has it)', async () => {
    fakePlesk();
    const calls = toolCalls(root).length;
    const owned = await translatePleskHook(
      'site_delete',
      { OLD_DOMAIN_NAME: 'Doe-Blog.example' },
      {
        tools: createToolRunner(root),
        websiteAccount: (domain) => (domain === 'Doe-Blog.example' ? 'jdoe' : undefined),
      },
    );
    expect(owned.ok && owned.events.map((e) => [e.type, e.account, e.domain])).toEqual([['domain.removed', 'jdoe', 'doe-blog.example']]);
    const unknown = await translatePleskHook(
      'site_delete',
      { OLD_DOMAIN_NAME: 'other.example' },
      { tools: createToolRunner(root), websiteAccount: noWebsites },
    );
    expect(unknown).toEqual({ ok: true, events: [], note: 'Plesk site_delete: ignored: other.example is not a website wpp protects' });
    expect(toolCalls(root)).toHaveLength(calls);
  });

  it.skipIf(existsSync(PLESK_TOOL))(
    'the real hook: keeps the event as a panel.owner job, exit 0, when /usr/sbin/plesk is not there',
    async () => {
      const run = await runWpp(['hook', 'plesk', 'domain_create'], { env: { ...baseEnv(), NEW_DOMAIN_NAME: 'doe-shop.example' } });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toMatch(
        new RegExp(
          `^Plesk domain_create: the owner of doe-shop\\.example is not known yet \\(${PLESK_TOOL} is not there \\(or not executable\\)\\): kept, wpp asks Plesk again \\(job \\d+\\)$`,
        ),
      );
      const db = openPluginDatabase(config());
      try {
        const kept = createJobsRepo(db)
          .list()
          .filter((job) => job.kind === 'panel.owner');
        expect(kept).toHaveLength(1);
        expect(kept[0]).toMatchObject({
          state: 'pending',
          domain: 'doe-shop.example',
          payload: { event: 'domain_create', domain: 'doe-shop.example' },
        });
      } finally {
        db.close();
      }
    },
  );

  it('the real hook: a removal of a domain the plugin does not protect is nothing to do', async () => {
    const run = await runWpp(['hook', 'plesk', 'domain_delete'], { env: { ...baseEnv(), OLD_DOMAIN_NAME: 'unknown.example' } });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Plesk domain_delete: ignored: unknown.example is not a website wpp protects');
  });
});
