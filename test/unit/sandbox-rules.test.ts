import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formBoolean, formList, normalizeFormWebsite } from '../../src/sandbox/bodies.js';
import { checkCertificatePair } from '../../src/sandbox/certificates.js';
import { createRateLimiter } from '../../src/sandbox/rate-limit.js';
import { createSimulatedResolver, createSystemResolver } from '../../src/sandbox/resolver.js';
import { certificateStatus, DEFAULT_SETTINGS, effectiveStatus } from '../../src/sandbox/websites.js';

const cert = (name: string) => readFileSync(new URL(`../fixtures/certs/${name}`, import.meta.url), 'utf8');
const pair = { public: cert('secure.example.crt'), private: cert('secure.example.key') };

describe('checkCertificatePair', () => {
  it('accepts a matching pair covering the domain and its wildcard', () => {
    expect(checkCertificatePair(pair, 'secure.example')).toEqual([]);
    expect(checkCertificatePair(pair, 'www.secure.example')).toEqual([]);
  });

  it('refuses an expired certificate and one not yet valid', () => {
    expect(checkCertificatePair(pair, 'secure.example', Date.parse('2300-01-01'))).toEqual([expect.stringMatching(/expired on/)]);
    expect(checkCertificatePair(pair, 'secure.example', Date.parse('1990-01-01'))).toEqual([expect.stringMatching(/not valid before/)]);
  });

  it('uses the first certificate of a bundle as the leaf', () => {
    const bundle = { ...pair, public: `${pair.public}\n${pair.public}` };
    expect(checkCertificatePair(bundle, 'secure.example')).toEqual([]);
  });
});

describe('form values', () => {
  it('splits comma-joined strings, flattens repeated keys and bracket objects', () => {
    expect(formList('www, shop,,')).toEqual(['www', 'shop']);
    expect(formList(['a,b', 'c'])).toEqual(['a', 'b', 'c']);
    expect(formList({ 0: 'x', 1: 'y' })).toEqual(['x', 'y']);
    expect(formList('')).toEqual([]);
    expect(formList(undefined)).toBeUndefined();
  });

  it('reads form booleans and leaves other words for the schema to refuse', () => {
    expect(['true', '1', 'on', 'YES'].map(formBoolean)).toEqual([true, true, true, true]);
    expect(['false', '0', 'off', 'no', ''].map(formBoolean)).toEqual([false, false, false, false, false]);
    expect(formBoolean('maybe')).toBe('maybe');
  });

  it('keeps certs_issuer a word while turning switches into booleans', () => {
    const body = normalizeFormWebsite({
      settings: { loadbalancer: { force_https: '1', certs_issuer: 'custom' }, rulesets: { drupal: 'off' } },
    });
    expect(body.settings).toEqual({ loadbalancer: { force_https: true, certs_issuer: 'custom' }, rulesets: { drupal: false } });
  });
});

describe('effectiveStatus', () => {
  it('is setup, then pending_dns, then what was asked, whatever the certificate is doing', () => {
    expect(effectiveStatus({ requestedStatus: 'setup', dnsVerifiedAt: 1 })).toBe('setup');
    expect(effectiveStatus({ requestedStatus: 'online', dnsVerifiedAt: null })).toBe('pending_dns');
    expect(effectiveStatus({ requestedStatus: 'paused', dnsVerifiedAt: 1 })).toBe('paused');
    expect(effectiveStatus({ requestedStatus: 'online', dnsVerifiedAt: 1 })).toBe('online');
  });
});

describe('certificateStatus', () => {
  const acme = DEFAULT_SETTINGS;
  const custom = { ...DEFAULT_SETTINGS, loadbalancer: { ...DEFAULT_SETTINGS.loadbalancer, certs_issuer: 'custom' as const } };
  it('is none before DNS, issuing while ACME runs, issued after, and custom with a custom certificate', () => {
    expect(certificateStatus({ settings: acme, dnsVerifiedAt: null, certReadyAt: null })).toBe('none');
    expect(certificateStatus({ settings: acme, dnsVerifiedAt: 1, certReadyAt: 5 })).toBe('issuing');
    expect(certificateStatus({ settings: acme, dnsVerifiedAt: 1, certReadyAt: null })).toBe('issued');
    expect(certificateStatus({ settings: custom, dnsVerifiedAt: null, certReadyAt: null })).toBe('custom');
    expect(certificateStatus({ settings: custom, dnsVerifiedAt: 1, certReadyAt: null })).toBe('custom');
  });
});

describe('createRateLimiter', () => {
  it('lets a burst through, then says how long to wait, and refills with time', () => {
    let now = 0;
    const limiter = createRateLimiter(2, () => now);
    expect([limiter.take('k'), limiter.take('k')]).toEqual([0, 0]);
    expect(limiter.take('k')).toBe(500);
    expect(limiter.take('other')).toBe(0);
    now = 500;
    expect(limiter.take('k')).toBe(0);
  });
});

describe('resolvers', () => {
  it('simulated: resolves every name but .invalid and the NXDOMAIN list', async () => {
    const resolver = createSimulatedResolver((domain) => domain === 'gone.example');
    expect(await resolver.resolves('example.com')).toBe(true);
    expect(await resolver.resolves('site.invalid')).toBe(false);
    expect(await resolver.resolves('gone.example')).toBe(false);
  });

  it('system: asks the real resolver (localhost is in every hosts file; .invalid never resolves)', async () => {
    const resolver = createSystemResolver(3000);
    expect(await resolver.resolves('localhost')).toBe(true);
    expect(await resolver.resolves('no-such-host.invalid')).toBe(false);
  });
});
