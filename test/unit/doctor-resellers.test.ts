/** `wpp doctor`'s resellers line, from what the database says (src/doctor/resellers.ts). */
import { describe, expect, it } from 'vitest';
import { describeOwners } from '../../src/doctor/resellers.js';

const AT = Date.parse('2026-11-26T09:30:00Z');

describe('wpp doctor: resellers', () => {
  it('counts the accounts of each reseller (the most first, five named) and of the host, before any panel comparison', () => {
    const resellers = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((name, i) => ({ name, accounts: 10 - i }));
    expect(describeOwners({ resellers, host: 1, withoutAccounts: 0, lastComparison: null }, 'cpanel')).toEqual({
      status: 'ok',
      detail:
        "7 resellers (a 10, b 9, c 8, d 7, e 6, 2 more); 1 account the host's own; not compared with the panel yet (wpp import cpanel)",
    });
  });

  it('warns when the last panel comparison found accounts owned by another reseller, and says how to follow them', () => {
    const owners = { resellers: [{ name: 'res1', accounts: 2 }], host: 3, withoutAccounts: 1, lastComparison: { at: AT, differs: 2 } };
    expect(describeOwners(owners, 'plesk')).toEqual({
      status: 'warn',
      detail:
        "1 reseller (res1 2); 3 accounts the host's own; 1 reseller the panel named without accounts here; the panel comparison of 2026-11-26 09:30 UTC found 2 accounts owned by another reseller: wpp import plesk --apply follows the transfers",
    });
    expect(describeOwners({ ...owners, lastComparison: { at: AT, differs: 0 } }, 'plesk').status).toBe('ok');
  });
});
