/**
 * What Virtualmin's captured change-command environments do in a running plugin and the real
 * sandbox: a sub-server disabled on its own (which the testbed cannot show, having no feature a
 * sub-server could disable) and the top-level server's Unix user renamed. Translated by the
 * hook's own adapter, delivered as `wpp hook virtualmin` delivers them.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEvents } from '../../src/cli/hook.command.js';
import { translateVirtualminHook } from '../../src/panel/adapters/virtualmin.js';
import { startTestPlugin } from '../helpers/plugin.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

type Env = Record<string, string | undefined>;

const captured = (name: string): Env =>
  (JSON.parse(readFileSync(new URL(`../fixtures/panels/virtualmin/${name}.json`, import.meta.url), 'utf8')) as { env: Env }).env;

let sandbox: TestSandbox;
let plugin: Awaited<ReturnType<typeof startTestPlugin>>;

/** One change-command call: translated, delivered, worked off. */
async function change(name: string, env: Env = {}) {
  const result = translateVirtualminHook('post', { ...captured(name), ...env });
  if (!result.ok) throw new Error(result.error);
  await deliverEvents(plugin.config, result.events);
  await plugin.idle();
}

const requested = async (domain: string) =>
  (await sandbox.control<{ domain: string; requested_status: string; user_id: string }[]>('GET', '/v1.0/website')).find(
    (w) => w.domain === domain,
  );

const TOP = 'cap-top.example.com';
const SUB = 'blog.cap-top.example.com';
const ALIAS = 'cap-alias.example.net';

/** Each call a later save of the record, as Virtualmin's own calls are. */
let saved = 1795700000;
const later = () => ({ VIRTUALSERVER_LASTSAVE: String(++saved) });

beforeAll(async () => {
  sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  plugin = await startTestPlugin(sandbox);
  await change('create-top-level');
  await change('create-sub-server');
  await change('create-alias');
});
afterAll(async () => {
  await plugin?.close();
  await sandbox?.close();
});

describe('Virtualmin changes in a running plugin', () => {
  it('a disabled sub-server is paused alone; the account’s suspension and reactivation leave it paused; its own enable resumes it', async () => {
    await change('disable-sub-server', { VIRTUALSERVER_DISABLED: 'web', ...later() });
    expect(plugin.accounts.getAccount('cap-top')?.state).toBe('active');
    expect((await requested(SUB))?.requested_status).toBe('paused');
    expect((await requested(TOP))?.requested_status).toBe('online');

    await change('disable-top-level', later());
    expect(plugin.accounts.getAccount('cap-top')?.state).toBe('suspended');
    for (const domain of [TOP, SUB, ALIAS]) expect((await requested(domain))?.requested_status, domain).toBe('paused');
    await change('enable-top-level', later());
    expect(plugin.accounts.getAccount('cap-top')?.state).toBe('active');
    expect((await requested(TOP))?.requested_status).toBe('online');
    expect((await requested(ALIAS))?.requested_status).toBe('online');
    // Still disabled in Virtualmin: the account's reactivation does not resume it.
    expect((await requested(SUB))?.requested_status).toBe('paused');

    await change('disable-sub-server', { VIRTUALSERVER_ACTION: 'ENABLE_DOMAIN', VIRTUALSERVER_DISABLED: '', ...later() });
    expect((await requested(SUB))?.requested_status).toBe('online');
  });

  it('an alias enabled while its account is suspended stays paused until the account is enabled', async () => {
    await change('disable-alias', { VIRTUALSERVER_USER: 'cap-top', VIRTUALSERVER_DISABLED: 'web', ...later() });
    await change('disable-top-level', later());
    await change('disable-alias', { VIRTUALSERVER_USER: 'cap-top', VIRTUALSERVER_ACTION: 'ENABLE_DOMAIN', ...later() });
    expect((await requested(ALIAS))?.requested_status).toBe('paused');
    await change('enable-top-level', later());
    for (const domain of [TOP, SUB, ALIAS]) expect((await requested(domain))?.requested_status, domain).toBe('online');
  });

  it('modify-domain --user: the account and its websites take the new name, at the same provider user', async () => {
    const owner = (await requested(TOP))?.user_id;
    await change('modify-user-top-level', later());
    expect(plugin.accounts.getAccount('cap-top')).toBeNull();
    expect(plugin.accounts.getAccount('cap-new')).toMatchObject({ account: 'cap-new', state: 'active', email: 'owner@example.com' });
    expect(
      plugin.accounts
        .websitesOf('cap-new')
        .map((w) => w.domain)
        .sort(),
    ).toEqual([ALIAS, SUB, TOP].sort());
    for (const domain of [TOP, SUB, ALIAS]) {
      expect(await requested(domain), domain).toMatchObject({ user_id: owner, requested_status: 'online' });
    }
    // Later calls carry the new user (the captured alias disable did): they reach the same account.
    await change('disable-alias', { VIRTUALSERVER_DISABLED: 'web', ...later() });
    expect((await requested(ALIAS))?.requested_status).toBe('paused');
    expect(plugin.accounts.getAccount('cap-new')?.state).toBe('active');
  });
});
