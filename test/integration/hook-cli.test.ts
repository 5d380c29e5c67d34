/**
 * `wpp hook ...` as panels run it: real processes, recorded payloads on stdin or in the
 * environment, one line of output, the exit code, and what lands in the jobs table.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEvents } from '../../src/cli/hook.command.js';
import { loadConfig } from '../../src/config.js';
import { createJobsRepo } from '../../src/db/jobs.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { translateDirectAdminHook } from '../../src/panel/adapters/directadmin.js';
import { finishEvent } from '../../src/panel/events.js';
import { runWpp } from '../helpers/cli.js';
import { withPlugin } from '../helpers/plugin.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const fixtureText = (path: string) => readFileSync(new URL(`../fixtures/panels/${path}`, import.meta.url), 'utf8');
const fixture = (path: string) => JSON.parse(fixtureText(path)) as { event?: string; hook?: string; env: Record<string, string> };

let dataDir: string;
const baseEnv = () => ({ WPP_DATA_DIR: dataDir, WPP_PANEL_SECRET: 'hook-test-secret-0123456789', WPP_LOG_LEVEL: 'silent' });

const wpp = (args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) =>
  runWpp(args, { ...options, env: { ...baseEnv(), ...options.env } });

function jobRows() {
  const db = openPluginDatabase(loadConfig(baseEnv()));
  try {
    return createJobsRepo(db).list({ limit: 1000 });
  } finally {
    db.close();
  }
}

beforeAll(() => {
  dataDir = createTempDir('wpp-hooks-');
});
afterAll(() => removeTempDir(dataDir));

describe('wpp hook cpanel', () => {
  it('queues the events of a recorded payload and answers "1" alone (cPanel shows a hook\'s message to the customer), once even when the hook fires twice', async () => {
    const first = await wpp(['hook', 'cpanel'], { stdin: fixtureText('cpanel/accounts-create.json') });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('1\n');
    const again = await wpp(['hook', 'cpanel'], { stdin: fixtureText('cpanel/accounts-create.json') });
    expect(again.stdout).toBe('1\n');
    const jobs = jobRows().filter((job) => job.account === 'alice');
    expect(jobs.map((job) => (job.payload as { type: string }).type).sort()).toEqual(['account.created', 'domain.added']);
    expect(jobs.map((job) => (job.payload as { domain?: string }).domain).filter(Boolean)).toEqual(['alice-shop.example']);
  });

  it('answers "0 <reason>", exits non-zero and writes nothing for a bad payload or bad JSON', async () => {
    const before = jobRows().length;
    const missingUser = await wpp(['hook', 'cpanel'], { stdin: fixtureText('cpanel/accounts-create-missing-user.json') });
    expect(missingUser.code).toBe(1);
    expect(missingUser.stdout.trim()).toMatch(/^0 .*data\.user/);
    const notJson = await wpp(['hook', 'cpanel'], { stdin: 'user=alice' });
    expect(notJson.code).toBe(1);
    expect(notJson.stdout.trim()).toBe('0 stdin is not JSON: cPanel passes the hook payload as one JSON object');
    expect(jobRows()).toHaveLength(before);
  });

  it('never answers 0 to account removal registered at pre by an earlier install (killacct would stop), yet queues it', async () => {
    const payload = JSON.parse(fixtureText('cpanel/accounts-remove.json')) as {
      context: Record<string, string>;
      data: Record<string, string>;
    };
    const atPre = { ...payload, context: { ...payload.context, stage: 'pre' }, data: { ...payload.data, user: 'removed-pre' } };
    const queued = await wpp(['hook', 'cpanel'], { stdin: JSON.stringify(atPre) });
    expect(queued).toMatchObject({ code: 0, stdout: '1\n' });
    expect(jobRows().some((job) => job.account === 'removed-pre')).toBe(true);
    // A failure there is logged on standard error, and still answered 1.
    const broken = await wpp(['hook', 'cpanel'], { stdin: JSON.stringify({ ...atPre, data: {} }) });
    expect(broken).toMatchObject({ code: 0, stdout: '1\n' });
    expect(broken.stderr).toMatch(/wpp hook cpanel: .*user/);
  });

  it('a restore on a server without whmapi1 still queues the account and its main domain, and answers 1', async () => {
    const before = jobRows().length;
    const restored = await wpp(['hook', 'cpanel'], { stdin: fixtureText('cpanel/pkgacct-restore.json') });
    expect(restored.code).toBe(0);
    expect(restored.stdout).toBe('1\n');
    expect(jobRows()).toHaveLength(before + 2);
  });

  it('answers an Api2 post-hook an earlier install registered with 1, queueing nothing', async () => {
    const before = jobRows().length;
    const failed = await wpp(['hook', 'cpanel'], { stdin: fixtureText('cpanel/api2-addsubdomain-failed.json') });
    expect(failed.code).toBe(0);
    expect(failed.stdout).toBe('1\n');
    expect(jobRows()).toHaveLength(before);
  });

  it('--describe prints the registration list, never blocking', async () => {
    const described = await wpp(['hook', 'cpanel', '--describe'], {
      env: { WPP_CPANEL_HOOK_COMMAND: '/usr/local/cpanel/3rdparty/bin/wpp-hook' },
    });
    const hooks = JSON.parse(described.stdout) as { category: string; event: string; blocking: number; hook: string }[];
    expect(hooks.length).toBeGreaterThanOrEqual(10);
    expect(hooks.every((hook) => hook.blocking === 0 && hook.hook === '/usr/local/cpanel/3rdparty/bin/wpp-hook')).toBe(true);
    expect(hooks).toContainEqual(expect.objectContaining({ category: 'Whostmgr', event: 'Accounts::Create', stage: 'post' }));
  });
});

describe('the same change again within a minute', () => {
  // A DirectAdmin hook's events as it would deliver them at `at` (ids are derived to the minute).
  const hookAt = (name: string, at: string) => {
    const result = translateDirectAdminHook(name, fixture(`directadmin/${name.replace(/_/g, '-')}.json`).env, new Date(at));
    if (!result.ok) throw new Error(result.error);
    return deliverEvents(loadConfig(baseEnv()), result.events);
  };
  const fredsEvents = () =>
    jobRows()
      .filter((job) => job.account === 'fred')
      .sort((a, b) => a.id - b.id)
      .map((job) => (job.payload as { type: string }).type);

  it('is a new event after another of the account (suspend, unsuspend, suspend), and a hook firing twice is still queued once', async () => {
    const created = await hookAt('user_suspend_post', '2026-11-26T10:15:05Z');
    expect(created.map((result) => result.created)).toEqual([true]);
    await hookAt('user_activate_post', '2026-11-26T10:15:20Z');
    const again = await hookAt('user_suspend_post', '2026-11-26T10:15:40Z');
    // Before: the last suspension had the first one's id and was dropped; the account stayed active.
    expect(again.map((result) => result.created)).toEqual([true]);
    const twice = await hookAt('user_suspend_post', '2026-11-26T10:15:41Z');
    expect(twice.map((result) => result.created)).toEqual([false]);
    const unsuspendAgain = await hookAt('user_activate_post', '2026-11-26T10:15:50Z');
    expect(unsuspendAgain.map((result) => result.created)).toEqual([true]);
    expect(fredsEvents()).toEqual(['account.suspended', 'account.unsuspended', 'account.suspended', 'account.unsuspended']);
  });

  it("never re-keys a caller's own id: the same id after other events is a replay, queued once", async () => {
    const ids = ['caller-id-1', 'caller-id-2'];
    const event = (id: string, type: 'account.suspended' | 'account.unsuspended') => {
      const parsed = finishEvent('http', { id, type, account: 'gina' });
      if (!parsed.success) throw new Error(parsed.error.message);
      return parsed.data;
    };
    const config = loadConfig(baseEnv());
    await deliverEvents(config, [event(ids[0] as string, 'account.suspended')]);
    await deliverEvents(config, [event(ids[1] as string, 'account.unsuspended')]);
    const replay = await deliverEvents(config, [event(ids[0] as string, 'account.suspended')]);
    expect(replay.map((result) => result.created)).toEqual([false]);
    expect(jobRows().filter((job) => job.account === 'gina')).toHaveLength(2);
  });
});

describe('wpp hook plesk, directadmin and emit', () => {
  it('plesk: translates the NEW_* environment of an event handler', async () => {
    const { event, env } = fixture('plesk/client-create.json');
    const run = await wpp(['hook', 'plesk', event as string], { env });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^account\.created queued \(job \d+\)$/);
    expect(jobRows().some((job) => job.account === 'jdoe')).toBe(true);
  });

  it('directadmin: does not provision a domain twice when it came with the user', async () => {
    const before = jobRows().length;
    const { hook, env } = fixture('directadmin/domain-create-post-user-creation.json');
    const run = await wpp(['hook', 'directadmin', hook as string], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/covered by user_create_post/);
    expect(jobRows()).toHaveLength(before);
  });

  it('directadmin: a renamed domain queues the new name protected, then the old one removed', async () => {
    // Other tests of this file queue events for a 'bob' too (a cPanel restore): only this hook's jobs count.
    const lastBefore = Math.max(0, ...jobRows().map((job) => job.id));
    const { hook, env } = fixture('directadmin/domain-change-post.json');
    const run = await wpp(['hook', 'directadmin', hook as string], { env });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^domain\.added queued \(job \d+\); domain\.removed queued \(job \d+\)$/);
    const events = jobRows()
      .filter((job) => job.account === 'bob' && job.id > lastBefore)
      .sort((a, b) => a.id - b.id)
      .map((job) => job.payload as { type: string; domain: string });
    expect(events.map(({ type, domain }) => `${type} ${domain}`)).toEqual(['domain.added bob-new.example', 'domain.removed bob.example']);
  });

  it('directadmin: a post hook wpp cannot take exits 0 (DirectAdmin would report the whole set failed), saying why on standard error', async () => {
    const before = jobRows().length;
    const { hook, env } = fixture('directadmin/subdomain-create-post-missing-user.json');
    const run = await wpp(['hook', 'directadmin', hook as string], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^wpp hook directadmin: .*username/m);
    expect(run.stderr).toContain('the panel action itself went on');
    expect(jobRows()).toHaveLength(before);
  });

  it('emit: queues one event; refuses a missing field with a clear message and writes nothing', async () => {
    const ok = await wpp(['hook', 'emit', 'domain.added', '--account', 'bob', '--domain', 'Bob.example', '--ip', '203.0.113.9']);
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim()).toMatch(/^domain\.added queued \(job \d+\)$/);
    const before = jobRows().length;
    const bad = await wpp(['hook', 'emit', 'domain.added', '--account', 'bob']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/domain\.added needs a domain/);
    const unknown = await wpp(['hook', 'emit', 'domain.moved', '--account', 'bob']);
    expect(unknown.code).not.toBe(0);
    expect(jobRows()).toHaveLength(before);
  });
});

describe('hooks that cannot open the database', () => {
  it('post their events, signed, to the running plugin instead', async () => {
    await withPlugin(async (plugin) => {
      const result = finishEvent('emit', { type: 'domain.added', account: 'carol', domain: 'carol.example' });
      if (!result.success) throw result.error;
      const readOnly = () => {
        throw Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' });
      };
      const delivered = await deliverEvents({ ...plugin.config, hook: { ...plugin.config.hook, url: plugin.url } }, [result.data], {
        open: readOnly,
      });
      expect(delivered).toEqual([{ eventId: result.data.id, type: 'domain.added', jobId: expect.any(Number), created: true }]);
      // The common case: SQLite opened the file read-only without complaint; only the write fails.
      const second = finishEvent('emit', { type: 'domain.added', account: 'carol', domain: 'carol2.example' });
      if (!second.success) throw second.error;
      const opensReadOnly = () => {
        const db = openPluginDatabase(plugin.config);
        db.prepare = (() => {
          throw Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY_DIRECTORY' });
        }) as typeof db.prepare;
        return db;
      };
      expect(
        (
          await deliverEvents({ ...plugin.config, hook: { ...plugin.config.hook, url: plugin.url } }, [second.data], {
            open: opensReadOnly,
          })
        )[0]?.created,
      ).toBe(true);
      await plugin.idle();
      expect(plugin.accounts.getWebsite('carol.example')?.account).toBe('carol');
      expect(plugin.accounts.getWebsite('carol2.example')?.account).toBe('carol');
    });
  });
});
