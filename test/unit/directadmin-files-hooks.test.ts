/**
 * The DirectAdmin hooks whose environment does not say enough: a restore (user_restore_post
 * names the user only, and replays no domain hook) and a domain renamed (domain_change_post
 * names the two domains, not the subdomains that move along). Both read the user's files as
 * DirectAdmin keeps them (data/users/<user>/user.conf, domains.list, domains/<domain>.subdomains),
 * here below a temporary root holding the recorded sample.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRunner } from '../../src/install/tools.js';
import { translateDirectAdminHookWithFiles } from '../../src/panel/directadmin-files.js';
import type { AdapterResult } from '../../src/panel/adapters/result.js';
import { LISTINGS } from '../helpers/panel-listings.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const USERS = '/usr/local/directadmin/data/users';
const NOW = new Date('2025-06-02T09:15:20Z');
const FIELDS = ['type', 'account', 'domain', 'subdomain', 'plan', 'email', 'ip'] as const;

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/panels/directadmin/${name}.json`, import.meta.url), 'utf8')) as {
    hook: string;
    env: Record<string, string>;
  };

function shapes(result: AdapterResult) {
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result.events.map((event) =>
    Object.fromEntries(FIELDS.flatMap((field) => (event[field] === undefined ? [] : [[field, event[field]]]))),
  );
}

let root: string;
beforeEach(() => {
  root = createTempDir('wpp-da-files-');
});
afterEach(() => removeTempDir(root));

const translate = async (name: string) => {
  const { hook, env } = fixture(name);
  return translateDirectAdminHookWithFiles(hook, env, createToolRunner(root), NOW);
};

describe('user_restore_post', () => {
  it('brings in the restored user and every domain and subdomain its files list (a restore replays no domain hook)', async () => {
    cpSync(join(LISTINGS, 'directadmin/users/bob'), join(root, USERS, 'bob'), { recursive: true });
    expect(shapes(await translate('user-restore-post'))).toEqual([
      { type: 'account.created', account: 'bob', email: 'bob@mail.example', plan: 'business' },
      { type: 'domain.added', account: 'bob', domain: 'bob.example', plan: 'business', ip: '192.0.2.30' },
      { type: 'subdomain.added', account: 'bob', domain: 'bob.example', subdomain: 'blog' },
      { type: 'subdomain.added', account: 'bob', domain: 'bob.example', subdomain: 'staging' },
      { type: 'domain.added', account: 'bob', domain: 'shop.example', plan: 'business', ip: '192.0.2.30' },
    ]);
  });

  it('restores a suspended user suspended', async () => {
    cpSync(join(LISTINGS, 'directadmin/users/bob'), join(root, USERS, 'bob'), { recursive: true });
    const conf = join(root, USERS, 'bob/user.conf');
    writeFileSync(conf, readFileSync(conf, 'utf8').replace('suspended=no', 'suspended=yes'));
    expect(shapes(await translate('user-restore-post')).at(-1)).toEqual({ type: 'account.suspended', account: 'bob' });
  });

  it("fails clearly when the user's files are not there, queuing nothing", async () => {
    const result = await translate('user-restore-post');
    expect(result).toEqual({
      ok: false,
      error: `DirectAdmin user_restore_post: ${USERS}/bob/user.conf is not there: nothing to restore from`,
      details: [{ path: 'username', message: 'no such DirectAdmin user' }],
    });
  });
});

describe('domain_change_post', () => {
  it('protects the new name with the subdomains DirectAdmin moved along, then removes the old name', async () => {
    cpSync(join(LISTINGS, 'directadmin-renamed/users/bob'), join(root, USERS, 'bob'), { recursive: true });
    expect(shapes(await translate('domain-change-post'))).toEqual([
      { type: 'domain.added', account: 'bob', domain: 'bob-new.example', ip: '192.0.2.30' },
      { type: 'subdomain.added', account: 'bob', domain: 'bob-new.example', subdomain: 'blog' },
      { type: 'subdomain.added', account: 'bob', domain: 'bob-new.example', subdomain: 'staging' },
      { type: 'domain.removed', account: 'bob', domain: 'bob.example' },
    ]);
  });

  it("without the user's files still renames: the new name protected, the old one removed", async () => {
    expect(shapes(await translate('domain-change-post'))).toEqual([
      { type: 'domain.added', account: 'bob', domain: 'bob-new.example', ip: '192.0.2.30' },
      { type: 'domain.removed', account: 'bob', domain: 'bob.example' },
    ]);
  });
});
