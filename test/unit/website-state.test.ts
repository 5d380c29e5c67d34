import { createTranslations, loadCatalogs } from '../../src/core/i18n.js';
import { paths } from '../../src/paths.js';
import { describe, expect, it } from 'vitest';
import { customerActions, describeWebsite as describeIn, type Audience, type StateInput } from '../../src/core/website-state.js';

/** The English messages (locales/en.json), as the pages pass them. */
const t = createTranslations(loadCatalogs(paths.locales)).en;
const describeWebsite = (website: StateInput, ...rest: [Audience?, (string | null)?]) => describeIn(website, t, ...rest);

const website = (over: Partial<StateInput> = {}): StateInput => ({
  domain: 'shop.example',
  state: 'active',
  desiredStatus: 'online',
  pausedBy: null,
  providerStatus: 'online',
  ...over,
});

describe('describeWebsite', () => {
  it('says protected when the provider shows it online', () => {
    expect(describeWebsite(website())).toMatchObject({ kind: 'protected', tone: 'ok', label: 'Protected' });
  });

  it('says what to do while waiting for DNS, naming the domain', () => {
    const state = describeWebsite(website({ providerStatus: 'pending_dns' }));
    expect(state).toMatchObject({ kind: 'waiting_dns', label: 'Waiting for DNS' });
    expect(state.todo).toContain('DNS records of shop.example');
    expect(state.todo).toContain('point at the protection service');
  });

  it('tells issuing a certificate, an error with its reason, and being set up apart', () => {
    expect(describeWebsite(website({ providerStatus: 'issuing_certificate' })).kind).toBe('issuing_certificate');
    const error = describeWebsite(website({ providerStatus: 'error' }), 'customer', 'the origin refused connections');
    expect(error).toMatchObject({ kind: 'error', tone: 'bad' });
    expect(error.summary).toContain('the origin refused connections');
    expect(describeWebsite(website({ providerStatus: null })).kind).toBe('being_set_up');
    expect(describeWebsite(website({ providerStatus: 'missing' })).kind).toBe('error');
  });

  it('says not protected for a website in setup (auto-protect off)', () => {
    const state = describeWebsite(website({ desiredStatus: 'setup', providerStatus: 'setup' }));
    expect(state).toMatchObject({ kind: 'not_protected', label: 'Not protected' });
    expect(state.todo).toContain('Protect');
  });

  it('says who paused: the customer, the host, the hit limit or the dashboard', () => {
    const paused = (pausedBy: StateInput['pausedBy'], audience: 'customer' | 'admin' = 'customer') =>
      describeWebsite(website({ desiredStatus: 'paused', pausedBy, providerStatus: 'paused' }), audience);
    expect(paused('customer').label).toBe('Paused by you');
    expect(paused('admin').label).toBe('Paused by your host');
    expect(paused('suspension').label).toBe('Paused by your host');
    expect(paused('enforcement').label).toBe('Paused: hit limit reached');
    expect(paused('external').label).toBe('Paused in the dashboard');
    expect(paused('customer', 'admin').label).toBe('Paused by the customer');
    expect(paused('enforcement', 'admin').label).toBe('Paused by the hit limit');
    expect(paused('enforcement').pausedBy).toBe('enforcement');
  });
});

describe('describeWebsite: a domain from the event on (issue 21)', () => {
  const failure = { code: 'domain_unresolvable', reason: 'The domain nowhere.example does not exist or does not resolve', at: 1 };

  it('says setting up while the provider has not accepted it yet, with nothing to click', () => {
    const settingUp = website({ desiredStatus: 'online', providerStatus: null, provisionedAt: null, provisioningFailure: null });
    expect(describeWebsite(settingUp)).toMatchObject({ kind: 'being_set_up', label: 'Setting up', tone: 'info' });
    expect(describeWebsite(settingUp, 'admin').label).toBe('Setting up');
    expect(customerActions(settingUp)).toEqual([]);
  });

  it("says could not protect with the provider's reason, what to do, and offers Try again", () => {
    const refused = website({ providerStatus: 'error', provisionedAt: null, provisioningFailure: failure });
    const state = describeWebsite(refused);
    expect(state).toMatchObject({ kind: 'could_not_protect', label: 'Could not protect', tone: 'bad' });
    expect(state.summary).toContain('does not resolve');
    expect(state.todo).toMatch(/DNS of nowhere|DNS of shop\.example/);
    expect(state.todo).toContain('Try again');
    expect(customerActions(refused)).toEqual(['retry']);
    const forAdmin = describeWebsite(refused, 'admin');
    expect(forAdmin.label).toBe('Could not protect');
    expect(forAdmin.summary).toContain('domain_unresolvable');
    expect(forAdmin.todo).toContain('Retry');
  });

  it('says what to do for other refusals too: the domain limit, and any other reason', () => {
    const limit = describeWebsite(
      website({
        providerStatus: 'error',
        provisionedAt: null,
        provisioningFailure: { code: 'LIMIT_REACHED', reason: 'at most 1 domain', at: 1 },
      }),
    );
    expect(limit.todo).toContain('host');
    const other = describeWebsite(
      website({
        providerStatus: 'error',
        provisionedAt: null,
        provisioningFailure: { code: 'validation_failed', reason: 'ip: bad', at: 1 },
      }),
    );
    expect(other.summary).toContain('ip: bad');
    expect(other.todo).toContain('Try again');
  });

  it('names monitoring: watched by the provider, nothing blocked yet', () => {
    const state = describeWebsite(website({ desiredStatus: 'paused', pausedBy: null, providerStatus: 'paused' }));
    expect(state).toMatchObject({ kind: 'monitoring', label: 'Monitoring' });
    expect(state.summary).toContain('block nothing');
  });
});

describe('customerActions', () => {
  it('offers Protect in setup, Pause when protected or waiting for DNS', () => {
    expect(customerActions(website({ desiredStatus: 'setup', providerStatus: 'setup' }))).toEqual(['protect']);
    expect(customerActions(website())).toEqual(['pause']);
    expect(customerActions(website({ providerStatus: 'pending_dns' }))).toEqual(['pause']);
  });

  it('offers Resume only for the customer’s own or a dashboard pause', () => {
    const paused = (pausedBy: StateInput['pausedBy']) =>
      customerActions(website({ desiredStatus: 'paused', pausedBy, providerStatus: 'paused' }));
    expect(paused('customer')).toEqual(['resume']);
    expect(paused('external')).toEqual(['resume']);
    expect(paused('enforcement')).toEqual([]);
    expect(paused('admin')).toEqual([]);
    expect(paused('suspension')).toEqual([]);
  });

  it('offers nothing on a removed website', () => {
    expect(customerActions(website({ state: 'removed', desiredStatus: 'paused', pausedBy: 'domain_removed' }))).toEqual([]);
  });
});
