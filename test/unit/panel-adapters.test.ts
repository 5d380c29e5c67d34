import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeCpanelHooks, readCpanelHook, translateCpanelHook } from '../../src/panel/adapters/cpanel.js';
import { DIRECTADMIN_HOOKS, translateDirectAdminHook } from '../../src/panel/adapters/directadmin.js';
import { translateEmit } from '../../src/panel/adapters/emit.js';
import { PLESK_EVENTS, pleskOwnerQuestion, translatePleskEvent } from '../../src/panel/adapters/plesk.js';
import { askPleskForReseller, ownerFromDomainInfo, translatePleskHook } from '../../src/panel/plesk-owner.js';
import type { ToolRunner } from '../../src/install/tools.js';
import type { AdapterResult } from '../../src/panel/adapters/result.js';
import type { PanelEvent } from '../../src/panel/events.js';

type Env = Record<string, string | undefined>;

const fixture = (path: string): unknown => JSON.parse(readFileSync(new URL(`../fixtures/panels/${path}`, import.meta.url), 'utf8'));
const cpanel = (name: string, now?: Date) => translateCpanelHook(fixture(`cpanel/${name}.json`), now);
/** `owner`: what the hook found with `plesk bin domain --info` (or, for a removal, in its database). */
const plesk = (name: string, now?: Date, owner?: string) => {
  const { event, env } = fixture(`plesk/${name}.json`) as { event: string; env: Env };
  return translatePleskEvent(event, env, now, owner);
};
const fixtureText = (path: string) => readFileSync(new URL(`../fixtures/panels/${path}`, import.meta.url), 'utf8');
const directadmin = (name: string, now?: Date) => {
  const { hook, env } = fixture(`directadmin/${name}.json`) as { hook: string; env: Env };
  return translateDirectAdminHook(hook, env, now);
};

const NOW = new Date('2025-06-02T09:15:20Z');
const SAME_MINUTE = new Date('2025-06-02T09:15:55Z');
const NEXT_MINUTE = new Date('2025-06-02T09:16:05Z');

const FIELDS = ['type', 'account', 'domain', 'subdomain', 'plan', 'email', 'ip'] as const;
type Shape = Partial<Record<(typeof FIELDS)[number], string>>;

/** The events' content without id and time, every field present so a stray value fails. */
function shapes(result: AdapterResult): Shape[] {
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result.events.map((event: PanelEvent) => Object.fromEntries(FIELDS.map((field) => [field, event[field]])) as Shape);
}

const shape = (fields: Shape): Shape => Object.fromEntries(FIELDS.map((field) => [field, fields[field]])) as Shape;

function errorOf(result: AdapterResult): { error: string; paths: string[] } {
  if (result.ok) throw new Error(`expected a failure, got events: ${JSON.stringify(result.events)}`);
  return { error: result.error, paths: result.details.map((detail) => detail.path) };
}

function idsOf(result: AdapterResult): string[] {
  if (!result.ok) throw new Error(result.error);
  return result.events.map((event) => event.id);
}

