import { describe, expect, it } from 'vitest';
import { quotaStanding } from '../../src/core/quota-level.js';

const site = (websiteHits: number | null, warningPercent = 80, exempt = false) => ({ websiteHits, warningPercent, exempt });
const account = (accountHits: number | null, warningPercent = 90) => ({ accountHits, warningPercent });

describe('quotaStanding', () => {
  it('is none without limits or for an exempt website', () => {
    expect(quotaStanding({ usage: 5000, websiteLimits: site(null), accountUsage: 5000, accountLimits: account(null) })).toEqual({
      level: 'none',
      warningPercent: null,
    });
    expect(quotaStanding({ usage: 5000, websiteLimits: site(100, 80, true), accountUsage: 5000, accountLimits: account(100) }).level).toBe(
      'none',
    );
  });

  it('uses the website limit: ok below the warning percent, near at it, over at the limit', () => {
    const at = (usage: number) => quotaStanding({ usage, websiteLimits: site(1000), accountUsage: usage, accountLimits: account(null) });
    expect(at(799)).toEqual({ level: 'ok', warningPercent: 80 });
    expect(at(800)).toEqual({ level: 'near', warningPercent: 80 });
    expect(at(999).level).toBe('near');
    expect(at(1000).level).toBe('over');
  });

  it('takes whichever limit is closer, with that limit’s warning percent', () => {
    // Website at 50% of its own limit, account at 95% of its aggregate (warning at 90%).
    expect(quotaStanding({ usage: 500, websiteLimits: site(1000), accountUsage: 9500, accountLimits: account(10_000) })).toEqual({
      level: 'near',
      warningPercent: 90,
    });
    expect(quotaStanding({ usage: 10, websiteLimits: site(1000), accountUsage: 10_000, accountLimits: account(10_000) }).level).toBe(
      'over',
    );
    expect(quotaStanding({ usage: 850, websiteLimits: site(1000), accountUsage: 850, accountLimits: account(10_000) })).toEqual({
      level: 'near',
      warningPercent: 80,
    });
  });

  it('counts a zero limit as reached', () => {
    expect(quotaStanding({ usage: 0, websiteLimits: site(0), accountUsage: 0, accountLimits: account(null) }).level).toBe('over');
  });
});
