import { describe, expect, it } from 'vitest';
import { customerActions, describeWebsite, type StateInput } from '../../src/core/website-state.js';

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
