import { describe, expect, it } from 'vitest';
import {
  addDeviceSchema,
  addServerSchema,
  assetSchema,
  createUserSchema,
  statisticsQuerySchema,
  updateUserSchema,
  userListSchema,
  userSchema,
  userStatisticsSchema,
  websiteCreateFormSchema,
  websiteCreateSchema,
  websiteSchema,
  websiteStatisticsSchema,
  websiteStatusUpdateSchema,
  websiteUpdateSchema,
} from '../../src/provider/schemas.js';
import { LOADBALANCER_FLAGS, RULE_CATEGORIES, RULE_POLICIES, RULESETS } from '../../src/provider/spec.js';

const base = { domain: 'example.com', user_id: 'alice@example.com', ip: ['203.0.113.10'] };
const certificate = { public: '-----BEGIN CERTIFICATE-----\n...', private: '-----BEGIN PRIVATE KEY-----\n...' };

function issuePaths(result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }): string[] {
  return (result.error?.issues ?? []).map((issue) => issue.path.map(String).join('.'));
}

describe('websiteCreateSchema', () => {
  it('fills defaults and keeps the given fields', () => {
    const website = websiteCreateSchema.parse(base);
    expect(website).toEqual({ ...base, subdomain: [], tag: [], status: 'online' });
  });

  describe('rules', () => {
    for (const category of RULE_CATEGORIES) {
      for (const policy of RULE_POLICIES) {
        it(`accepts ${category}=${policy}`, () => {
          const website = websiteCreateSchema.parse({ ...base, settings: { rules: { [category]: policy } } });
          expect(website.settings?.rules?.[category]).toBe(policy);
        });
      }
      it(`refuses an unknown policy for ${category}`, () => {
        const result = websiteCreateSchema.safeParse({ ...base, settings: { rules: { [category]: 'allow' } } });
        expect(result.success).toBe(false);
        expect(issuePaths(result)).toContain(`settings.rules.${category}`);
      });
    }
    it('refuses an unknown category', () => {
      const result = websiteCreateSchema.safeParse({ ...base, settings: { rules: { robots: 'deny' } } });
      expect(result.success).toBe(false);
    });
  });

  describe('rulesets', () => {
    for (const ruleset of RULESETS) {
      it(`accepts ${ruleset} true and false, refuses a non-boolean`, () => {
        for (const value of [true, false]) {
          const website = websiteCreateSchema.parse({ ...base, settings: { rulesets: { [ruleset]: value } } });
          expect(website.settings?.rulesets?.[ruleset]).toBe(value);
        }
        const result = websiteCreateSchema.safeParse({ ...base, settings: { rulesets: { [ruleset]: 'yes' } } });
        expect(issuePaths(result)).toContain(`settings.rulesets.${ruleset}`);
      });
    }
    it('has exactly the nine rulesets of the spec', () => {
      expect(RULESETS).toHaveLength(9);
      expect(websiteCreateSchema.safeParse({ ...base, settings: { rulesets: { typo3: true } } }).success).toBe(false);
    });
  });

  describe('loadbalancer', () => {
    for (const flag of LOADBALANCER_FLAGS) {
      it(`accepts ${flag} as a boolean and refuses anything else`, () => {
        const website = websiteCreateSchema.parse({ ...base, settings: { loadbalancer: { [flag]: true } } });
        expect(website.settings?.loadbalancer?.[flag]).toBe(true);
        const result = websiteCreateSchema.safeParse({ ...base, settings: { loadbalancer: { [flag]: 'true' } } });
        expect(issuePaths(result)).toContain(`settings.loadbalancer.${flag}`);
      });
    }

    it('accepts certs_issuer acme without a certificate', () => {
      const website = websiteCreateSchema.parse({ ...base, settings: { loadbalancer: { certs_issuer: 'acme' } } });
      expect(website.settings?.loadbalancer?.certs_issuer).toBe('acme');
    });

    it('accepts certs_issuer custom with a certificate', () => {
      const website = websiteCreateSchema.parse({
        ...base,
        certificate,
        settings: { loadbalancer: { certs_issuer: 'custom' } },
      });
      expect(website.certificate).toEqual(certificate);
    });

    it('refuses certs_issuer custom without a certificate', () => {
      const result = websiteCreateSchema.safeParse({ ...base, settings: { loadbalancer: { certs_issuer: 'custom' } } });
      expect(issuePaths(result)).toEqual(['certificate']);
    });

    it('refuses a certificate with certs_issuer acme, and with no issuer (acme is the default)', () => {
      const acme = websiteCreateSchema.safeParse({ ...base, certificate, settings: { loadbalancer: { certs_issuer: 'acme' } } });
      expect(issuePaths(acme)).toEqual(['certificate']);
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, certificate }))).toEqual(['certificate']);
    });

    it('refuses an unknown issuer and an incomplete certificate', () => {
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, settings: { loadbalancer: { certs_issuer: 'letsencrypt' } } }))).toContain(
        'settings.loadbalancer.certs_issuer',
      );
      const result = websiteCreateSchema.safeParse({
        ...base,
        certificate: { public: 'x' },
        settings: { loadbalancer: { certs_issuer: 'custom' } },
      });
      expect(issuePaths(result)).toContain('certificate.private');
    });
  });

  describe('addresses', () => {
    it('accepts IPv4 and IPv6 origins, lower-cases IPv6 and drops duplicates', () => {
      const website = websiteCreateSchema.parse({
        ...base,
        ip: ['203.0.113.10', '2001:DB8::1', '203.0.113.10'],
        ipv6: ['2001:db8::2'],
      });
      expect(website.ip).toEqual(['203.0.113.10', '2001:db8::1']);
      expect(website.ipv6).toEqual(['2001:db8::2']);
    });

    it('refuses invalid IPv4 and IPv6 addresses', () => {
      for (const ip of ['256.1.1.1', '1.2.3', 'example.com', '2001:db8:::1', '']) {
        const result = websiteCreateSchema.safeParse({ ...base, ip: [ip] });
        expect(issuePaths(result), ip).toContain('ip.0');
      }
    });

    it('accepts only IPv6 addresses in ipv6', () => {
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, ipv6: ['203.0.113.10'] }))).toContain('ipv6.0');
    });

    it('requires at least one origin in ip or ipv6', () => {
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, ip: [] }))).toEqual(['ip']);
      expect(websiteCreateSchema.parse({ ...base, ip: undefined, ipv6: ['2001:db8::1'] }).ip).toEqual([]);
    });
  });

  describe('domain', () => {
    it('converts IDN to punycode and lower-cases', () => {
      expect(websiteCreateSchema.parse({ ...base, domain: 'Bücher.Example' }).domain).toBe('xn--bcher-kva.example');
      expect(websiteCreateSchema.parse({ ...base, domain: 'WWW.Example.COM.' }).domain).toBe('www.example.com');
    });

    it('refuses invalid domains', () => {
      for (const domain of [
        '',
        'localhost',
        'exa mple.com',
        '-bad.example',
        'example.123',
        'a..b',
        'http://example.com',
        `${'a'.repeat(64)}.com`,
      ]) {
        expect(issuePaths(websiteCreateSchema.safeParse({ ...base, domain })), domain).toContain('domain');
      }
    });

    it('normalises subdomain labels and refuses invalid ones', () => {
      expect(websiteCreateSchema.parse({ ...base, subdomain: ['WWW', 'shop', 'www'] }).subdomain).toEqual(['www', 'shop']);
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, subdomain: ['bad label'] }))).toContain('subdomain.0');
    });
  });

  describe('other fields', () => {
    it('refuses tags with commas and empty tags', () => {
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, tag: ['a,b'] }))).toContain('tag.0');
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, tag: [' '] }))).toContain('tag.0');
      expect(websiteCreateSchema.parse({ ...base, tag: ['gold', 'gold', 'eu'] }).tag).toEqual(['gold', 'eu']);
    });

    it('accepts the three requestable statuses only', () => {
      for (const status of ['online', 'paused', 'setup'] as const) {
        expect(websiteCreateSchema.parse({ ...base, status }).status).toBe(status);
      }
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, status: 'pending_dns' }))).toContain('status');
    });

    it('accepts http(s) callback URLs only', () => {
      expect(websiteCreateSchema.parse({ ...base, callbackUrl: 'https://panel.example/hook' }).callbackUrl).toBe(
        'https://panel.example/hook',
      );
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, callbackUrl: 'ftp://x.example' }))).toContain('callbackUrl');
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, callbackUrl: 'not a url' }))).toContain('callbackUrl');
    });

    it('refuses malformed user ids and unknown keys (typos)', () => {
      expect(issuePaths(websiteCreateSchema.safeParse({ ...base, user_id: 'alice' }))).toContain('user_id');
      const result = websiteCreateSchema.safeParse({ ...base, setings: {} });
      expect(result.success).toBe(false);
    });

    it('reports every bad field at once', () => {
      const result = websiteCreateSchema.safeParse({ domain: 'bad domain', ip: ['x'], tag: ['a,b'], status: 'on' });
      expect(issuePaths(result)).toEqual(expect.arrayContaining(['domain', 'ip.0', 'tag.0', 'status']));
    });
  });
});

