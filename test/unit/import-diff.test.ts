import { describe, expect, it } from 'vitest';
import { compareListing, eventsToApply, type KnownState } from '../../src/core/import-diff.js';
import { parseListing } from '../../src/core/panel-listing.js';

const listing = parseListing(
  {
    panel: 'test',
    accounts: [
      {
        account: 'bob',
        email: 'bob@mail.example',
        plan: 'business',
        suspended: false,
        domains: [{ domain: 'bob.example', subdomains: ['blog'], ip: '192.0.2.9' }],
      },
      { account: 'carol', suspended: true, domains: [{ domain: 'carol.example', subdomains: ['shop'] }, { domain: 'taken.example' }] },
    ],
  },
  'test',
);

const nothing: KnownState = { accounts: [], websites: [], queued: [] };

const website = (domain: string, account: string, subdomains: string[] = ['www'], providerStatus: string | null = 'online') => ({
  domain,
  account,
  state: 'active' as const,
  subdomains,
  providerStatus,
});

describe('compareListing', () => {
  it('finds everything missing in an empty plugin, and orders the events as they must run', () => {
    const comparison = compareListing(listing, nothing, new Set());
    expect(comparison.listed).toEqual({ accounts: 2, domains: 3, subdomains: 2 });
    expect(eventsToApply(comparison, { prune: false })).toEqual([
      { type: 'account.created', account: 'bob', email: 'bob@mail.example', plan: 'business' },
      { type: 'domain.added', account: 'bob', domain: 'bob.example', plan: 'business', ip: '192.0.2.9' },
      { type: 'subdomain.added', account: 'bob', domain: 'bob.example', subdomain: 'blog' },
      { type: 'account.created', account: 'carol', email: undefined, plan: undefined },
      // A new account suspended in the panel is suspended before its domains come in (they start paused).
      { type: 'account.suspended', account: 'carol' },
      { type: 'domain.added', account: 'carol', domain: 'carol.example', plan: undefined, ip: undefined },
      { type: 'subdomain.added', account: 'carol', domain: 'carol.example', subdomain: 'shop' },
      { type: 'domain.added', account: 'carol', domain: 'taken.example', plan: undefined, ip: undefined },
    ]);
    expect(comparison.actionable).toBe(8);
  });

  it('leaves out what is already queued, so a second apply before the worker ran queues nothing', () => {
    const first = compareListing(listing, nothing, new Set());
    const queued = eventsToApply(first, { prune: false }).map(({ type, account, domain, subdomain }) => ({
      type,
      account,
      domain,
      subdomain,
    }));
    const second = compareListing(listing, { ...nothing, queued }, new Set());
    expect(second.differences).toHaveLength(first.differences.length);
    expect(second.differences.every((d) => d.queued)).toBe(true);
    expect(eventsToApply(second, { prune: false })).toEqual([]);
    expect(second.actionable).toBe(0);
  });

  it('reports what the plugin protects beyond the panel, queued only with prune, and never moves a domain between accounts', () => {
    const known: KnownState = {
      accounts: [
        { account: 'bob', state: 'active', providerUserId: 'bob@panel.example' },
        { account: 'carol', state: 'suspended', providerUserId: 'carol@panel.example' },
        { account: 'zed', state: 'active', providerUserId: 'zed@panel.example' },
      ],
      websites: [
        website('bob.example', 'bob', ['www', 'blog']),
        website('carol.example', 'carol', ['www', 'shop']),
        website('taken.example', 'zed'),
        website('old.example', 'zed'),
      ],
      queued: [],
    };
    const comparison = compareListing(listing, known, new Set(['bob@panel.example', 'carol@panel.example', 'zed@panel.example']));
    expect(comparison.differences).toEqual([
      { kind: 'domain.other-account', account: 'carol', domain: 'taken.example', knownAccount: 'zed', queued: false },
      { kind: 'domain.gone', account: 'zed', domain: 'old.example', queued: false },
    ]);
    expect(eventsToApply(comparison, { prune: false })).toEqual([]);
    expect(eventsToApply(comparison, { prune: true })).toEqual([{ type: 'domain.removed', account: 'zed', domain: 'old.example' }]);
  });

  it('finds missing subdomains, suspension differences and what the provider lacks', () => {
    const known: KnownState = {
      accounts: [
        { account: 'bob', state: 'suspended', providerUserId: 'bob@panel.example' },
        { account: 'carol', state: 'active', providerUserId: 'carol@panel.example' },
      ],
      websites: [
        website('bob.example', 'bob', ['www'], 'missing'),
        website('carol.example', 'carol', ['www', 'shop']),
        website('taken.example', 'carol'),
      ],
      queued: [],
    };
    const comparison = compareListing(listing, known, new Set(['carol@panel.example']));
    expect(comparison.differences.map((d) => `${d.kind} ${d.account} ${d.domain ?? ''} ${d.subdomain ?? ''}`.trim())).toEqual([
      'suspension.differs bob',
      'subdomain.missing bob bob.example blog',
      'suspension.differs carol',
      'account.provider-missing bob',
      'domain.provider-missing bob bob.example',
    ]);
    expect(eventsToApply(comparison, { prune: false }).map((e) => e.type)).toEqual([
      'account.unsuspended',
      'subdomain.added',
      'account.suspended',
      'account.created',
      'domain.added',
    ]);
  });

  it('compares without the provider when it did not answer', () => {
    const known: KnownState = { ...nothing, accounts: [{ account: 'bob', state: 'active', providerUserId: 'bob@panel.example' }] };
    const comparison = compareListing(listing, known, null);
    expect(comparison.providerChecked).toBe(false);
    expect(comparison.counts['account.provider-missing']).toBe(0);
  });
});

