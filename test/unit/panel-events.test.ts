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
});
