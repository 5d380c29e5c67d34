import { describe, expect, it } from 'vitest';
import { counterDelta, decide, periodAt, resolveLimits, type QuotaAccount, type QuotaWebsite } from '../../src/core/quota.js';

const at = (iso: string) => Date.parse(iso);

describe('periodAt', () => {
  it('monthly periods start on the anchor day at midnight UTC', () => {
    expect(periodAt(at('2026-11-22T10:00:00Z'), 'monthly', 1)).toEqual({
      kind: 'monthly',
      start: at('2026-11-01T00:00:00Z'),
      end: at('2026-12-01T00:00:00Z'),
    });
    expect(periodAt(at('2026-11-14T23:59:59Z'), 'monthly', 15)).toEqual({
      kind: 'monthly',
      start: at('2026-10-15T00:00:00Z'),
      end: at('2026-11-15T00:00:00Z'),
    });
    expect(periodAt(at('2026-11-15T00:00:00Z'), 'monthly', 15).start).toBe(at('2026-11-15T00:00:00Z'));
    expect(periodAt(at('2027-01-03T00:00:00Z'), 'monthly', 10)).toEqual({
      kind: 'monthly',
      start: at('2026-12-10T00:00:00Z'),
      end: at('2027-01-10T00:00:00Z'),
    });
  });

  it('daily periods run midnight to midnight UTC', () => {
    expect(periodAt(at('2026-11-22T23:30:00Z'), 'daily')).toEqual({
      kind: 'daily',
      start: at('2026-11-22T00:00:00Z'),
      end: at('2026-11-23T00:00:00Z'),
    });
  });
});

describe('counterDelta', () => {
  it('is the difference of cumulative counters', () => {
    expect(
      counterDelta({ total: 100, permitted: 90, blocked: 10, mitigated: 12 }, { total: 150, permitted: 130, blocked: 20, mitigated: 25 }),
    ).toEqual({ total: 50, permitted: 40, blocked: 10, mitigated: 13 });
  });

  it('reads a counter that went down as a restart from zero, never as negative traffic', () => {
    expect(
      counterDelta({ total: 1000, permitted: 900, blocked: 100, mitigated: 100 }, { total: 30, permitted: 25, blocked: 5, mitigated: 5 }),
    ).toEqual({ total: 30, permitted: 25, blocked: 5, mitigated: 5 });
  });

  it('counts the first sample whole', () => {
    expect(counterDelta(null, { total: 7, permitted: 7, blocked: 0, mitigated: 0 }).total).toBe(7);
  });
});

describe('resolveLimits', () => {
  it('takes each value from the most specific layer that sets it, then the defaults', () => {
    const limits = resolveLimits([
      { websiteHits: 100 },
      { accountHits: 500, warningPercent: 90 },
      { websiteHits: 50, period: 'daily' },
      { domainLimit: 3 },
    ]);
    expect(limits).toEqual({
      period: 'daily',
      anchorDay: 1,
      websiteHits: 100,
      accountHits: 500,
      domainLimit: 3,
      warningPercent: 90,
      exempt: false,
    });
    expect(resolveLimits([])).toMatchObject({ period: 'monthly', warningPercent: 80, websiteHits: null, exempt: false });
  });
});

describe('decide', () => {
  const period = periodAt(at('2026-11-22T00:00:00Z'), 'monthly');
  const limits = resolveLimits([]);
  const site = (domain: string, usage: number, extra: Partial<QuotaWebsite> = {}): QuotaWebsite => ({
    domain,
    desiredStatus: 'online',
    pausedBy: null,
    usage,
    limits: { ...limits, websiteHits: 1000 },
    adminOverrideUntil: null,
    enforcementPausedPeriod: null,
    ...extra,
  });
  const account = (websites: QuotaWebsite[], accountHits: number | null = null): QuotaAccount => ({
    account: 'a',
    limits: { ...limits, accountHits },
    period,
    websites,
  });
  const now = at('2026-11-22T12:00:00Z');

  it('pauses exactly the website over its own limit, and warns at 80%', () => {
    expect(decide(account([site('over.example', 1000), site('under.example', 500), site('near.example', 850)]), now)).toEqual([
      { kind: 'pause', domain: 'over.example', reason: 'website_limit', usage: 1000, limit: 1000 },
      { kind: 'warning', domain: 'near.example', reason: 'website_warning', usage: 850, limit: 1000 },
    ]);
  });

  it("pauses every online website of an account over its aggregate, and nobody else's pause", () => {
    const decisions = decide(
      account(
        [
          site('a.example', 300),
          site('b.example', 300),
          site('setup.example', 0, { desiredStatus: 'setup' }),
          site('mine.example', 0, { desiredStatus: 'paused', pausedBy: 'customer' }),
        ],
        600,
      ),
      now,
    );
    expect(decisions.filter((d) => d.kind === 'pause').map((d) => [d.domain, d.reason])).toEqual([
      ['a.example', 'account_limit'],
      ['b.example', 'account_limit'],
    ]);
  });

  it('resumes only enforcement pauses, naming a rollover or a raised limit', () => {
    const previous = periodAt(at('2026-10-15T00:00:00Z'), 'monthly').start;
    const decisions = decide(
      account([
        site('rolled.example', 0, { desiredStatus: 'paused', pausedBy: 'enforcement', enforcementPausedPeriod: previous }),
        site('raised.example', 10, { desiredStatus: 'paused', pausedBy: 'enforcement', enforcementPausedPeriod: period.start }),
        site('suspended.example', 0, { desiredStatus: 'paused', pausedBy: 'suspension' }),
        site('admin.example', 0, { desiredStatus: 'paused', pausedBy: 'admin' }),
      ]),
      now,
    );
    expect(decisions.map((d) => [d.kind, d.domain, d.reason])).toEqual([
      ['resume', 'rolled.example', 'period_rollover'],
      ['resume', 'raised.example', 'limit_raised'],
    ]);
  });

  it('leaves exempt websites and admin overrides online', () => {
    const decisions = decide(
      account([
        site('exempt.example', 5000, { limits: { ...limits, websiteHits: 1000, exempt: true } }),
        site('override.example', 5000, { adminOverrideUntil: period.end }),
      ]),
      now,
    );
    expect(decisions).toEqual([]);
    // Once the override ends, the limit applies again.
    expect(decide(account([site('override.example', 5000, { adminOverrideUntil: now - 1 })]), now).map((d) => d.kind)).toEqual(['pause']);
  });

  it('warns about an account nearing its aggregate limit', () => {
    expect(decide(account([site('a.example', 400), site('b.example', 450)], 1000), now)).toContainEqual({
      kind: 'warning',
      domain: null,
      reason: 'account_warning',
      usage: 850,
      limit: 1000,
    });
  });
});