describe('compareListing: which reseller owns which account', () => {
  const owned = parseListing(
    {
      accounts: [
        { account: 'bob', reseller: 'res2', domains: [] },
        { account: 'carol', reseller: null, domains: [] },
        { account: 'dave', reseller: 'res1', domains: [] },
        { account: 'erin', domains: [] },
        { account: 'frank', reseller: 'res1', domains: [] },
      ],
    },
    'test',
  );
  const known = (account: string, reseller: string | null | undefined) => ({
    account,
    state: 'active' as const,
    providerUserId: `${account}-id`,
    ...(reseller === undefined ? {} : { reseller }),
  });

  it('reports an account the panel gives another reseller as transferred, and --apply queues the transfer', () => {
    const comparison = compareListing(
      owned,
      // bob moved res1 -> res2, carol res1 -> the host; dave agrees; erin: the panel does not say; frank is new.
      { accounts: [known('bob', 'res1'), known('carol', 'res1'), known('dave', 'res1'), known('erin', 'res3')], websites: [], queued: [] },
      null,
    );
    expect(comparison.differences.filter((d) => d.kind === 'reseller.differs')).toEqual([
      { kind: 'reseller.differs', account: 'bob', reseller: 'res2', knownReseller: 'res1', queued: false },
      { kind: 'reseller.differs', account: 'carol', reseller: null, knownReseller: 'res1', queued: false },
    ]);
    expect(comparison.counts['reseller.differs']).toBe(2);
    expect(eventsToApply(comparison, { prune: false })).toEqual([
      { type: 'account.transferred', account: 'bob', reseller: 'res2' },
      { type: 'account.transferred', account: 'carol', reseller: null },
      // A new account comes in with its owner.
      { type: 'account.created', account: 'frank', email: undefined, plan: undefined, reseller: 'res1' },
    ]);
  });

  it('compares no owner where the plugin did not read one, and leaves a queued transfer alone', () => {
    expect(compareListing(owned, { accounts: [known('bob', undefined)], websites: [], queued: [] }, null).counts['reseller.differs']).toBe(
      0,
    );
    const queued = compareListing(
      owned,
      { accounts: [known('bob', 'res1')], websites: [], queued: [{ type: 'account.transferred', account: 'bob' }] },
      null,
    );
    expect(queued.differences.find((d) => d.kind === 'reseller.differs')?.queued).toBe(true);
    expect(eventsToApply(queued, { prune: false }).some((e) => e.type === 'account.transferred')).toBe(false);
  });
});