describe('websiteCreateFormSchema', () => {
  it('needs user_id, domain and at least one ip', () => {
    expect(websiteCreateFormSchema.parse(base)).toEqual({ ...base, subdomain: [], tag: [] });
    expect(issuePaths(websiteCreateFormSchema.safeParse({ domain: 'example.com', ip: [] }))).toEqual(
      expect.arrayContaining(['user_id', 'ip']),
    );
  });

  it('is limited in scope: no settings, certificate or status', () => {
    expect(websiteCreateFormSchema.safeParse({ ...base, settings: {} }).success).toBe(false);
    expect(websiteCreateFormSchema.safeParse({ ...base, status: 'online' }).success).toBe(false);
  });

  it('refuses tags with commas, which would split in a comma-joined form', () => {
    expect(issuePaths(websiteCreateFormSchema.safeParse({ ...base, tag: ['a,b'] }))).toContain('tag.0');
  });
});

describe('websiteUpdateSchema', () => {
  it('accepts a partial settings change', () => {
    const update = websiteUpdateSchema.parse({ domain: 'Example.com', settings: { rules: { suspicious_behaviour: 'captcha' } } });
    expect(update).toEqual({ domain: 'example.com', settings: { rules: { suspicious_behaviour: 'captcha' } } });
  });

  it('needs at least one field besides domain', () => {
    expect(websiteUpdateSchema.safeParse({ domain: 'example.com' }).success).toBe(false);
  });

  it('accepts every updatable field', () => {
    const update = websiteUpdateSchema.parse({
      domain: 'example.com',
      subdomain: ['www'],
      ip: ['203.0.113.10'],
      ipv6: ['2001:db8::1'],
      tag: ['a'],
      status: 'paused',
      callbackUrl: 'https://panel.example/hook',
      certificate,
      settings: { loadbalancer: { certs_issuer: 'custom', force_https: true } },
    });
    expect(Object.keys(update).sort()).toEqual(
      ['callbackUrl', 'certificate', 'domain', 'ip', 'ipv6', 'settings', 'status', 'subdomain', 'tag'].sort(),
    );
  });

  it('refuses a certificate sent with certs_issuer acme but not one sent alone', () => {
    expect(
      websiteUpdateSchema.safeParse({ domain: 'example.com', certificate, settings: { loadbalancer: { certs_issuer: 'acme' } } }).success,
    ).toBe(false);
    expect(websiteUpdateSchema.safeParse({ domain: 'example.com', certificate }).success).toBe(true);
  });

  it('refuses unknown keys and bad values', () => {
    // Moving a website to another user is allowed (partner keys); the id must still be e-mail shaped.
    expect(websiteUpdateSchema.safeParse({ domain: 'example.com', user_id: 'bob@example.com' }).success).toBe(true);
    expect(websiteUpdateSchema.safeParse({ domain: 'example.com', user_id: 'bob' }).success).toBe(false);
    expect(issuePaths(websiteUpdateSchema.safeParse({ domain: 'example.com', ip: ['nope'] }))).toContain('ip.0');
  });
});