describe('cPanel Standardized Hooks', () => {
  it.each([
    [
      'accounts-create',
      [
        { type: 'account.created', account: 'alice', email: 'alice@example.net', plan: 'gold' },
        // `ip: "n"` is the dedicated-IP flag, not an address: left out, not an error.
        { type: 'domain.added', account: 'alice', domain: 'alice-shop.example', plan: 'gold' },
      ],
    ],
    [
      'accounts-create-dedicated-ip',
      [
        { type: 'account.created', account: 'carol', plan: 'reseller_silver' },
        { type: 'domain.added', account: 'carol', domain: 'carol.example.org', plan: 'reseller_silver', ip: '203.0.113.45' },
      ],
    ],
    ['accounts-remove-post', [{ type: 'account.deleted', account: 'alice' }]],
    // Registered at pre by installs before 0.4.0, until the next install moves it.
    ['accounts-remove', [{ type: 'account.deleted', account: 'alice' }]],
    ['accounts-suspendacct', [{ type: 'account.suspended', account: 'alice' }]],
    ['accounts-unsuspendacct', [{ type: 'account.unsuspended', account: 'alice' }]],
    ['accounts-change-package', [{ type: 'plan.changed', account: 'alice', plan: 'platinum' }]],
    ['domain-park', [{ type: 'domain.added', account: 'alice', domain: 'alice-shop.example.net' }]],
    ['domain-unpark', [{ type: 'domain.removed', account: 'alice', domain: 'alice-shop.example.net' }]],
    // Without the plugin's record (no website known) the addon's park is its domain alone.
    ['domain-park-addon', [{ type: 'domain.added', account: 'alice', domain: 'buecher-alice.example' }]],
    // Cpanel::Sub passes the label; the guide shows the full name: both are the same subdomain.
    ['whostmgr-addsubdomain', [{ type: 'subdomain.added', account: 'alice', domain: 'alice-shop.example', subdomain: 'shop' }]],
    ['whostmgr-addsubdomain-fullname', [{ type: 'subdomain.added', account: 'alice', domain: 'alice-shop.example', subdomain: 'blog' }]],
    ['whostmgr-delsubdomain', [{ type: 'subdomain.removed', account: 'alice', domain: 'alice-shop.example', subdomain: 'shop' }]],
    ['convertaddon-convert-addon', [{ type: 'domain.moved', account: 'shopper', domain: 'buecher-alice.example' }]],
  ] satisfies [string, Shape[]][])('%s', (name, expected) => {
    const result = cpanel(name, NOW);
    expect(shapes(result)).toEqual(expected.map(shape));
    if (result.ok) {
      for (const event of result.events) {
        expect(event.id).toMatch(/^cpanel:[0-9a-f]{32}$/);
        expect(event.occurredAt).toBe(NOW.toISOString());
      }
    }
  });

  it('answers the escalated Api2/UAPI hooks of earlier installs with nothing to do: the Whostmgr hooks see the change', () => {
    for (const name of [
      'api2-addsubdomain',
      'api2-addsubdomain-failed',
      'api2-delsubdomain',
      'api2-addaddondomain',
      'api2-deladdondomain',
      'uapi-addaddondomain',
      'uapi-addsubdomain',
    ]) {
      expect(cpanel(name, NOW), name).toEqual({
        ok: true,
        events: [],
        note: expect.stringContaining('the Whostmgr Domain hooks see this change'),
      });
    }
  });

  it("takes an addon's hidden subdomain off the website it was added to, by the park's target_domain", () => {
    const local = { websitesOf: (account: string) => (account === 'alice' ? ['alice-shop.example', 'example'] : []) };
    expect(shapes(translateCpanelHook(fixture('cpanel/domain-park-addon.json'), NOW, local))).toEqual([
      shape({ type: 'domain.added', account: 'alice', domain: 'buecher-alice.example' }),
      shape({ type: 'subdomain.removed', account: 'alice', domain: 'alice-shop.example', subdomain: 'buecher' }),
    ]);
    // A plain park (an alias of the main domain): the target is the website itself, nothing to take off.
    expect(shapes(translateCpanelHook(fixture('cpanel/domain-park.json'), NOW, { websitesOf: () => ['alice-shop.example'] }))).toEqual([
      shape({ type: 'domain.added', account: 'alice', domain: 'alice-shop.example.net' }),
    ]);
  });

  it('leaves restores and modifyacct to readCpanelHook, which reads the panel', () => {
    expect(errorOf(cpanel('pkgacct-restore', NOW)).error).toMatch(/reads the account's domains from cPanel/);
  });

  it('fails clearly when the user is missing', () => {
    const { error, paths } = errorOf(cpanel('accounts-create-missing-user', NOW));
    expect(error).toBe('cPanel Whostmgr Accounts::Create (post): account.created needs an account: data.user or data.username is missing');
    expect(paths).toEqual(['data.user or data.username']);
  });

  it('fails clearly on a malformed domain', () => {
    const { error, paths } = errorOf(cpanel('domain-park-malformed-domain', NOW));
    expect(error).toBe('cPanel Whostmgr Domain::park (post): domain.added: data.new_domain "not a domain!" is not a valid domain name');
    expect(paths).toEqual(['data.new_domain']);
  });

  it("says which field is missing in the brief's words", () => {
    const { error } = errorOf(
      translateCpanelHook({ context: { category: 'Whostmgr', event: 'Domain::unpark', stage: 'post' }, data: { user: 'alice' } }, NOW),
    );
    expect(error).toContain('domain.removed needs a domain: data.domain is missing');
  });

  it('rejects unsupported hooks and stages, listing the supported ones', () => {
    const { error } = errorOf(cpanel('unsupported-event', NOW));
    expect(error).toMatch(/^unsupported cPanel hook Cpanel::UAPI::Email::add_pop \(post\); supported: /);
    expect(error).toContain('Whostmgr Accounts::Create (post)');
    expect(error).toContain('Whostmgr Domain::delsubdomain (post)');
    const wrongStage = translateCpanelHook(
      { context: { category: 'Whostmgr', event: 'Accounts::Create', stage: 'pre' }, data: { user: 'alice' } },
      NOW,
    );
    expect(errorOf(wrongStage).error).toMatch(/^unsupported cPanel hook Whostmgr::Accounts::Create \(pre\)/);
  });

  it('rejects input that is not a hook envelope', () => {
    for (const input of [null, 'text', [], { data: {} }, { context: { category: 'Whostmgr' } }]) {
      expect(errorOf(translateCpanelHook(input, NOW)).error).toMatch(/^cPanel hook input must be a JSON object/);
    }
  });

  it('gives the same payload the same ids within a minute and new ids in the next', () => {
    const first = idsOf(cpanel('accounts-create', NOW));
    expect(first).toHaveLength(2);
    expect(new Set(first).size).toBe(2);
    expect(idsOf(cpanel('accounts-create', SAME_MINUTE))).toEqual(first);
    const later = idsOf(cpanel('accounts-create', NEXT_MINUTE));
    expect(later).toHaveLength(2);
    for (const id of later) expect(first).not.toContain(id);
  });

  it('does nothing for change_package without a user: a package was edited, no account moved', () => {
    expect(cpanel('accounts-change-package-edited', NOW)).toEqual({
      ok: true,
      events: [],
      note: expect.stringContaining('no account moved'),
    });
  });

  it('describes every supported hook, never blocking', () => {
    const command = '/usr/local/cpanel/3rdparty/bin/wpp-hook-cpanel';
    const hooks = describeCpanelHooks(command);
    expect(hooks.map((hook) => `${hook.category} ${hook.event} ${hook.stage}`)).toEqual([
      'Whostmgr Accounts::Create post',
      // Post: killacct runs its hooks blocking, and a pre hook answering 0 would stop a termination.
      'Whostmgr Accounts::Remove post',
      'Whostmgr Accounts::suspendacct post',
      'Whostmgr Accounts::unsuspendacct post',
      'Whostmgr Accounts::change_package post',
      'Whostmgr Domain::park post',
      'Whostmgr Domain::unpark post',
      // Root on every path (WHM, cPanel's Api2 and UAPI): no escalated Cpanel-category hook is needed.
      'Whostmgr Domain::addsubdomain post',
      'Whostmgr Domain::delsubdomain post',
      'Whostmgr Accounts::Modify post',
      'PkgAcct Restore post',
      'ConvertAddon convert_addon post',
    ]);
    // Every one runs as root: none is escalated.
    for (const hook of hooks)
      expect(hook).toEqual({ category: hook.category, event: hook.event, stage: 'post', hook: command, exectype: 'script', blocking: 0 });
    // Every described hook is one the translator accepts.
    for (const hook of hooks) {
      const result = translateCpanelHook({ context: { category: hook.category, event: hook.event, stage: hook.stage }, data: {} }, NOW);
      expect(result.ok ? '' : result.error).not.toMatch(/^unsupported/);
    }
  });
});

describe('Plesk Event Manager', () => {
  it.each([
    ['client-create', undefined, [{ type: 'account.created', account: 'jdoe', email: 'jane@doe.example' }]],
    ['client-delete', undefined, [{ type: 'account.deleted', account: 'jdoe' }]],
    ['client-update-suspend', undefined, [{ type: 'account.suspended', account: 'jdoe' }]],
    ['client-update-unsuspend', undefined, [{ type: 'account.unsuspended', account: 'jdoe' }]],
    ['domain-create', 'jdoe', [{ type: 'domain.added', account: 'jdoe', domain: 'doe-shop.example' }]],
    ['site-create', 'jdoe', [{ type: 'domain.added', account: 'jdoe', domain: 'doe-blog.example' }]],
    ['phys-hosting-create', 'jdoe', [{ type: 'domain.added', account: 'jdoe', domain: 'doe-shop.example' }]],
    ['client-status-update-suspend', undefined, [{ type: 'account.suspended', account: 'jdoe' }]],
    ['domain-delete', 'jdoe', [{ type: 'domain.removed', account: 'jdoe', domain: 'doe-shop.example' }]],
    ['subdomain-create', 'jdoe', [{ type: 'subdomain.added', account: 'jdoe', domain: 'doe-shop.example', subdomain: 'shop' }]],
    ['subdomain-delete', 'jdoe', [{ type: 'subdomain.removed', account: 'jdoe', domain: 'doe-shop.example', subdomain: 'shop' }]],
  ] satisfies [string, string | undefined, Shape[]][])('%s (owner %s)', (name, owner, expected) => {
    expect(shapes(plesk(name, NOW, owner))).toEqual(expected.map(shape));
  });

  it('takes no origin IP from a domain event: NEW_IP_ADDRESS belongs to the IP address events', () => {
    expect(shapes(plesk('domain-create-ip-leaked', NOW, 'jdoe'))).toEqual([
      shape({ type: 'domain.added', account: 'jdoe', domain: 'doe-shop.example' }),
    ]);
  });

  /** The websites of the subscription the plugin protects, as the hook finds them (its database, and Plesk for the sites). */
  const SUBSCRIPTION = [
    { domain: 'doe-shop.example', account: 'jdoe' },
    { domain: 'doe-blog.example', account: 'jdoe' },
  ];
  const statusUpdate = (name: string, websites = SUBSCRIPTION) => {
    const { event, env } = fixture(`plesk/${name}.json`) as { event: string; env: Env };
    return translatePleskEvent(event, env, NOW, undefined, websites);
  };

  it('suspends each website of a suspended subscription, and only those (domain_status_update, 0 -> 16)', () => {
    expect(shapes(statusUpdate('domain-status-update-suspend'))).toEqual([
      shape({ type: 'domain.suspended', account: 'jdoe', domain: 'doe-shop.example' }),
      shape({ type: 'domain.suspended', account: 'jdoe', domain: 'doe-blog.example' }),
    ]);
  });

  it('reactivates them when the status goes back to 0, whatever bits it held (272 = expired + by the administrator)', () => {
    expect(shapes(statusUpdate('domain-status-update-unsuspend'))).toEqual([
      shape({ type: 'domain.unsuspended', account: 'jdoe', domain: 'doe-shop.example' }),
      shape({ type: 'domain.unsuspended', account: 'jdoe', domain: 'doe-blog.example' }),
    ]);
  });

  it('leaves a subscription alone while Plesk holds it for a backup or restore (status 4), and one wpp does not protect', () => {
    expect(statusUpdate('domain-status-update-backup')).toMatchObject({ ok: true, events: [] });
    expect(statusUpdate('domain-status-update-suspend', [])).toMatchObject({ ok: true, events: [] });
  });

  it('never takes an owner from event variables Plesk does not document, nor the system user', () => {
    // NEW_CLIENT_LOGIN is in no Plesk documentation; NEW_SYSTEM_USER is the FTP user, not the customer login.
    const env = { NEW_DOMAIN_NAME: 'doe-shop.example', NEW_CLIENT_LOGIN: 'jdoe', NEW_SYSTEM_USER: 'doeshop_ftp' };
    expect(errorOf(translatePleskEvent('domain_create', env, NOW)).error).toBe(
      'Plesk domain_create: domain.added needs an account: the owner from plesk bin domain --info is missing',
    );
  });

  it('asks for the owner of the domain of domain, site, subdomain and hosting events, of no other', () => {
    expect(pleskOwnerQuestion('domain_create', { NEW_DOMAIN_NAME: 'a.example' })).toEqual({ domain: 'a.example', removal: false });
    expect(pleskOwnerQuestion('site_create', { NEW_DOMAIN_NAME: 'b.example' })).toEqual({ domain: 'b.example', removal: false });
    expect(pleskOwnerQuestion('phys_hosting_create', { NEW_DOMAIN_NAME: 'c.example' })).toEqual({ domain: 'c.example', removal: false });
    expect(pleskOwnerQuestion('subdomain_create', { NEW_SUBDOMAIN_NAME: 'x', NEW_DOMAIN_NAME: 'd.example' })).toEqual({
      domain: 'd.example',
      removal: false,
    });
    expect(pleskOwnerQuestion('site_delete', { OLD_DOMAIN_NAME: 'e.example' })).toEqual({ domain: 'e.example', removal: true });
    expect(pleskOwnerQuestion('subdomain_delete', { OLD_DOMAIN_NAME: 'f.example' })).toEqual({ domain: 'f.example', removal: true });
    expect(pleskOwnerQuestion('client_create', { NEW_LOGIN_NAME: 'jdoe', NEW_DOMAIN_NAME: 'g.example' })).toBeUndefined();
    expect(pleskOwnerQuestion('domain_create', {})).toBeUndefined();
    expect(pleskOwnerQuestion('mailname_create', { NEW_DOMAIN_NAME: 'h.example' })).toBeUndefined();
  });

  it("reads the owner's login from plesk bin domain --info", () => {
    expect(ownerFromDomainInfo(fixtureText('plesk/domain-info-jdoe.txt'))).toBe('jdoe');
    expect(ownerFromDomainInfo(fixtureText('plesk/domain-info-admin.txt'))).toBe('admin');
    expect(ownerFromDomainInfo("Owner's contact name:   Doe (Holding) Ltd (doe.ltd)\r\n")).toBe('doe.ltd');
    expect(ownerFromDomainInfo("Domain name:   x.example\nOwner's contact name:   Jane Doe\n")).toBeUndefined();
    expect(ownerFromDomainInfo('')).toBeUndefined();
  });

  it('ignores a client_update that does not change the status', () => {
    expect(plesk('client-update-email-only', NOW)).toEqual({
      ok: true,
      events: [],
      note: expect.stringContaining('the status did not change'),
    });
    expect(translatePleskEvent('client_update', { NEW_LOGIN_NAME: 'jdoe' }, NOW)).toMatchObject({ ok: true, events: [] });
  });

  it('reads any non-zero status as suspended and words as well', () => {
    for (const status of ['32', '64', '256', 'suspended']) {
      expect(shapes(translatePleskEvent('client_update', { NEW_LOGIN_NAME: 'jdoe', NEW_STATUS: status }, NOW))[0]?.type).toBe(
        'account.suspended',
      );
    }
    expect(
      shapes(translatePleskEvent('client_update', { NEW_LOGIN_NAME: 'jdoe', NEW_STATUS: 'active', OLD_STATUS: '16' }, NOW))[0]?.type,
    ).toBe('account.unsuspended');
    expect(errorOf(translatePleskEvent('client_update', { NEW_LOGIN_NAME: 'jdoe', NEW_STATUS: 'weird' }, NOW)).error).toContain(
      'NEW_STATUS="weird" is not a Plesk status',
    );
  });

  it('fails clearly when no owner is given', () => {
    const { error, paths } = errorOf(plesk('domain-create-missing-owner', NOW));
    expect(error).toBe('Plesk domain_create: domain.added needs an account: the owner from plesk bin domain --info is missing');
    expect(paths).toEqual(['the owner from plesk bin domain --info']);
  });

  it('fails clearly on a malformed domain and a missing one', () => {
    expect(errorOf(translatePleskEvent('site_create', { NEW_DOMAIN_NAME: 'bad..example' }, NOW, 'jdoe')).error).toBe(
      'Plesk site_create: domain.added: NEW_DOMAIN_NAME "bad..example" is not a valid domain name',
    );
    expect(errorOf(translatePleskEvent('domain_delete', {}, NOW, 'jdoe')).error).toBe(
      'Plesk domain_delete: domain.removed needs a domain: OLD_DOMAIN_NAME is missing',
    );
  });

  it('rejects unsupported events, listing the supported ones', () => {
    const { error } = errorOf(plesk('unsupported-event', NOW));
    expect(error).toBe(`unsupported Plesk event "mailname_create"; supported: ${PLESK_EVENTS.join(', ')}`);
    expect(PLESK_EVENTS).toEqual(
      expect.arrayContaining([
        'client_create',
        'client_update',
        'client_delete',
        'domain_create',
        'domain_delete',
        'site_create',
        'subdomain_create',
        'subdomain_delete',
        'phys_hosting_create',
      ]),
    );
  });

  it('keeps ids stable within a minute', () => {
    const first = idsOf(plesk('domain-create', NOW, 'jdoe'));
    expect(idsOf(plesk('domain-create', SAME_MINUTE, 'jdoe'))).toEqual(first);
    expect(idsOf(plesk('domain-create', NEXT_MINUTE, 'jdoe'))).not.toEqual(first);
    expect(first[0]).toMatch(/^plesk:/);
  });
});

describe('DirectAdmin hook scripts', () => {
  it.each([
    [
      'user-create-post',
      [
        { type: 'account.created', account: 'fred', email: 'fred@fred-site.example', plan: 'bronze' },
        { type: 'domain.added', account: 'fred', domain: 'fred-site.example', plan: 'bronze', ip: '192.0.2.10' },
      ],
    ],
    ['domain-create-post', [{ type: 'domain.added', account: 'fred', domain: 'fred-extra.example' }]],
    ['domain-destroy-post', [{ type: 'domain.removed', account: 'fred', domain: 'fred-extra.example' }]],
    ['user-destroy-post', [{ type: 'account.deleted', account: 'fred' }]],
    ['user-suspend-post', [{ type: 'account.suspended', account: 'fred' }]],
    // DirectAdmin unsuspends with user_activate_post: there is no user_unsuspend_post hook.
    ['user-activate-post', [{ type: 'account.unsuspended', account: 'fred' }]],
    // A user moved to another package: user.conf after the change, with `package`.
    ['user-modify-post', [{ type: 'plan.changed', account: 'fred', plan: 'silver' }]],
    ['subdomain-create-post', [{ type: 'subdomain.added', account: 'fred', domain: 'fred-site.example', subdomain: 'blog' }]],
    ['subdomain-destroy-post', [{ type: 'subdomain.removed', account: 'fred', domain: 'fred-site.example', subdomain: 'blog' }]],
    // A domain renamed (`domain` old, `newdomain` new): the new name protected, then the old one removed.
    [
      'domain-change-post',
      [
        { type: 'domain.added', account: 'bob', domain: 'bob-new.example', ip: '192.0.2.30' },
        { type: 'domain.removed', account: 'bob', domain: 'bob.example' },
      ],
    ],
  ] satisfies [string, Shape[]][])('%s', (name, expected) => {
    expect(shapes(directadmin(name, NOW))).toEqual(expected.map(shape));
  });

  it('refuses a domain change without the new name, queuing neither half of it', () => {
    const { error, paths } = errorOf(directadmin('domain-change-post-missing-newdomain', NOW));
    expect(error).toBe('DirectAdmin domain_change_post: domain.added needs a domain: newdomain is missing');
    expect(paths).toEqual(['newdomain']);
  });

  it('registers domain_change_post and user_restore_post', () => {
    expect(DIRECTADMIN_HOOKS).toEqual(expect.arrayContaining(['domain_change_post', 'user_restore_post']));
  });

  it('registers user_activate_post for unsuspensions, and no user_unsuspend_post (DirectAdmin has none)', () => {
    expect(DIRECTADMIN_HOOKS).toContain('user_activate_post');
    expect(DIRECTADMIN_HOOKS).not.toContain('user_unsuspend_post');
  });

  it('does nothing for user_modify_post without a package (a user changed, no package named)', () => {
    expect(directadmin('user-modify-post-no-package', NOW)).toEqual({ ok: true, events: [], note: expect.stringContaining('no package') });
  });

  it('leaves a domain created with its user to user_create_post', () => {
    expect(directadmin('domain-create-post-user-creation', NOW)).toEqual({
      ok: true,
      events: [],
      note: expect.stringContaining('covered by user_create_post'),
    });
  });

  it('fails clearly on a malformed domain, writing nothing for the account either', () => {
    const { error, paths } = errorOf(directadmin('user-create-post-malformed-domain', NOW));
    expect(error).toBe('DirectAdmin user_create_post: domain.added: domain "greta_site..example" is not a valid domain name');
    expect(paths).toEqual(['domain']);
  });

  it('fails clearly when the user is missing', () => {
    expect(errorOf(directadmin('subdomain-create-post-missing-user', NOW)).error).toBe(
      'DirectAdmin subdomain_create_post: subdomain.added needs an account: username is missing',
    );
  });

  it('rejects unsupported hooks and accepts the script file name', () => {
    expect(errorOf(directadmin('unsupported-hook', NOW)).error).toBe(
      `unsupported DirectAdmin hook "email_create_post"; supported: ${DIRECTADMIN_HOOKS.join(', ')}`,
    );
    expect(shapes(translateDirectAdminHook('user_suspend_post.sh', { username: 'fred' }, NOW))).toEqual([
      shape({ type: 'account.suspended', account: 'fred' }),
    ]);
  });

  it('keeps ids stable within a minute and apart from other panels', () => {
    const first = idsOf(directadmin('user-create-post', NOW));
    expect(idsOf(directadmin('user-create-post', SAME_MINUTE))).toEqual(first);
    expect(idsOf(directadmin('user-create-post', NEXT_MINUTE))).not.toEqual(first);
    const emitted = idsOf(
      translateEmit(['account.created', '--account', 'fred', '--email', 'fred@fred-site.example', '--plan', 'bronze'], NOW),
    );
    expect(emitted[0]).not.toBe(first[0]);
  });
});

describe('wpp hook emit', () => {
  it('builds one event from the options', () => {
    const result = translateEmit(
      [
        'subdomain.added',
        '--account',
        'Alice',
        '--domain',
        'Alice-Shop.example',
        '--subdomain',
        'Blog',
        '--plan',
        'gold',
        '--email',
        'a@alice-shop.example',
        '--ip',
        '2001:DB8::1',
      ],
      NOW,
    );
    expect(shapes(result)).toEqual([
      shape({
        type: 'subdomain.added',
        account: 'alice',
        domain: 'alice-shop.example',
        subdomain: 'blog',
        plan: 'gold',
        email: 'a@alice-shop.example',
        ip: '2001:db8::1',
      }),
    ]);
  });

  it('needs the fields the schema requires for the type', () => {
    expect(errorOf(translateEmit(['domain.added', '--account', 'alice'], NOW))).toEqual({
      error: 'emit: domain.added needs a domain: --domain is missing',
      paths: ['--domain'],
    });
    expect(errorOf(translateEmit(['plan.changed', '--account', 'alice'], NOW)).error).toBe(
      'emit: plan.changed needs a plan: --plan is missing',
    );
    expect(errorOf(translateEmit(['account.created'], NOW)).error).toBe('emit: account.created needs an account: --account is missing');
    expect(errorOf(translateEmit(['account.created', '--account', ''], NOW)).error).toBe(
      'emit: account.created needs an account: --account is missing',
    );
  });

  it('rejects unknown options, unknown types and stray arguments', () => {
    expect(errorOf(translateEmit(['account.created', '--account', 'alice', '--colour', 'red'], NOW)).error).toMatch(
      /^emit: Unknown option '--colour'/,
    );
    expect(errorOf(translateEmit(['website.added', '--account', 'alice'], NOW)).error).toMatch(
      /^emit needs an event type first, not "website\.added"; one of: account\.created, /,
    );
    expect(errorOf(translateEmit(['--account', 'alice'], NOW)).error).toMatch(/^emit needs an event type first; one of: /);
    expect(errorOf(translateEmit(['account.created', 'extra', '--account', 'alice'], NOW)).error).toBe(
      'emit takes one event type; unexpected: extra',
    );
    expect(errorOf(translateEmit(['domain.added', '--account', 'alice', '--domain', 'x.example', '--ip', '999.1.1.1'], NOW)).error).toBe(
      'emit: domain.added: --ip ip must be an IPv4 or IPv6 address',
    );
  });

  it("uses the caller's --id, else derives a stable one", () => {
    const own = translateEmit(['account.suspended', '--account', 'alice', '--id', 'whmcs-suspend-4711'], NOW);
    expect(idsOf(own)).toEqual(['whmcs-suspend-4711']);
    const derived = idsOf(translateEmit(['account.suspended', '--account', 'alice'], NOW));
    expect(derived[0]).toMatch(/^emit:[0-9a-f]{32}$/);
    expect(idsOf(translateEmit(['account.suspended', '--account', 'ALICE'], SAME_MINUTE))).toEqual(derived);
    expect(idsOf(translateEmit(['account.suspended', '--account', 'alice'], NEXT_MINUTE))).not.toEqual(derived);
  });
});

/** Who owns the account (issue 22): each panel's owner field as the event's `reseller`, and transfers between resellers. */
describe('resellers: the owner of each account, from every panel', () => {
  /** type, account and reseller of each event (`undefined`: the panel did not say). */
  const owners = (result: AdapterResult) => {
    if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
    return result.events.map((event) => [event.type, event.account, event.reseller]);
  };
  const NO_PANEL = { domainsOf: () => Promise.reject(new Error('not read')) };
  const NO_LOCAL = { websitesOf: () => [] };

  it("cPanel Accounts::Create: createacct's owner is the reseller; root is the host's own", () => {
    expect(owners(cpanel('accounts-create-reseller', NOW))[0]).toEqual(['account.created', 'alice', 'res1']);
    expect(owners(cpanel('accounts-create', NOW))[0]).toEqual(['account.created', 'alice', null]);
    // No owner in the payload: not said, so whatever the plugin has stays.
    const withoutOwner = fixture('cpanel/accounts-create.json') as { context: unknown; data: Record<string, unknown> };
    delete withoutOwner.data.owner;
    expect(owners(translateCpanelHook(withoutOwner, NOW))[0]).toEqual(['account.created', 'alice', undefined]);
  });

  it("cPanel Accounts::Modify: modifyacct's OWNER is a transfer, under the new name after a rename", async () => {
    expect(owners(await readCpanelHook(fixture('cpanel/accounts-modify-owner.json'), NO_PANEL, NO_LOCAL, NOW))).toEqual([
      ['account.transferred', 'alice', 'res2'],
    ]);
    expect(owners(await readCpanelHook(fixture('cpanel/accounts-modify-owner-root.json'), NO_PANEL, NO_LOCAL, NOW))).toEqual([
      ['account.renamed', 'alicia', undefined],
      ['account.transferred', 'alicia', null],
    ]);
  });

  it("DirectAdmin: user_create_post's creator is the reseller (admin: the host's own); user_modify_post's creator the owner now", () => {
    expect(owners(directadmin('user-create-post-reseller', NOW))[0]).toEqual(['account.created', 'fred', 'res1']);
    expect(owners(directadmin('user-create-post', NOW))[0]).toEqual(['account.created', 'fred', null]);
    expect(owners(directadmin('user-modify-post-creator', NOW))).toEqual([
      ['plan.changed', 'fred', undefined],
      ['account.transferred', 'fred', 'res2'],
    ]);
  });

  it('DirectAdmin user_restore_post: the account comes back with the owner its user.conf names', () => {
    const files = { email: undefined, plan: 'bronze', suspended: false, reseller: 'res1', ip: undefined, domains: [] };
    expect(owners(translateDirectAdminHook('user_restore_post', { username: 'fred' }, NOW, files))).toEqual([
      ['account.created', 'fred', 'res1'],
    ]);
  });

  /** A ToolRunner whose `plesk db` prints `stdout` (or fails), recording the query. */
  const pleskDb = (stdout: string | null, queries: string[] = []): ToolRunner =>
    ({
      root: '/',
      at: (path: string) => path,
      exists: () => Promise.resolve(true),
      run: () => Promise.reject(new Error('not used')),
      check: (_tool: string, args: string[]) => {
        queries.push(args[2] ?? '');
        return stdout === null ? Promise.reject(new Error('plesk db: no database')) : Promise.resolve({ code: 0, stdout, stderr: '' });
      },
    }) as ToolRunner;
  const sources = (tools: ToolRunner) => ({ tools, websiteAccount: () => undefined });

  it("Plesk client_create: the customer's owner from Plesk's clients table (a reseller, or the administrator's own)", async () => {
    const { event, env } = fixture('plesk/client-create.json') as { event: string; env: Env };
    const queries: string[] = [];
    const reseller = await translatePleskHook(
      event,
      env,
      sources(pleskDb(fixtureText('plesk/db-customer-owner-reseller.txt'), queries)),
      NOW,
    );
    expect(owners(reseller)).toEqual([['account.created', 'jdoe', 'res1']]);
    expect(queries[0]).toContain("WHERE c.login = 'jdoe'");
    const admin = await translatePleskHook(event, env, sources(pleskDb(fixtureText('plesk/db-customer-owner-admin.txt'))), NOW);
    expect(owners(admin)).toEqual([['account.created', 'jdoe', null]]);
  });

  it('Plesk client_create: still creates the account when Plesk cannot name the owner, and says so', async () => {
    const { event, env } = fixture('plesk/client-create.json') as { event: string; env: Env };
    const result = await translatePleskHook(event, env, sources(pleskDb(null)), NOW);
    expect(owners(result)).toEqual([['account.created', 'jdoe', undefined]]);
    expect(result.ok && result.note).toContain('its reseller is not known');
    // A login that is no account name never reaches the query.
    await expect(askPleskForReseller(pleskDb(''), "x' OR '1'='1")).rejects.toThrow('is not a customer login');
  });

  it('wpp hook emit: --reseller names the owner, "" the host\'s own; a transfer needs one', () => {
    expect(owners(translateEmit(['account.created', '--account', 'fred', '--reseller', 'Res1'], NOW))).toEqual([
      ['account.created', 'fred', 'res1'],
    ]);
    expect(owners(translateEmit(['account.transferred', '--account', 'fred', '--reseller', ''], NOW))).toEqual([
      ['account.transferred', 'fred', null],
    ]);
    expect(errorOf(translateEmit(['account.transferred', '--account', 'fred'], NOW)).error).toBe(
      'emit: account.transferred needs a reseller: --reseller is missing',
    );
    expect(errorOf(translateEmit(['domain.added', '--account', 'fred', '--domain', 'f.example', '--reseller', 'res1'], NOW)).paths).toEqual(
      ['--reseller'],
    );
  });
});
