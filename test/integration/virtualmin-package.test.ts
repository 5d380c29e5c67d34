/**
 * Virtualmin's Web Protection feature in a running plugin and the real sandbox: the change
 * command's VIRTUALSERVER_WPP on a server's creation and on disable-feature / enable-feature
 * (the made fixtures of test/fixtures/panels/README.md), translated by the hook's own adapter and
 * delivered as `wpp hook virtualmin` delivers them.
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

let saved = 1795700000;
/** One change-command call, each a later save of the record: translated, delivered, worked off. */
async function change(name: string, env: Env = {}) {
  const result = translateVirtualminHook('post', { ...captured(name), VIRTUALSERVER_LASTSAVE: String(++saved), ...env });
  if (!result.ok) throw new Error(result.error);
  await deliverEvents(plugin.config, result.events);
  await plugin.idle();
}

const requested = async (domain: string) =>
  (await sandbox.control<{ domain: string; requested_status: string }[]>('GET', '/v1.0/website')).find((w) => w.domain === domain)
    ?.requested_status;

const TOP = 'cap-top.example.com';
const SUB = 'blog.cap-top.example.com';

beforeAll(async () => {
  sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  plugin = await startTestPlugin(sandbox);
});
afterAll(async () => {
  await plugin?.close();
  await sandbox?.close();
});

describe('Virtualmin’s Web Protection feature in a running plugin', () => {
  it('a server created with the feature is protected; turned off, its websites are paused for the package; on again, online', async () => {
    await change('create-top-level-wpp');
    await change('create-sub-server');
    for (const domain of [TOP, SUB]) expect(await requested(domain), domain).toBe('online');

    await change('disable-feature-wpp');
    for (const domain of [TOP, SUB]) {
      expect(plugin.accounts.getWebsite(domain)?.pausedBy, domain).toBe('package');
      expect(await requested(domain), domain).toBe('paused');
    }
    expect(plugin.accounts.getAccount('cap-top')?.state).toBe('active');

    await change('disable-feature-wpp', { VIRTUALSERVER_WPP: '1' });
    for (const domain of [TOP, SUB]) expect(await requested(domain), domain).toBe('online');
  });

  it('turned off and on again within one second (one save time for both calls): protected again, the second call is no replay', async () => {
    // Virtualmin stamps a record's save to the second (lastsave=time()): disable-feature and enable-feature run back
    // to back on a fast machine save within one, and both calls carry the same VIRTUALSERVER_LASTSAVE.
    const second = String(++saved);
    await change('disable-feature-wpp', { VIRTUALSERVER_LASTSAVE: second });
    for (const domain of [TOP, SUB]) expect(await requested(domain), domain).toBe('paused');
    // enable-feature passes the old record (the feature off) as VIRTUALSERVER_OLDSERVER_*.
    await change('disable-feature-wpp', {
      VIRTUALSERVER_WPP: '1',
      VIRTUALSERVER_OLDSERVER_WPP: '0',
      VIRTUALSERVER_OLDSERVER_DOM: captured('disable-feature-wpp').VIRTUALSERVER_DOM,
      VIRTUALSERVER_LASTSAVE: second,
    });
    for (const domain of [TOP, SUB]) {
      expect(plugin.accounts.getWebsite(domain), domain).toMatchObject({ desiredStatus: 'online', pausedBy: null });
      expect(await requested(domain), domain).toBe('online');
    }
  });

  it('a server created without the feature is recorded but never set up at the provider', async () => {
    await change('create-top-level-wpp', {
      VIRTUALSERVER_WPP: '0',
      VIRTUALSERVER_USER: 'cap-off',
      VIRTUALSERVER_DOM: 'cap-off.example.com',
      VIRTUALSERVER_ID: '179566704419999',
    });
    expect(plugin.accounts.getWebsite('cap-off.example.com')).toMatchObject({ account: 'cap-off', pausedBy: 'package' });
    expect(await requested('cap-off.example.com')).toBeUndefined();
  });
});
