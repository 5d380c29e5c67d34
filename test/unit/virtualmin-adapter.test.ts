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

  it('disable of a sub-server changes nothing: its account stays active, its website stays protected', () => {
    const result = post('disable-sub-server');
    expect(result).toEqual({ ok: true, events: [], note: expect.stringContaining('sub-server') });
    const enable = post('disable-sub-server', { VIRTUALSERVER_ACTION: 'ENABLE_DOMAIN' });
    expect(enable).toEqual({ ok: true, events: [], note: expect.stringContaining('sub-server') });
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
    const env = captured('modify-rename-sub-server');
    const only = Object.fromEntries(VIRTUALMIN_VARIABLES.map((name) => [name, env[name]]));
    expect(shapes(translateVirtualminHook('post', only, NOW))).toEqual(shapes(post('modify-rename-sub-server')));
  });

  it('keeps ids stable within a minute, apart from other panels', () => {
    const first = post('create-alias');
    const again = translateVirtualminHook('post', captured('create-alias'), new Date('2026-11-26T04:24:50Z'));
    expect(first.ok && again.ok && first.events[0]?.id === again.events[0]?.id).toBe(true);
    expect(first.ok && first.events[0]?.id.startsWith('virtualmin:')).toBe(true);
  });
});
