/**
 * Virtualmin's pre/post change command -> panel events, from environments captured from the
 * real Virtualmin GPL 8.1.0 (test/fixtures/panels/virtualmin, see the fixtures README).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { translateVirtualminHook, VIRTUALMIN_VARIABLES } from '../../src/panel/adapters/virtualmin.js';
import type { AdapterResult } from '../../src/panel/adapters/result.js';

type Env = Record<string, string | undefined>;

const captured = (name: string): Env =>
  (JSON.parse(readFileSync(new URL(`../fixtures/panels/virtualmin/${name}.json`, import.meta.url), 'utf8')) as { env: Env }).env;

const NOW = new Date('2026-11-26T04:24:10Z');

const post = (name: string, env: Env = {}) => translateVirtualminHook('post', { ...captured(name), ...env }, NOW);

function shapes(result: AdapterResult) {
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result.events.map(({ type, account, domain, email, ip }) => ({ type, account, domain, email, ip }));
}

describe('Virtualmin post-change command', () => {
  it('a top-level server: its Unix user is the account, its domain a website', () => {
    expect(shapes(post('create-top-level'))).toEqual([
      { type: 'account.created', account: 'cap-top', domain: undefined, email: 'owner@example.com', ip: undefined },
      { type: 'domain.added', account: 'cap-top', domain: 'cap-top.example.com', email: undefined, ip: '192.0.2.2' },
    ]);
  });

  it('creates the account without an e-mail when Virtualmin made up a local one (user@hostname)', () => {
    const result = post('create-top-level', { VIRTUALSERVER_EMAILTO: 'second@vm', VIRTUALSERVER_EMAIL: 'second@vm' });
    expect(shapes(result)[0]).toEqual({ type: 'account.created', account: 'cap-top', domain: undefined, email: undefined, ip: undefined });
  });

  it('a sub-server and an alias are websites of the top-level server’s account', () => {
    expect(shapes(post('create-sub-server'))).toEqual([
      { type: 'domain.added', account: 'cap-top', domain: 'blog.cap-top.example.com', email: undefined, ip: '192.0.2.2' },
    ]);
    expect(shapes(post('create-alias'))).toEqual([
      { type: 'domain.added', account: 'cap-top', domain: 'cap-alias.example.net', email: undefined, ip: '192.0.2.2' },
    ]);
  });

  it('decides by VIRTUALSERVER_PARENT / VIRTUALSERVER_ALIAS being non-empty, never by leaked PARENT_* / ALIAS_* values', () => {
    // The top-level server's delete runs after its alias's in one cascade: ALIAS_VIRTUALSERVER_* are still set.
    const env = captured('delete-top-level');
    expect(env.ALIAS_VIRTUALSERVER_DOM).toBe('cap-renamed.example.com');
    expect(shapes(post('delete-top-level'))).toEqual([
      { type: 'account.deleted', account: 'cap-top', domain: undefined, email: undefined, ip: undefined },
    ]);
    // And a top-level server created from a shell that has PARENT_* set is still top-level.
    expect(shapes(post('create-top-level', { PARENT_VIRTUALSERVER_DOM: 'other.example.com', PARENT_VIRTUALSERVER_ID: '1' }))[0]?.type).toBe(
      'account.created',
    );
  });

  it('deleting a sub-server or an alias removes its website (cascaded from the parent’s delete too)', () => {
    expect(shapes(post('delete-sub-server-cascade'))).toEqual([
      { type: 'domain.removed', account: 'cap-top', domain: 'news.cap-renamed.example.com', email: undefined, ip: undefined },
    ]);
    expect(shapes(post('delete-alias-cascade'))).toEqual([
      { type: 'domain.removed', account: 'cap-top', domain: 'cap-alias.example.net', email: undefined, ip: undefined },
    ]);
  });

  it('disable / enable of a top-level server suspends / unsuspends its account', () => {
    expect(shapes(post('disable-top-level'))).toEqual([
      { type: 'account.suspended', account: 'cap-top', domain: undefined, email: undefined, ip: undefined },
    ]);
    expect(shapes(post('enable-top-level'))).toEqual([
      { type: 'account.unsuspended', account: 'cap-top', domain: undefined, email: undefined, ip: undefined },
    ]);
  });

  it('disable / enable of a sub-server or an alias suspends / unsuspends that website alone (its account stays active)', () => {
    // On a production server Virtualmin disables the sub-server's web feature (VIRTUALSERVER_DISABLED=web); the
    // testbed has no web server, so that one value is set over the captured environment.
    expect(shapes(post('disable-sub-server', { VIRTUALSERVER_DISABLED: 'web' }))).toEqual([
      { type: 'domain.suspended', account: 'cap-top', domain: 'blog.cap-top.example.com', email: undefined, ip: undefined },
    ]);
    expect(shapes(post('disable-alias', { VIRTUALSERVER_DISABLED: 'web' }))).toEqual([
      { type: 'domain.suspended', account: 'cap-new', domain: 'cap-alias.example.net', email: undefined, ip: undefined },
    ]);
    expect(shapes(post('disable-sub-server', { VIRTUALSERVER_ACTION: 'ENABLE_DOMAIN', VIRTUALSERVER_DISABLED: '' }))).toEqual([
      { type: 'domain.unsuspended', account: 'cap-top', domain: 'blog.cap-top.example.com', email: undefined, ip: undefined },
    ]);
    expect(shapes(post('disable-alias', { VIRTUALSERVER_ACTION: 'ENABLE_DOMAIN', VIRTUALSERVER_DISABLED: '' }))).toEqual([
      { type: 'domain.unsuspended', account: 'cap-new', domain: 'cap-alias.example.net', email: undefined, ip: undefined },
    ]);
  });

  it('a disable that disabled nothing (VIRTUALSERVER_DISABLED empty, as captured) is nothing to do: Virtualmin keeps the server enabled', () => {
    // Seen on 8.1.0: enable-domain then refuses ("is not disabled"), so a website paused here would never be resumed.
    for (const name of ['disable-sub-server', 'disable-alias', 'disable-sub-server-cascade']) {
      expect(captured(name).VIRTUALSERVER_DISABLED, name).toBe('');
      expect(post(name), name).toEqual({ ok: true, events: [], note: expect.stringContaining('nothing was disabled') });
    }
    expect(post('disable-top-level', { VIRTUALSERVER_DISABLED: '' })).toEqual({
      ok: true,
      events: [],
      note: expect.stringContaining('nothing was disabled'),
    });
    // Without the variable at all (a launcher from before it was passed), a disable is taken at its word.
    expect(shapes(post('disable-sub-server', { VIRTUALSERVER_DISABLED: undefined }))[0]?.type).toBe('domain.suspended');
  });

  it('modify-domain --user of a top-level server renames the account (VIRTUALSERVER_OLDSERVER_USER -> VIRTUALSERVER_USER)', () => {
    const env = captured('modify-user-top-level');
    expect([env.VIRTUALSERVER_OLDSERVER_USER, env.VIRTUALSERVER_USER]).toEqual(['cap-top', 'cap-new']);
    const result = post('modify-user-top-level');
    expect(
      result.ok && result.events.map(({ type, account, previousAccount, domain }) => ({ type, account, previousAccount, domain })),
    ).toEqual([{ type: 'account.renamed', account: 'cap-new', previousAccount: 'cap-top', domain: undefined }]);
  });

  it('a user rename together with a domain rename renames the account first, then moves the website under the new name', () => {
    const result = post('modify-user-top-level', { VIRTUALSERVER_DOM: 'cap-renamed.example.com' });
    expect(
      result.ok && result.events.map(({ type, account, previousAccount, domain }) => ({ type, account, previousAccount, domain })),
    ).toEqual([
      { type: 'account.renamed', account: 'cap-new', previousAccount: 'cap-top', domain: undefined },
      { type: 'domain.added', account: 'cap-new', previousAccount: undefined, domain: 'cap-renamed.example.com' },
      { type: 'domain.removed', account: 'cap-new', previousAccount: undefined, domain: 'cap-top.example.com' },
    ]);
  });

  it('an unchanged user, or a sub-server / alias (which share their parent’s user), renames no account', () => {
    // A domain rename carries the same user in both.
    expect(shapes(post('modify-rename-top-level')).map((event) => event.type)).toEqual(['domain.added', 'domain.removed']);
    // Virtualmin gave the sub-server and the alias no call of their own (seen); should one come, the top-level server's rename covers it.
    const parent = captured('create-sub-server').VIRTUALSERVER_PARENT as string;
    expect(post('modify-user-top-level', { VIRTUALSERVER_PARENT: parent })).toEqual({
      ok: true,
      events: [],
      note: expect.stringContaining('name unchanged'),
    });
  });

  it('a rename (post phase, VIRTUALSERVER_OLDSERVER_DOM) protects the new name and removes the old one', () => {
    expect(shapes(post('modify-rename-top-level'))).toEqual([
      { type: 'domain.added', account: 'cap-top', domain: 'cap-renamed.example.com', email: undefined, ip: '192.0.2.2' },
      { type: 'domain.removed', account: 'cap-top', domain: 'cap-top.example.com', email: undefined, ip: undefined },
    ]);
    expect(shapes(post('modify-rename-sub-server'))).toEqual([
      { type: 'domain.added', account: 'cap-top', domain: 'news.cap-renamed.example.com', email: undefined, ip: '192.0.2.2' },
      { type: 'domain.removed', account: 'cap-top', domain: 'blog.cap-top.example.com', email: undefined, ip: undefined },
    ]);
  });

  it('a modification that keeps the name is nothing to do', () => {
    expect(post('modify-description')).toEqual({ ok: true, events: [], note: expect.stringContaining('name unchanged') });
  });

  it('acts only in the post phase: the pre phase (and a rename’s pre-phase environment) does nothing', () => {
    expect(translateVirtualminHook('pre', captured('create-top-level'), NOW)).toEqual({
      ok: true,
      events: [],
      note: expect.stringContaining('pre-change'),
    });
    const prePhaseRename = { ...captured('modify-description'), VIRTUALSERVER_NEWSERVER_DOM: 'next.example.com' };
    expect(translateVirtualminHook('post', prePhaseRename, NOW)).toEqual({
      ok: true,
      events: [],
      note: expect.stringContaining('pre-change'),
    });
  });

  it('fails clearly on an unknown action, a missing user and a malformed domain', () => {
    const unknown = post('create-top-level', { VIRTUALSERVER_ACTION: 'RESTORE_DOMAIN' });
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.error).toMatch(
      /VIRTUALSERVER_ACTION.*CREATE_DOMAIN, MODIFY_DOMAIN, DELETE_DOMAIN, DISABLE_DOMAIN, ENABLE_DOMAIN/,
    );
    const noUser = post('create-sub-server', { VIRTUALSERVER_USER: '' });
    expect(!noUser.ok && noUser.error).toMatch(/VIRTUALSERVER_USER is missing/);
    const badDomain = post('create-top-level', { VIRTUALSERVER_DOM: 'not a domain' });
    expect(!badDomain.ok && badDomain.error).toMatch(/VIRTUALSERVER_DOM/);
    // Nothing half-done: the account is not created without its domain.
    expect(badDomain.ok).toBe(false);
  });

  it('reads only the variables the launcher passes it', () => {
    for (const name of ['modify-rename-sub-server', 'modify-user-top-level', 'disable-alias']) {
      const env = captured(name);
      const only = Object.fromEntries(VIRTUALMIN_VARIABLES.map((variable) => [variable, env[variable]]));
      expect(translateVirtualminHook('post', only, NOW), name).toEqual(post(name));
    }
  });

  it('tells changes apart by when Virtualmin saved the record: disable, enable, disable within one minute is two disables', () => {
    const disable = post('disable-top-level');
    const enable = post('enable-top-level');
    // The second disable: same server, same minute, a later save.
    const again = post('disable-top-level', {
      VIRTUALSERVER_LASTSAVE: String(Number(captured('enable-top-level').VIRTUALSERVER_LASTSAVE) + 2),
    });
    const ids = [disable, enable, again].map((result) => (result.ok ? result.events[0]?.id : undefined));
    expect(new Set(ids).size).toBe(3);
    // The same change reported twice, even minutes apart, stays one event.
    const later = translateVirtualminHook('post', captured('disable-top-level'), new Date(NOW.getTime() + 5 * 60_000));
    expect(later.ok && later.events[0]?.id).toBe(ids[0]);
  });

  it('tells apart two different changes saved within one second: disable-feature then enable-feature is not a replay', () => {
    // Virtualmin stamps the save to the second; on a fast machine the two commands save within one.
    const off = post('disable-feature-wpp');
    const on = post('disable-feature-wpp', { VIRTUALSERVER_WPP: '1', VIRTUALSERVER_OLDSERVER_WPP: '0' });
    const ids = [off, on].map((result) => (result.ok ? result.events.find((event) => event.type === 'plan.changed')?.id : undefined));
    expect(ids.every(Boolean)).toBe(true);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('keeps ids stable within a minute, apart from other panels', () => {
    const first = post('create-alias');
    const again = translateVirtualminHook('post', captured('create-alias'), new Date('2026-11-26T04:24:50Z'));
    expect(first.ok && again.ok && first.events[0]?.id === again.events[0]?.id).toBe(true);
    expect(first.ok && first.events[0]?.id.startsWith('virtualmin:')).toBe(true);
  });

  describe('resellers (VIRTUALSERVER_RESELLER, as captured: empty on Virtualmin GPL)', () => {
    const owners = (result: AdapterResult) => {
      if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
      return result.events.map((event) => [event.type, event.account, event.reseller]);
    };

    it("a top-level server's reseller owns the account; none (empty) is the host's own", () => {
      expect(owners(post('create-top-level-reseller'))[0]).toEqual(['account.created', 'cap-top', 'res1']);
      expect(owners(post('create-top-level'))[0]).toEqual(['account.created', 'cap-top', null]);
      // Several resellers: the first owns it.
      expect(owners(post('create-top-level', { VIRTUALSERVER_RESELLER: 'res2 res1' }))[0]).toEqual(['account.created', 'cap-top', 'res2']);
      // A launcher that does not pass the variable: not said.
      expect(owners(post('create-top-level', { VIRTUALSERVER_RESELLER: undefined }))[0]).toEqual(['account.created', 'cap-top', undefined]);
    });

    it('a server handed to another reseller is a transfer; the same reseller after a change is nothing to do', () => {
      expect(owners(post('modify-reseller-top-level'))).toEqual([['account.transferred', 'cap-top', 'res2']]);
      expect(owners(post('modify-reseller-top-level', { VIRTUALSERVER_RESELLER: '' }))).toEqual([['account.transferred', 'cap-top', null]]);
      expect(post('modify-reseller-top-level', { VIRTUALSERVER_RESELLER: 'res1' })).toEqual({
        ok: true,
        events: [],
        note: expect.stringContaining('no new reseller'),
      });
    });

    it('passes the reseller variables through the launcher', () => {
      expect(VIRTUALMIN_VARIABLES).toEqual(expect.arrayContaining(['VIRTUALSERVER_RESELLER', 'VIRTUALSERVER_OLDSERVER_RESELLER']));
    });
  });
  describe('protection per package: the Web Protection feature of the server (VIRTUALSERVER_WPP)', () => {
    const said = (result: AdapterResult) => {
      if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
      return result.events.map((event) => [event.type, event.account, event.protection]);
    };

    it('a top-level server created with the feature includes protection, one without it does not; a record without the field says nothing', () => {
      expect(said(post('create-top-level-wpp'))[0]).toEqual(['account.created', 'cap-top', true]);
      expect(said(post('create-top-level-wpp', { VIRTUALSERVER_WPP: '0' }))[0]).toEqual(['account.created', 'cap-top', false]);
      // The captured GPL 8.1.0 record, made before wpp was a feature: no VIRTUALSERVER_WPP at all.
      expect(captured('create-top-level').VIRTUALSERVER_WPP).toBeUndefined();
      expect(said(post('create-top-level'))[0]).toEqual(['account.created', 'cap-top', undefined]);
    });

    it('the feature turned off or on (disable-feature / enable-feature) is a plan.changed saying so', () => {
      // Without the old record the reseller is said again too (account.transferred, as before): core acts only on changes.
      const changed = (result: AdapterResult) => said(result).filter(([type]) => type === 'plan.changed');
      expect(changed(post('disable-feature-wpp'))).toEqual([['plan.changed', 'cap-top', false]]);
      expect(changed(post('disable-feature-wpp', { VIRTUALSERVER_WPP: '1' }))).toEqual([['plan.changed', 'cap-top', true]]);
      // modify-domain keeps the old record: the feature toggled between the two is a change.
      expect(said(post('modify-description', { VIRTUALSERVER_WPP: '1', VIRTUALSERVER_OLDSERVER_WPP: '0' }))).toEqual([
        ['plan.changed', 'cap-top', true],
      ]);
    });

    it('another plan (modify-domain --apply-plan) says the protection the server has with it', () => {
      const moved = {
        VIRTUALSERVER_WPP: '0',
        VIRTUALSERVER_OLDSERVER_WPP: '0',
        VIRTUALSERVER_PLAN: '2',
        VIRTUALSERVER_OLDSERVER_PLAN: '0',
      };
      expect(said(post('modify-description', moved))).toEqual([['plan.changed', 'cap-top', false]]);
      // The package is the plan's id: the record has no plan name.
      const result = post('modify-description', moved);
      expect(result.ok && result.events[0]?.plan).toBe('2');
    });

    it('a change that leaves feature and plan as they were is nothing to do, and a sub-server never speaks for the account', () => {
      expect(post('modify-description', { VIRTUALSERVER_WPP: '1', VIRTUALSERVER_OLDSERVER_WPP: '1' })).toEqual({
        ok: true,
        events: [],
        note: expect.stringContaining('nothing to do'),
      });
      // A server from before wpp was a feature (no wpp field in the old record) saved with the box off, as the form showed it.
      expect(post('modify-description', { VIRTUALSERVER_WPP: '0' })).toMatchObject({ ok: true, events: [] });
      expect(said(post('modify-description', { VIRTUALSERVER_WPP: '1' }))).toEqual([['plan.changed', 'cap-top', true]]);
      expect(said(post('create-sub-server', { VIRTUALSERVER_WPP: '0' }))).toEqual([['domain.added', 'cap-top', undefined]]);
    });

    it('passes the feature and plan variables through the launcher', () => {
      expect(VIRTUALMIN_VARIABLES).toEqual(
        expect.arrayContaining(['VIRTUALSERVER_WPP', 'VIRTUALSERVER_OLDSERVER_WPP', 'VIRTUALSERVER_PLAN', 'VIRTUALSERVER_OLDSERVER_PLAN']),
      );
    });
  });
});