describe('small request schemas', () => {
  it('status update accepts online, paused and setup only', () => {
    for (const status of ['online', 'paused', 'setup']) expect(websiteStatusUpdateSchema.safeParse({ status }).success).toBe(true);
    expect(websiteStatusUpdateSchema.safeParse({ status: 'offline' }).success).toBe(false);
  });

  it('createUser needs an e-mail-shaped id, lower-cased', () => {
    expect(createUserSchema.parse({ id: ' Alice@Example.com ' })).toEqual({ id: 'alice@example.com' });
    expect(createUserSchema.safeParse({ id: 'alice' }).success).toBe(false);
  });

  it('device and server need a valid IP; optional fields are checked', () => {
    for (const schema of [addDeviceSchema, addServerSchema]) {
      expect(schema.parse({ ip: '2001:DB8::5', name: 'web1', zone: 'eu', tag: 'x' })).toEqual({
        ip: '2001:db8::5',
        name: 'web1',
        zone: 'eu',
        tag: 'x',
      });
      expect(issuePaths(schema.safeParse({ ip: '300.1.1.1' }))).toContain('ip');
      expect(issuePaths(schema.safeParse({ ip: '192.0.2.1', tag: 'a,b', user_id: 'x' }))).toEqual(
        expect.arrayContaining(['tag', 'user_id']),
      );
    }
  });

  it('updateUser takes a non-negative whole domain_limit or null, and tags', () => {
    expect(updateUserSchema.parse({ domain_limit: 3 })).toEqual({ domain_limit: 3 });
    expect(updateUserSchema.parse({ domain_limit: null })).toEqual({ domain_limit: null });
    expect(updateUserSchema.safeParse({ domain_limit: -1 }).success).toBe(false);
    expect(updateUserSchema.safeParse({ domain_limit: 1.5 }).success).toBe(false);
    expect(updateUserSchema.safeParse({}).success).toBe(false);
  });

  it('statistics range takes dates or ISO strings', () => {
    expect(statisticsQuerySchema.parse({ from: new Date('2024-01-01T00:00:00Z'), to: '2024-01-02T00:00:00Z' })).toEqual({
      from: '2024-01-01T00:00:00.000Z',
      to: '2024-01-02T00:00:00.000Z',
    });
    expect(statisticsQuerySchema.safeParse({ from: 'yesterday' }).success).toBe(false);
  });
});

