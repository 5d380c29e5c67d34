/**
 * The panel event schema's account.renamed and domain.moved (issue 19, cPanel renames and
 * Convert Addon Domain to Account), and the derived ids every earlier event keeps.
 */
import { describe, expect, it } from 'vitest';
import { deriveEventId, finishEvent } from '../../src/panel/events.js';

const AT = new Date('2025-06-02T09:15:20Z');

describe('panel events: account.renamed and domain.moved', () => {
  it('a rename names the account it was (lower-cased like every account name)', () => {
    const renamed = finishEvent('cpanel', { type: 'account.renamed', account: 'Alicia', previousAccount: 'ALICE' }, AT);
    expect(renamed.success && renamed.data).toMatchObject({ type: 'account.renamed', account: 'alicia', previousAccount: 'alice' });
  });

  it('refuses a rename without the previous name, to the same name, and previousAccount on any other event', () => {
    const issues = (draft: Parameters<typeof finishEvent>[1]) => {
      const result = finishEvent('cpanel', draft, AT);
      return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    };
    expect(issues({ type: 'account.renamed', account: 'alicia' })).toEqual([
      'previousAccount: previousAccount is required for account.renamed',
    ]);
    expect(issues({ type: 'account.renamed', account: 'alice', previousAccount: 'Alice' })).toEqual([
      'previousAccount: a rename needs a new name: previousAccount equals account',
    ]);
    expect(issues({ type: 'account.suspended', account: 'alice', previousAccount: 'bob' })).toEqual([
      'previousAccount: previousAccount belongs to account.renamed, not account.suspended',
    ]);
    expect(issues({ type: 'domain.moved', account: 'shopper' })).toEqual(['domain: domain is required for domain.moved']);
  });

  it('keeps the id of every event that has no previousAccount, and tells renames apart by it', () => {
    // The id 0.4.0 derived for this event (sha256 of its fields and minute): a replay after the upgrade is the same event.
    expect(deriveEventId('cpanel', { type: 'domain.added', account: 'alice', domain: 'alice-shop.example', plan: 'gold' }, AT)).toBe(
      'cpanel:c775be3da3617c937e617474675e6c88',
    );
    const fromAlice = deriveEventId('cpanel', { type: 'account.renamed', account: 'alicia', previousAccount: 'alice' }, AT);
    const fromAli = deriveEventId('cpanel', { type: 'account.renamed', account: 'alicia', previousAccount: 'ali' }, AT);
    expect(fromAlice).not.toBe(fromAli);
  });

  it('carries the reseller on account.created and account.transferred only; a transfer needs one (null: the host)', () => {
    const issues = (draft: Parameters<typeof finishEvent>[1]) => {
      const result = finishEvent('cpanel', draft, AT);
      return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    };
    const created = finishEvent('cpanel', { type: 'account.created', account: 'alice', reseller: 'Res1' }, AT);
    expect(created.success && created.data.reseller).toBe('res1');
    expect(issues({ type: 'account.transferred', account: 'alice', reseller: null })).toEqual([]);
    expect(issues({ type: 'account.transferred', account: 'alice' })).toEqual(['reseller: reseller is required for account.transferred']);
    expect(issues({ type: 'domain.added', account: 'alice', domain: 'a.example', reseller: 'res1' })).toEqual([
      'reseller: reseller belongs to account.created or account.transferred, not domain.added',
    ]);
  });

  it('keeps the id of an account.created that names no reseller, and tells owners apart (null from a name)', () => {
    const draft = { type: 'account.created', account: 'alice', email: 'alice@example.net', plan: 'gold' } as const;
    // The id derived before resellers existed (the foundation's code): a replay after the upgrade is the same event.
    const before = 'cpanel:381edbc2072a06180c198eaf321356e0';
    expect(deriveEventId('cpanel', draft, AT)).toBe(before);
    expect(deriveEventId('cpanel', { ...draft, reseller: undefined }, AT)).toBe(before);
    const host = deriveEventId('cpanel', { ...draft, reseller: null }, AT);
    const res1 = deriveEventId('cpanel', { ...draft, reseller: 'res1' }, AT);
    expect(new Set([before, host, res1]).size).toBe(3);
  });
});