describe('tolerant response parsing', () => {
  it('reads a website record, ignoring unknown fields and defaulting missing ones', () => {
    const website = websiteSchema.parse({ domain: 'Example.com', status: 'online', shiny_new_field: { a: 1 } });
    expect(website).toMatchObject({
      domain: 'example.com',
      subdomain: [],
      ip: [],
      ipv6: [],
      tag: [],
      status: 'online',
      settings: { rules: {}, rulesets: {}, loadbalancer: {} },
    });
    expect(website).not.toHaveProperty('shiny_new_field');
  });

  it('reads comma-joined arrays and keeps an unknown status as it is', () => {
    const website = websiteSchema.parse({
      domain: 'example.com',
      subdomain: 'www, shop',
      ip: '203.0.113.10,203.0.113.11',
      tag: 'gold',
      status: 'quarantined',
    });
    expect(website.subdomain).toEqual(['www', 'shop']);
    expect(website.ip).toEqual(['203.0.113.10', '203.0.113.11']);
    expect(website.tag).toEqual(['gold']);
    expect(website.status).toBe('quarantined');
  });

  it('exposes an optional certificate_status, keeping unknown values as they are', () => {
    expect(websiteSchema.parse({ domain: 'example.com', status: 'paused', certificate_status: 'issuing' })).toMatchObject({
      status: 'paused',
      certificate_status: 'issuing',
    });
    expect(websiteSchema.parse({ domain: 'example.com', certificate_status: 'revoked' }).certificate_status).toBe('revoked');
    expect(websiteSchema.parse({ domain: 'example.com' }).certificate_status).toBeUndefined();
    // Real providers may still report issuance in the status itself; it is kept as-is.
    expect(websiteSchema.parse({ domain: 'example.com', status: 'issuing_certificate' }).status).toBe('issuing_certificate');
  });

  it('reads partial settings, string booleans and unknown policies', () => {
    const website = websiteSchema.parse({
      domain: 'example.com',
      settings: {
        rules: { humans: 'grant', suspicious_behaviour: 'js_challenge', robots: 'deny' },
        rulesets: { wordpress: 'true', joomla: 0 },
        loadbalancer: { force_https: '1', certs_issuer: 'acme', extra: true },
      },
      certificate: { public: 'PEM', private: 'should never be here' },
    });
    expect(website.settings).toEqual({
      rules: { humans: 'grant', suspicious_behaviour: 'js_challenge' },
      rulesets: { wordpress: true, joomla: false },
      loadbalancer: { force_https: true, certs_issuer: 'acme' },
    });
    expect(website.certificate).toEqual({ public: 'PEM' });
  });

  it('refuses a website record without a domain', () => {
    expect(websiteSchema.safeParse({ status: 'online' }).success).toBe(false);
    expect(websiteSchema.safeParse('not an object').success).toBe(false);
  });

  it('reads users from an array or from an object holding the array', () => {
    const entry = { id: 'alice@example.com', tag: 'a,b', domain_limit: '5', surprise: true };
    const expected = [{ id: 'alice@example.com', tag: ['a', 'b'], server: [], domain_limit: 5 }];
    for (const body of [[entry], { users: [entry] }, { data: [entry] }, { items: [entry] }]) {
      expect(userListSchema.parse(body)).toMatchObject(expected);
    }
    expect(userListSchema.safeParse({ nothing: true }).success).toBe(false);
  });

  it('reads a user with its key, and a missing domain_limit as no limit', () => {
    expect(userSchema.parse({ id: 'alice@example.com', api_key: 'k' })).toMatchObject({ api_key: 'k', domain_limit: null });
    expect(userSchema.parse({ id: 'alice@example.com' }).api_key).toBeUndefined();
  });

  it('reads devices and servers, including the address alias', () => {
    expect(assetSchema.parse({ address: '192.0.2.1', name: 'fw' })).toMatchObject({ ip: '192.0.2.1', name: 'fw', tag: [] });
  });

  it('normalises the sandbox statistics shape', () => {
    const stats = websiteStatisticsSchema.parse({
      domain: 'example.com',
      from: '2024-01-01T00:00:00Z',
      to: '2024-01-02T00:00:00Z',
      total: 100,
      permitted: 80,
      blocked: 20,
      mitigated: { total: 30, captcha: 10, deny: 20, by_category: { humans: 5, content_scrapers: { captcha: 1, deny: 2 } } },
    });
    expect(stats).toEqual({
      domain: 'example.com',
      from: '2024-01-01T00:00:00Z',
      to: '2024-01-02T00:00:00Z',
      total: 100,
      permitted: 80,
      blocked: 20,
      mitigated: 30,
      mitigatedDetail: { total: 30, captcha: 10, deny: 20, byCategory: { humans: 5, content_scrapers: 3 } },
    });
  });

  it('tolerates mitigated as a number, numeric strings and a missing permitted', () => {
    const stats = websiteStatisticsSchema.parse({ domain: 'example.com', total: '100', blocked: '25', mitigated: '7' });
    expect(stats).toEqual({ domain: 'example.com', total: 100, permitted: 75, blocked: 25, mitigated: 7 });
  });

  it('keeps from and to only when the provider sent them, and no other keys', () => {
    const without = websiteStatisticsSchema.parse({ domain: 'Example.com', total: 10, blocked: 2, mitigated: 1 });
    expect(without).toStrictEqual({ domain: 'example.com', total: 10, permitted: 8, blocked: 2, mitigated: 1 });
    const withRange = websiteStatisticsSchema.parse({ domain: 'example.com', from: '2024-01-01T00:00:00Z', total: 10, blocked: 2 });
    expect(withRange).toStrictEqual({
      domain: 'example.com',
      from: '2024-01-01T00:00:00Z',
      total: 10,
      permitted: 8,
      blocked: 2,
      mitigated: 0,
    });
    const user = userStatisticsSchema.parse({ user_id: 'alice@example.com', to: '2024-01-02T00:00:00Z', total: 9, blocked: 1 });
    expect(user).toStrictEqual({
      userId: 'alice@example.com',
      to: '2024-01-02T00:00:00Z',
      total: 9,
      permitted: 8,
      blocked: 1,
      mitigated: 0,
    });
  });

  it('derives mitigated from captcha + deny when the breakdown has no total', () => {
    const stats = websiteStatisticsSchema.parse({ domain: 'example.com', total: 10, blocked: 2, mitigated: { captcha: 3, deny: 2 } });
    expect(stats.mitigated).toBe(5);
  });

  it('reads per-user statistics with a website count', () => {
    const stats = userStatisticsSchema.parse({ user_id: 'alice@example.com', total: 9, blocked: 1, mitigated: 2, websites: '3' });
    expect(stats).toEqual({ userId: 'alice@example.com', websiteCount: 3, total: 9, permitted: 8, blocked: 1, mitigated: 2 });
  });
});

describe('one error lists every problem', () => {
  it('reports cross-field rules together with field errors', () => {
    const result = websiteCreateSchema.safeParse({
      domain: 'bad domain',
      ip: [],
      settings: { loadbalancer: { certs_issuer: 'custom' } },
    });
    expect(issuePaths(result)).toEqual(expect.arrayContaining(['domain', 'ip', 'certificate']));
  });
});
