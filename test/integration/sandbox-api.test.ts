/**
 * The sandbox's own behaviour, over raw HTTP (no client), so each assertion is about what
 * the provider answers, exactly as a partner's own code would see it.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOADBALANCER_FLAGS, RULE_CATEGORIES, RULE_POLICIES, RULESETS } from '../../src/provider/spec.js';
import { startReceiver } from '../helpers/receiver.js';
import { startTestSandbox, withSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { withServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const cert = (name: string) => readFileSync(new URL(`../fixtures/certs/${name}`, import.meta.url), 'utf8');

interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

type Body = { form: Record<string, string | string[]> | string } | { json: unknown } | { raw: string; type: string };

async function call(
  sb: TestSandbox,
  method: string,
  path: string,
  options: { key?: string | null; bare?: boolean } & Partial<Body> = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = options.key === undefined ? sb.partnerKey : options.key;
  if (key !== null) headers.authorization = options.bare ? key : `Bearer ${key}`;
  let body: string | undefined;
  if ('form' in options && options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    if (typeof options.form === 'string') body = options.form;
    else {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(options.form)) {
        for (const item of Array.isArray(value) ? value : [value]) params.append(name, item);
      }
      body = params.toString();
    }
  } else if ('json' in options) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if ('raw' in options && options.raw !== undefined) {
    headers['content-type'] = options.type ?? 'application/json';
    body = options.raw;
  }
  const response = await fetch(`${sb.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Non-JSON answers (the dashboard pages) are compared as text.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

const website = (domain: string, extra: Record<string, unknown> = {}) => ({ domain, ip: ['203.0.113.10'], ...extra });

let sb: TestSandbox;
let aliceKey: string;
let bobKey: string;

async function createUser(id: string): Promise<string> {
  const answer = await call(sb, 'POST', '/v1.0/user', { form: { id } });
  expect(answer.status).toBe(201);
  return answer.body.api_key as string;
}

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});
beforeEach(async () => {
  await sb.control('POST', '/_sandbox/reset');
  aliceKey = await createUser('alice@example.com');
  bobKey = await createUser('bob@example.com');
});

describe('authentication', () => {
  it('refuses a missing key with 401 and the JSON error format', async () => {
    const answer = await call(sb, 'GET', '/v1.0/user', { key: null });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ status: 'error', code: 'unauthorized' });
    expect(answer.body.message).toMatch(/Authorization/);
  });

  it('refuses an unknown key with 401', async () => {
    expect((await call(sb, 'GET', '/v1.0/user', { key: 'not-a-key' })).status).toBe(401);
    expect((await call(sb, 'GET', '/v1.0/user', { key: '' })).status).toBe(401);
  });

  it('accepts the bare key as well as Bearer', async () => {
    expect((await call(sb, 'GET', '/v1.0/user', { bare: true })).status).toBe(200);
    expect((await call(sb, 'GET', '/v1.0/user')).status).toBe(200);
  });

  it('scopes a user key to its own assets', async () => {
    const mine = await call(sb, 'POST', '/v1.0/website', { key: aliceKey, json: website('alice.example') });
    expect(mine.status).toBe(201);
    expect(mine.body.user_id).toBe('alice@example.com');

    const theirs = await call(sb, 'GET', '/v1.0/website?domain=alice.example', { key: bobKey });
    expect(theirs.status).toBe(403);
    expect(theirs.body.code).toBe('forbidden');
    expect((await call(sb, 'PUT', '/v1.0/website/alice.example', { key: bobKey, form: { status: 'paused' } })).status).toBe(403);
    expect((await call(sb, 'GET', '/v1.0/website/alice.example/statistics', { key: bobKey })).status).toBe(403);
    expect((await call(sb, 'GET', '/v1.0/user/alice@example.com', { key: bobKey })).status).toBe(403);
    expect(
      (await call(sb, 'POST', '/v1.0/website', { key: bobKey, json: website('b.example', { user_id: 'alice@example.com' }) })).status,
    ).toBe(403);
    // A user key cannot create users: that is partner work.
    expect((await call(sb, 'POST', '/v1.0/user', { key: bobKey, form: { id: 'carol@example.com' } })).status).toBe(403);
    // What the user key lists is only its own.
    const listed = await call(sb, 'GET', '/v1.0/website', { key: bobKey });
    expect(listed.body).toEqual([]);
    expect((await call(sb, 'GET', '/v1.0/user', { key: bobKey })).body.map((u: { id: string }) => u.id)).toEqual(['bob@example.com']);
    // The partner key sees everything.
    expect((await call(sb, 'GET', '/v1.0/website?domain=alice.example')).status).toBe(200);
  });

  it('keeps the partner key across restarts of the same data folder', async () => {
    const first = await startTestSandbox();
    const { partnerKey, dataDir } = first;
    await first.close();
    await withSandbox(
      async (second) => {
        expect(second.partnerKey).toBe(partnerKey);
        expect((await call(second, 'GET', '/v1.0/user', { key: partnerKey })).status).toBe(200);
      },
      { dataDir },
    );
  });
});

describe('users, devices and servers', () => {
  it('creates, lists (GET and POST without body), reads with the key, and refuses duplicates', async () => {
    const listedByGet = await call(sb, 'GET', '/v1.0/user');
    expect(listedByGet.body.map((u: { id: string }) => u.id)).toEqual(['alice@example.com', 'bob@example.com']);
    expect(listedByGet.body[0].api_key).toBeUndefined();
    const listedByPost = await call(sb, 'POST', '/v1.0/user', { form: '' });
    expect(listedByPost.status).toBe(200);
    expect(listedByPost.body).toHaveLength(2);

    const one = await call(sb, 'GET', '/v1.0/user/alice@example.com');
    expect(one.body).toMatchObject({ id: 'alice@example.com', api_key: aliceKey, tag: [], server: [] });
    expect(aliceKey).toMatch(/^[0-9a-f-]{36}$/);

    const duplicate = await call(sb, 'POST', '/v1.0/user', { form: { id: 'Alice@Example.com' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toMatch(/already exists/);
    expect((await call(sb, 'GET', '/v1.0/user/nobody@example.com')).status).toBe(404);
  });

  it('refuses a user id that is not e-mail shaped', async () => {
    for (const id of ['alice', 'alice@', '@example.com', 'a b@example.com', 'alice@localhost']) {
      const answer = await call(sb, 'POST', '/v1.0/user', { form: { id } });
      expect(answer.status, id).toBe(422);
      expect(answer.body.details[0].path).toBe('id');
    }
  });

  it('adds devices and servers, defaulting the owner to the key, unique by IP', async () => {
    const device = await call(sb, 'POST', '/v1.0/device', {
      key: aliceKey,
      form: { name: 'office router', zone: 'eu', tag: 'edge', ip: '2001:db8::1' },
    });
    expect(device.status).toBe(201);
    expect(device.body).toMatchObject({ ip: '2001:db8::1', user_id: 'alice@example.com', name: 'office router', zone: 'eu', tag: 'edge' });
    const byAddress = await call(sb, 'POST', '/v1.0/device', {
      form: { user_id: 'bob@example.com', name: 'cam', address: '198.51.100.7' },
    });
    expect(byAddress.body).toMatchObject({ ip: '198.51.100.7', user_id: 'bob@example.com' });
    expect((await call(sb, 'POST', '/v1.0/device', { form: { ip: '2001:db8::1' } })).status).toBe(409);
    expect((await call(sb, 'POST', '/v1.0/device', { form: { name: 'no address' } })).status).toBe(422);
    expect((await call(sb, 'POST', '/v1.0/device', { form: { ip: '300.1.1.1' } })).status).toBe(422);

    const server = await call(sb, 'POST', '/v1.0/server', {
      form: { ip: '192.0.2.20', user_id: 'alice@example.com', name: 'web1.host.example', zone: 'eu-1', tag: 'shared' },
    });
    expect(server.status).toBe(201);
    expect((await call(sb, 'POST', '/v1.0/server', { form: { ip: '192.0.2.20' } })).status).toBe(409);
    expect((await call(sb, 'POST', '/v1.0/server', { form: { ip: '192.0.2.21', user_id: 'ghost@example.com' } })).status).toBe(404);
    expect((await call(sb, 'POST', '/v1.0/server', { key: bobKey, form: { ip: '192.0.2.22', user_id: 'alice@example.com' } })).status).toBe(
      403,
    );
    expect((await call(sb, 'GET', '/v1.0/user/alice@example.com')).body.server).toEqual(['192.0.2.20']);
  });

  it('edits and deletes users (extensions), refusing to delete one that owns websites', async () => {
    const edited = await call(sb, 'PUT', '/v1.0/user/bob@example.com', { json: { domain_limit: 3, tag: ['gold'] } });
    expect(edited.body).toMatchObject({ domain_limit: 3, tag: ['gold'] });
    await call(sb, 'POST', '/v1.0/website', { json: website('bob.example', { user_id: 'bob@example.com' }) });
    expect((await call(sb, 'DELETE', '/v1.0/user/bob@example.com')).status).toBe(409);
    expect((await call(sb, 'DELETE', '/v1.0/website/bob.example')).status).toBe(200);
    expect((await call(sb, 'DELETE', '/v1.0/user/bob@example.com')).status).toBe(200);
    expect((await call(sb, 'GET', '/v1.0/user/bob@example.com')).status).toBe(404);
  });
});

describe('website validation', () => {
  const refused = async (body: unknown, path: string) => {
    const answer = await call(sb, 'POST', '/v1.0/website', { json: body });
    expect(answer.status, JSON.stringify(body)).toBe(422);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.details.map((d: { path: string }) => d.path)).toContain(path);
    return answer;
  };

  it('accepts every policy for every rule category, and refuses anything else', async () => {
    for (const [i, category] of RULE_CATEGORIES.entries()) {
      for (const policy of RULE_POLICIES) {
        const domain = `${category.replace(/_/g, '-')}-${policy}-${i}.example`;
        const answer = await call(sb, 'POST', '/v1.0/website', { json: website(domain, { settings: { rules: { [category]: policy } } }) });
        expect(answer.status, domain).toBe(201);
        expect(answer.body.settings.rules[category]).toBe(policy);
      }
      await refused(website('x.example', { settings: { rules: { [category]: 'allow' } } }), `settings.rules.${category}`);
    }
    await refused(website('x.example', { settings: { rules: { robots: 'deny' } } }), 'settings.rules.robots');
  });

  it('accepts booleans for every ruleset and loadbalancer switch, and refuses other values', async () => {
    const rulesets = Object.fromEntries(RULESETS.map((name) => [name, true]));
    const loadbalancer = Object.fromEntries(LOADBALANCER_FLAGS.map((name) => [name, true]));
    const answer = await call(sb, 'POST', '/v1.0/website', { json: website('all.example', { settings: { rulesets, loadbalancer } }) });
    expect(answer.status).toBe(201);
    expect(answer.body.settings.rulesets).toEqual(rulesets);
    expect(answer.body.settings.loadbalancer).toEqual({ ...loadbalancer, certs_issuer: 'acme' });
    for (const name of RULESETS)
      await refused(website('x.example', { settings: { rulesets: { [name]: 'yes please' } } }), `settings.rulesets.${name}`);
    for (const name of LOADBALANCER_FLAGS)
      await refused(website('x.example', { settings: { loadbalancer: { [name]: 1 } } }), `settings.loadbalancer.${name}`);
    await refused(
      website('x.example', { settings: { loadbalancer: { certs_issuer: 'letsencrypt' } } }),
      'settings.loadbalancer.certs_issuer',
    );
    await refused(website('x.example', { settings: { rulesets: { typo3: true } } }), 'settings.rulesets.typo3');
  });

  it('validates domains, subdomains, addresses, status, callback URL, and refuses unknown fields', async () => {
    for (const domain of [
      '',
      'localhost',
      'exa mple.com',
      '-bad.example',
      'bad-.example',
      'a..example',
      'example.123',
      'http://example.com',
      `${'a'.repeat(64)}.example`,
    ]) {
      await refused(website(domain), 'domain');
    }
    await refused({ ip: ['203.0.113.10'] }, 'domain');
    await refused(website('x.example', { subdomain: ['ok', 'not ok'] }), 'subdomain.1');
    await refused(website('x.example', { subdomain: 'www' }), 'subdomain');
    await refused(website('x.example', { ip: ['203.0.113.300'] }), 'ip.0');
    await refused(website('x.example', { ip: ['2001:db8::zz'] }), 'ip.0');
    await refused(website('x.example', { ipv6: ['203.0.113.10'] }), 'ipv6.0');
    await refused(website('x.example', { ip: [] }), 'ip');
    await refused(website('x.example', { status: 'deleted' }), 'status');
    await refused(website('x.example', { callbackUrl: 'ftp://example.com/x' }), 'callbackUrl');
    await refused(website('x.example', { tag: [''] }), 'tag.0');
    await refused(website('x.example', { setings: {} }), 'setings');
    await refused(website('x.example', { user_id: 'not-an-email' }), 'user_id');
  });

  it('lists every bad field in one answer', async () => {
    const answer = await refused({ domain: 'bad domain', ip: ['x'], status: 'nope' }, 'domain');
    expect(answer.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['domain', 'ip.0', 'status']);
  });

  it('normalises IDN domains to punycode and lower case, and subdomain lists to a set', async () => {
    const answer = await call(sb, 'POST', '/v1.0/website', {
      json: website('Bücher.Example', { subdomain: ['WWW', 'www', 'shop'], ip: ['2001:DB8::10'], ipv6: ['2001:db8::20', '2001:DB8::20'] }),
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      domain: 'xn--bcher-kva.example',
      subdomain: ['www', 'shop'],
      ip: ['2001:db8::10'],
      ipv6: ['2001:db8::20'],
    });
    expect((await call(sb, 'GET', `/v1.0/website?domain=${encodeURIComponent('BÜCHER.example')}`)).status).toBe(200);
  });

  it('answers 400 for a body that is not JSON and 404 for unknown endpoints', async () => {
    const broken = await call(sb, 'POST', '/v1.0/website', { raw: '{"domain":', type: 'application/json' });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('bad_request');
    expect((await call(sb, 'GET', '/v1.0/nothing-here')).body.code).toBe('not_found');
  });

  it('refuses a domain that does not resolve, and a name marked NXDOMAIN', async () => {
    const invalid = await call(sb, 'POST', '/v1.0/website', { json: website('nowhere.invalid') });
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('domain_unresolvable');
    expect(invalid.body.message).toMatch(/does not (exist|resolve)/);
    await sb.control('POST', '/_sandbox/nxdomain', { domains: ['gone.example'] });
    expect((await call(sb, 'POST', '/v1.0/website', { json: website('gone.example') })).body.code).toBe('domain_unresolvable');
    expect((await call(sb, 'GET', '/v1.0/website?domain=gone.example')).status).toBe(404);
  });

  it('refuses a second website with the same domain with 409 "already exists"', async () => {
    expect((await call(sb, 'POST', '/v1.0/website', { json: website('dup.example') })).status).toBe(201);
    const again = await call(sb, 'POST', '/v1.0/website', { form: { domain: 'DUP.example', ip: '203.0.113.10' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 'error', code: 'already_exists' });
    expect(again.body.message).toMatch(/already exists/);
  });
});

describe('form encoding', () => {
  it('accepts comma-joined, repeated and bracket-notation arrays and form booleans', async () => {
    const commas = await call(sb, 'POST', '/v1.0/website', {
      form: { user_id: 'alice@example.com', domain: 'commas.example', subdomain: 'www,shop', ip: '203.0.113.10,2001:db8::1', tag: 'a,b' },
    });
    expect(commas.status).toBe(201);
    expect(commas.body).toMatchObject({
      subdomain: ['www', 'shop'],
      ip: ['203.0.113.10', '2001:db8::1'],
      tag: ['a', 'b'],
      user_id: 'alice@example.com',
    });

    const repeated = await call(sb, 'POST', '/v1.0/website', {
      form: { domain: 'repeated.example', subdomain: ['www', 'blog'], ip: ['203.0.113.10', '203.0.113.11'], tag: ['x', 'y'] },
    });
    expect(repeated.body).toMatchObject({ subdomain: ['www', 'blog'], ip: ['203.0.113.10', '203.0.113.11'], tag: ['x', 'y'] });

    const brackets = await call(sb, 'POST', '/v1.0/website', {
      form: 'domain=php.example&ip[0]=203.0.113.10&tag[0]=a&tag[1]=b&ipv6[]=2001:db8::2&status=setup&settings[rules][humans]=captcha&settings[rulesets][wordpress]=1&settings[loadbalancer][force_https]=false&settings[loadbalancer][certs_issuer]=acme',
    });
    expect(brackets.status).toBe(201);
    expect(brackets.body).toMatchObject({ tag: ['a', 'b'], ipv6: ['2001:db8::2'], status: 'setup' });
    expect(brackets.body.settings.rules.humans).toBe('captcha');
    expect(brackets.body.settings.rulesets.wordpress).toBe(true);
    expect(brackets.body.settings.loadbalancer.force_https).toBe(false);
  });
});

describe('updates', () => {
  it('applies a partial JSON update and leaves every other setting untouched', async () => {
    const created = await call(sb, 'POST', '/v1.0/website', {
      json: website('partial.example', {
        subdomain: ['www'],
        tag: ['t'],
        settings: { rules: { humans: 'captcha' }, rulesets: { joomla: true }, loadbalancer: { cache_dynamic_pages: true } },
      }),
    });
    const before = created.body;
    const updated = await call(sb, 'PUT', '/v1.0/website/partial.example', {
      json: { domain: 'partial.example', subdomain: ['www'], settings: { rules: { suspicious_behaviour: 'deny' } } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.settings).toEqual({ ...before.settings, rules: { ...before.settings.rules, suspicious_behaviour: 'deny' } });
    expect(updated.body).toMatchObject({ ip: before.ip, tag: before.tag, subdomain: ['www'], requested_status: 'online' });
    const looked = await call(sb, 'GET', '/v1.0/website?domain=partial.example');
    expect(looked.body.settings).toEqual(updated.body.settings);
  });

  it('adds a subdomain by sending the array including the new label', async () => {
    await call(sb, 'POST', '/v1.0/website', { json: website('sub.example', { subdomain: ['www'] }) });
    const updated = await call(sb, 'PUT', '/v1.0/website/sub.example', { json: { domain: 'sub.example', subdomain: ['www', 'shop'] } });
    expect(updated.body.subdomain).toEqual(['www', 'shop']);
    expect((await call(sb, 'GET', '/v1.0/website?domain=sub.example')).body.subdomain).toEqual(['www', 'shop']);
  });

  it('refuses a body domain that differs from the path, and unknown websites', async () => {
    await call(sb, 'POST', '/v1.0/website', { json: website('path.example') });
    expect((await call(sb, 'PUT', '/v1.0/website/path.example', { json: { domain: 'other.example', tag: ['x'] } })).status).toBe(422);
    expect((await call(sb, 'PUT', '/v1.0/website/missing.example', { form: { status: 'paused' } })).status).toBe(404);
    expect((await call(sb, 'PUT', '/v1.0/website/path.example', { form: { status: 'gone' } })).status).toBe(422);
  });
});

describe('status, DNS and certificates', () => {
  it('moves pending_dns -> online when DNS is verified, then pauses and resumes with form status', async () => {
    // No issuance delay here, so the flow is DNS alone.
    await withSandbox(
      async (fast) => {
        const make = await call(fast, 'POST', '/v1.0/website', { json: website('flow.example') });
        expect(make.body.status).toBe('pending_dns');
        await fast.control('POST', '/_sandbox/websites/flow.example/dns-verified');
        expect((await call(fast, 'GET', '/v1.0/website?domain=flow.example')).body.status).toBe('online');
        const paused = await call(fast, 'PUT', '/v1.0/website/flow.example', { form: { status: 'paused' } });
        expect(paused.body.status).toBe('paused');
        const resumed = await call(fast, 'PUT', '/v1.0/website/flow.example', { form: { status: 'online' } });
        expect(resumed.body.status).toBe('online');
      },
      { certDelaySeconds: 0 },
    );
  });

  it('verifies DNS by itself after --dns-delay', async () => {
    await withSandbox(
      async (auto) => {
        await call(auto, 'POST', '/v1.0/website', { json: website('auto.example', { status: 'paused' }) });
        await waitFor(
          async () => (await call(auto, 'GET', '/v1.0/website?domain=auto.example')).body.status === 'paused',
          3000,
          'auto DNS verification',
        );
      },
      { dnsDelaySeconds: 0.2, certDelaySeconds: 0 },
    );
  });

  it('keeps setup until a PUT asks for online', async () => {
    await call(sb, 'POST', '/v1.0/website', { json: website('setup.example', { status: 'setup' }) });
    await sb.control('POST', '/_sandbox/websites/setup.example/dns-verified');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await call(sb, 'GET', '/v1.0/website?domain=setup.example')).body.status).toBe('setup');
    await call(sb, 'PUT', '/v1.0/website/setup.example', { form: { status: 'online' } });
    expect((await call(sb, 'GET', '/v1.0/website?domain=setup.example')).body.status).toBe('online');
  });

  it('shows ACME issuance in certificate_status, never in status: at DNS verification and when switching back to acme', async () => {
    const created = await call(sb, 'POST', '/v1.0/website', {
      json: website('secure.example', {
        settings: { loadbalancer: { certs_issuer: 'custom' } },
        certificate: { public: cert('secure.example.crt'), private: cert('secure.example.key') },
      }),
    });
    expect(created.body).toMatchObject({ status: 'pending_dns', certificate_status: 'custom' });
    const verified = await sb.control<{ status: string; certificate_status: string }>(
      'POST',
      '/_sandbox/websites/secure.example/dns-verified',
    );
    expect(verified).toMatchObject({ status: 'online', certificate_status: 'custom' });
    const switched = await call(sb, 'PUT', '/v1.0/website/secure.example', {
      json: { domain: 'secure.example', settings: { loadbalancer: { certs_issuer: 'acme' } } },
    });
    expect(switched.body).toMatchObject({ status: 'online', certificate_status: 'issuing', certificate: null });
    const issued = await waitFor(
      async () => {
        const body = (await call(sb, 'GET', '/v1.0/website?domain=secure.example')).body;
        return body.certificate_status === 'issued' ? body : undefined;
      },
      3000,
      'certificate issued',
    );
    expect(issued.status).toBe('online');

    const acme = await call(sb, 'POST', '/v1.0/website', { json: website('acme.example') });
    expect(acme.body).toMatchObject({ status: 'pending_dns', certificate_status: 'none' });
    const atVerification = await sb.control<{ status: string; certificate_status: string }>(
      'POST',
      '/_sandbox/websites/acme.example/dns-verified',
    );
    expect(atVerification).toMatchObject({ status: 'online', certificate_status: 'issuing' });
    await waitFor(
      async () => (await call(sb, 'GET', '/v1.0/website?domain=acme.example')).body.certificate_status === 'issued',
      3000,
      'certificate issued',
    );
  });

  it('shows a status=paused sent during issuance at once, and still finishes the certificate with its signed callback', async () => {
    const receiver = await startReceiver();
    try {
      await withSandbox(
        async (slow) => {
          const aliceOfSlow = (await call(slow, 'POST', '/v1.0/user', { form: { id: 'alice@example.com' } })).body.api_key as string;
          const callbackUrl = `${receiver.url}/callbacks/website/tok-pause`;
          await call(slow, 'POST', '/v1.0/website', { key: aliceOfSlow, json: website('pause.example', { callbackUrl }) });
          const verified = await slow.control<{ status: string; certificate_status: string }>(
            'POST',
            '/_sandbox/websites/pause.example/dns-verified',
          );
          expect(verified).toMatchObject({ status: 'online', certificate_status: 'issuing' });

          const paused = await call(slow, 'PUT', '/v1.0/website/pause.example', { key: aliceOfSlow, form: { status: 'paused' } });
          expect(paused.body).toMatchObject({ status: 'paused', requested_status: 'paused', certificate_status: 'issuing' });
          expect((await call(slow, 'GET', '/v1.0/website?domain=pause.example')).body).toMatchObject({
            status: 'paused',
            certificate_status: 'issuing',
          });

          const finished = await waitFor(
            async () => {
              const body = (await call(slow, 'GET', '/v1.0/website?domain=pause.example')).body;
              return body.certificate_status === 'issued' ? body : undefined;
            },
            5000,
            'certificate issued',
          );
          expect(finished.status).toBe('paused');

          const events = await waitFor(
            () => {
              const bodies = receiver.received.map((r) => JSON.parse(r.body) as Record<string, string>);
              return bodies.some((b) => b.event === 'website.certificate_changed' && b.certificate_status === 'issued')
                ? bodies
                : undefined;
            },
            5000,
            'the certificate callback',
          );
          const byTime = (a: Record<string, string>, b: Record<string, string>) =>
            Date.parse(a.occurred_at ?? '') - Date.parse(b.occurred_at ?? '');
          expect(
            events
              .filter((e) => e.event === 'website.status_changed')
              .sort(byTime)
              .map((e) => `${e.previous_status}->${e.status}`),
          ).toEqual(['pending_dns->online', 'online->paused']);
          const certificateEvents = events.filter((e) => e.event === 'website.certificate_changed').sort(byTime);
          expect(certificateEvents.map((e) => `${e.previous_certificate_status}->${e.certificate_status}`)).toEqual([
            'none->issuing',
            'issuing->issued',
          ]);
          expect(certificateEvents[1]).toEqual({
            event: 'website.certificate_changed',
            id: expect.any(String),
            domain: 'pause.example',
            certificate_status: 'issued',
            previous_certificate_status: 'issuing',
            status: 'paused',
            occurred_at: expect.any(String),
          });
          for (const request of receiver.received) {
            expect(request.headers['x-signature']).toBe(`sha256=${createHmac('sha256', aliceOfSlow).update(request.body).digest('hex')}`);
          }
        },
        { certDelaySeconds: 2 },
      );
    } finally {
      await receiver.close();
    }
  });

  it('requires a matching, valid PEM pair for custom certificates and never returns the private key', async () => {
    const custom = (certificate: unknown) =>
      call(sb, 'POST', '/v1.0/website', {
        json: website('secure.example', { settings: { loadbalancer: { certs_issuer: 'custom' } }, certificate }),
      });
    const missing = await custom(undefined);
    expect(missing.status).toBe(422);
    expect(missing.body.details[0]).toMatchObject({ path: 'certificate', message: expect.stringMatching(/required/) });
    expect((await custom({ public: 'not a certificate', private: cert('secure.example.key') })).body.message).toMatch(/PEM certificate/);
    expect((await custom({ public: cert('secure.example.crt'), private: 'garbage' })).body.message).toMatch(/private key/);
    expect((await custom({ public: cert('secure.example.crt'), private: cert('other.key') })).body.message).toMatch(/does not belong/);
    const wrongDomain = await call(sb, 'POST', '/v1.0/website', {
      json: website('elsewhere.example', {
        settings: { loadbalancer: { certs_issuer: 'custom' } },
        certificate: { public: cert('secure.example.crt'), private: cert('secure.example.key') },
      }),
    });
    expect(wrongDomain.body.message).toMatch(/does not cover elsewhere.example/);
    const withAcme = await call(sb, 'POST', '/v1.0/website', {
      json: website('acme2.example', { certificate: { public: cert('secure.example.crt'), private: cert('secure.example.key') } }),
    });
    expect(withAcme.body.details[0].message).toMatch(/only used when/);

    const good = await custom({ public: cert('secure.example.crt'), private: cert('secure.example.key') });
    expect(good.status).toBe(201);
    expect(good.body.certificate).toEqual({ public: cert('secure.example.crt') });
    expect(JSON.stringify(good.body)).not.toContain('PRIVATE KEY');
    // A later update may keep custom without re-sending the stored pair.
    expect(
      (
        await call(sb, 'PUT', '/v1.0/website/secure.example', {
          json: { domain: 'secure.example', settings: { rules: { humans: 'grant' } } },
        })
      ).status,
    ).toBe(200);
  });
});

describe('callbacks', () => {
  it('sends a signed callback on every status change, retrying a failing receiver', async () => {
    const receiver = await startReceiver({ failFirst: 2 });
    try {
      const callbackUrl = `${receiver.url}/callbacks/website/tok123`;
      await call(sb, 'POST', '/v1.0/website', { key: aliceKey, json: website('cb.example', { callbackUrl }) });
      await sb.control('POST', '/_sandbox/websites/cb.example/dns-verified');
      // pending_dns -> online; the certificate none -> issuing -> issued; then online -> paused
      await waitFor(
        () => receiver.received.filter((r) => r.answeredWith === 200).length >= 3 || undefined,
        5000,
        'three delivered callbacks',
      );
      await call(sb, 'PUT', '/v1.0/website/cb.example', { form: { status: 'paused' } });
      const delivered = await waitFor(
        () => {
          const ok = receiver.received.filter((r) => r.answeredWith === 200);
          return ok.length >= 4 ? ok : undefined;
        },
        5000,
        'four delivered callbacks',
      );

      expect(receiver.received.slice(0, 2).every((r) => r.answeredWith === 500)).toBe(true);
      const bodies = delivered.map((r) => JSON.parse(r.body) as { event: string; previous_status: string; status: string });
      const statusEvents = bodies.filter((b) => b.event === 'website.status_changed');
      expect(statusEvents.map((t) => `${t.previous_status}->${t.status}`)).toEqual(['pending_dns->online', 'online->paused']);
      expect(bodies.filter((b) => b.event === 'website.certificate_changed')).toHaveLength(2);
      for (const request of delivered) {
        expect(request.method).toBe('POST');
        expect(request.path).toBe('/callbacks/website/tok123');
        expect(request.headers['content-type']).toBe('application/json');
        const expected = `sha256=${createHmac('sha256', aliceKey).update(request.body).digest('hex')}`;
        expect(request.headers['x-signature']).toBe(expected);
        expect(JSON.parse(request.body)).toMatchObject({ domain: 'cb.example', id: expect.any(String), occurred_at: expect.any(String) });
      }
      const log = await sb.control<{ attempts: number; delivered_at: string | null; last_status: number }[]>('GET', '/_sandbox/callbacks');
      expect(log).toHaveLength(4);
      expect(log.every((c) => c.delivered_at !== null && c.last_status === 200)).toBe(true);
      expect(log.reduce((sum, c) => sum + c.attempts, 0)).toBe(6);
    } finally {
      await receiver.close();
    }
  });

  it('sends nothing for a website without callbackUrl, and never makes the API wait for a slow receiver', async () => {
    await call(sb, 'POST', '/v1.0/website', { json: website('quiet.example') });
    await sb.control('POST', '/_sandbox/websites/quiet.example/dns-verified');
    expect(await sb.control('GET', '/_sandbox/callbacks')).toEqual([]);

    // A receiver that never answers: the status change still answers at once.
    await withServer(
      () => {},
      async (hanging) => {
        await call(sb, 'POST', '/v1.0/website', { json: website('slowcb.example', { callbackUrl: `${hanging.url}/cb` }) });
        const started = performance.now();
        await sb.control('POST', '/_sandbox/websites/slowcb.example/dns-verified');
        await call(sb, 'PUT', '/v1.0/website/slowcb.example', { form: { status: 'paused' } });
        expect(performance.now() - started).toBeLessThan(1000);
      },
    );
  });
});

describe('statistics', () => {
  it('grows with injected traffic, splits permitted and blocked, and sums per user', async () => {
    await call(sb, 'POST', '/v1.0/website', { key: aliceKey, json: website('stats.example') });
    await call(sb, 'POST', '/v1.0/website', { key: aliceKey, json: website('stats2.example') });
    const empty = await call(sb, 'GET', '/v1.0/website/stats.example/statistics');
    expect(empty.body).toMatchObject({ domain: 'stats.example', total: 0, permitted: 0, blocked: 0, mitigated: { total: 0 } });

    await sb.control('POST', '/_sandbox/websites/stats.example/traffic', {
      hits: 100,
      blocked: 10,
      mitigated: 5,
      category: 'content_scrapers',
    });
    await sb.control('POST', '/_sandbox/traffic', [
      { domain: 'stats.example', hits: 50 },
      { domain: 'stats2.example', hits: 7, blocked: 7 },
    ]);
    const stats = await call(sb, 'GET', '/v1.0/website/stats.example/statistics', { key: aliceKey });
    expect(stats.body).toMatchObject({
      domain: 'stats.example',
      total: 150,
      permitted: 140,
      blocked: 10,
      mitigated: { total: 15, captcha: 5, deny: 10, by_category: { content_scrapers: 15 } },
    });
    const hourAgo = new Date(Date.now() - 3_600_000 * 3).toISOString();
    const ranged = await call(sb, 'GET', `/v1.0/website/stats.example/statistics?from=${encodeURIComponent(hourAgo)}`);
    expect(ranged.body.total).toBe(150);
    const past = await call(sb, 'GET', `/v1.0/website/stats.example/statistics?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z`);
    expect(past.body.total).toBe(0);
    expect((await call(sb, 'GET', '/v1.0/website/stats.example/statistics?from=yesterday')).status).toBe(422);

    const user = await call(sb, 'GET', '/v1.0/user/alice@example.com/statistics');
    expect(user.body).toMatchObject({ user_id: 'alice@example.com', websites: 2, total: 157, blocked: 17, permitted: 140 });

    await sb.control('POST', '/_sandbox/websites/stats.example/counters/reset');
    expect((await call(sb, 'GET', '/v1.0/website/stats.example/statistics')).body.total).toBe(0);
    expect((await call(sb, 'GET', '/v1.0/website/missing.example/statistics')).status).toBe(404);
  });
});

describe('traffic generator', () => {
  it('adds hits to online websites by itself when --traffic is set', async () => {
    await withSandbox(
      async (busy) => {
        await call(busy, 'POST', '/v1.0/website', { json: website('busy.example') });
        await call(busy, 'POST', '/v1.0/website', { json: website('waiting.example') });
        await busy.control('POST', '/_sandbox/websites/busy.example/dns-verified');
        const grown = await waitFor(
          async () => {
            const stats = (await call(busy, 'GET', '/v1.0/website/busy.example/statistics')).body;
            return stats.total > 0 ? stats : undefined;
          },
          4000,
          'generated traffic',
        );
        expect(grown.permitted + grown.blocked).toBe(grown.total);
        // Websites that are not online yet get no visitors.
        expect((await call(busy, 'GET', '/v1.0/website/waiting.example/statistics')).body.total).toBe(0);
      },
      { trafficPerSecond: 100, certDelaySeconds: 0 },
    );
  });
});

describe('error bodies', () => {
  /** One request with exactly these headers and bytes; the answer with its size in bytes. */
  async function send(path: string, headers: Record<string, string>, body: string | Buffer) {
    const response = await fetch(`${sb.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.partnerKey}`, ...headers },
      body,
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, bytes: bytes.length, body: JSON.parse(bytes.toString('utf8')) as any };
  }
  const errorShape = { status: 'error', code: expect.any(String), message: expect.any(String), details: expect.any(Array) };

  it('answers more form parameters than the limit with 413 payload_too_large, and reads up to the limit', async () => {
    const form = (n: number) =>
      ['domain=params.example', 'ip=203.0.113.10', ...Array.from({ length: n - 2 }, (_, i) => `k${i}=1`)].join('&');
    const over = await send('/v1.0/website', { 'content-type': 'application/x-www-form-urlencoded' }, form(5001));
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ ...errorShape, code: 'payload_too_large' });
    const atLimit = await send('/v1.0/website', { 'content-type': 'application/x-www-form-urlencoded' }, form(5000));
    expect(atLimit.status).toBe(422);
    expect(atLimit.body.code).toBe('validation_failed');
  });

  it('answers an unsupported charset or Content-Encoding with 415 unsupported_media_type, on /v1.0 and the control API', async () => {
    const body = JSON.stringify(website('latin.example'));
    const charset = await send('/v1.0/website', { 'content-type': 'application/json; charset=latin9' }, body);
    expect(charset.status).toBe(415);
    expect(charset.body).toMatchObject({ ...errorShape, code: 'unsupported_media_type', message: expect.stringMatching(/LATIN9/i) });
    for (const encoding of ['compress', 'x-unknown']) {
      const answer = await send('/v1.0/website', { 'content-type': 'application/json', 'content-encoding': encoding }, body);
      expect(answer.status, encoding).toBe(415);
      expect(answer.body, encoding).toMatchObject({
        ...errorShape,
        code: 'unsupported_media_type',
        message: expect.stringContaining(encoding),
      });
    }
    const control = await send('/_sandbox/nxdomain', { 'content-type': 'application/json; charset=latin9' }, '{"domains":["a.example"]}');
    expect(control.status).toBe(415);
    expect(control.body).toMatchObject({ ...errorShape, code: 'unsupported_media_type' });
    // Supported encodings are read as they are.
    const { brotliCompressSync, gzipSync } = await import('node:zlib');
    expect(
      (await send('/v1.0/website', { 'content-type': 'application/json', 'content-encoding': 'br' }, brotliCompressSync(body))).status,
    ).toBe(201);
    expect(
      (
        await send(
          '/v1.0/website',
          { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          gzipSync(JSON.stringify(website('gz.example'))),
        )
      ).status,
    ).toBe(201);
  });

  it('caps details at 50 with a count of the rest: 10,000 unknown keys answer a small 422', async () => {
    const keys = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`unknown_field_${i}`, 'x']));
    const answer = await send(
      '/v1.0/website',
      { 'content-type': 'application/json' },
      JSON.stringify({ ...website('many.example'), ...keys }),
    );
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ ...errorShape, code: 'validation_failed', details_omitted: 9950 });
    expect(answer.body.details).toHaveLength(50);
    expect(answer.body.details[0]).toEqual({ path: 'unknown_field_0', message: 'unknown field' });
    expect(answer.bytes).toBeLessThan(16 * 1024);
    // Under the cap nothing is left out, and the count says so.
    const few = await send('/v1.0/website', { 'content-type': 'application/json' }, JSON.stringify({ domain: 'bad domain', ip: ['x'] }));
    expect(few.body).toMatchObject({ code: 'validation_failed', details_omitted: 0 });
    expect(few.body.details).toHaveLength(2);
    // One huge unknown key does not make a huge answer either.
    const huge = await send(
      '/v1.0/website',
      { 'content-type': 'application/json' },
      JSON.stringify({ ...website('huge.example'), [`k${'x'.repeat(50_000)}`]: 1 }),
    );
    expect(huge.status).toBe(422);
    expect(huge.bytes).toBeLessThan(2 * 1024);
  });

  it('caps details in control API errors too', async () => {
    const answer = await send(
      '/_sandbox/nxdomain',
      { 'content-type': 'application/json' },
      JSON.stringify({ domains: Array.from({ length: 200 }, (_, i) => `bad name ${i}`) }),
    );
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ ...errorShape, code: 'validation_failed', details_omitted: 150 });
    expect(answer.body.details).toHaveLength(50);
    expect(answer.bytes).toBeLessThan(16 * 1024);
  });
});

describe('limits and versions', () => {
  it('refuses one domain past the user limit with domain_limit_reached', async () => {
    await call(sb, 'PUT', '/v1.0/user/alice@example.com', { form: { domain_limit: '2' } });
    for (const domain of ['one.example', 'two.example']) {
      expect((await call(sb, 'POST', '/v1.0/website', { key: aliceKey, json: website(domain) })).status).toBe(201);
    }
    const third = await call(sb, 'POST', '/v1.0/website', { key: aliceKey, json: website('three.example') });
    expect(third.status).toBe(403);
    expect(third.body.code).toBe('domain_limit_reached');
    expect(third.body.message).toMatch(/limit of 2 domains/);
    expect((await call(sb, 'GET', '/v1.0/website?domain=three.example')).status).toBe(404);
  });

  it('gives each new user the --domain-limit default', async () => {
    await withSandbox(
      async (limited) => {
        await call(limited, 'POST', '/v1.0/user', { form: { id: 'x@example.com' } });
        expect((await call(limited, 'GET', '/v1.0/user/x@example.com')).body.domain_limit).toBe(1);
        expect((await call(limited, 'POST', '/v1.0/website', { json: website('a.example', { user_id: 'x@example.com' }) })).status).toBe(
          201,
        );
        expect((await call(limited, 'POST', '/v1.0/website', { json: website('b.example', { user_id: 'x@example.com' }) })).body.code).toBe(
          'domain_limit_reached',
        );
      },
      { defaultDomainLimit: 1 },
    );
  });

  it('answers 429 with Retry-After past the per-key rate, per key', async () => {
    await withSandbox(
      async (limited) => {
        const statuses: number[] = [];
        let retryAfter: string | null = null;
        for (let i = 0; i < 8; i++) {
          const answer = await call(limited, 'GET', '/v1.0/user');
          statuses.push(answer.status);
          if (answer.status === 429) {
            retryAfter = answer.headers.get('retry-after');
            expect(answer.body.code).toBe('rate_limited');
          }
        }
        expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
        expect(statuses).toContain(429);
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
        // The control API is never rate limited.
        expect((await limited.control<unknown[]>('GET', '/_sandbox/requests')).length).toBeGreaterThan(0);
      },
      { rateLimitPerSecond: 5 },
    );
  });

  it('answers 404 unknown_version for any other version prefix', async () => {
    for (const path of ['/v2.0/user', '/v1.1/website', '/v1/user', '/v0.9/website?domain=x.example']) {
      const answer = await call(sb, 'GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.code).toBe('unknown_version');
    }
  });
});

describe('control API and faults', () => {
  it('takes only the partner key', async () => {
    expect((await call(sb, 'GET', '/_sandbox/requests', { key: aliceKey })).status).toBe(403);
    expect((await call(sb, 'GET', '/_sandbox/requests', { key: null })).status).toBe(401);
  });

  it('injects down, error, slow and ratelimit into /v1.0 only, for `times` requests', async () => {
    await sb.control('POST', '/_sandbox/faults', { mode: 'down', times: 1 });
    expect((await call(sb, 'GET', '/v1.0/user')).status).toBe(503);
    expect((await call(sb, 'GET', '/v1.0/user')).status).toBe(200);

    await sb.control('POST', '/_sandbox/faults', { mode: 'error' });
    expect((await call(sb, 'GET', '/v1.0/user')).body.code).toBe('internal_error');
    expect((await sb.control<{ mode: string }>('GET', '/_sandbox/faults')).mode).toBe('error');
    await sb.control('POST', '/_sandbox/faults', { mode: 'ratelimit', retryAfter: 3, times: 1 });
    const limited = await call(sb, 'GET', '/v1.0/user');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');

    await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 300, times: 1 });
    const started = performance.now();
    expect((await call(sb, 'GET', '/v1.0/user')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);

    await sb.control('POST', '/_sandbox/faults', { mode: 'down', reset: true, times: 1 });
    await expect(call(sb, 'GET', '/v1.0/user')).rejects.toThrow();
    expect((await call(sb, 'GET', '/v1.0/user')).status).toBe(200);
    expect((await call(sb, 'POST', '/_sandbox/faults', { json: { mode: 'meltdown' } })).status).toBe(422);
  });

  it('records recent requests without keys', async () => {
    await call(sb, 'GET', '/v1.0/user', { key: aliceKey });
    const requests = await sb.control<{ method: string; path: string; status: number; who: string }[]>('GET', '/_sandbox/requests?limit=1');
    expect(requests).toEqual([expect.objectContaining({ method: 'GET', path: '/v1.0/user', status: 200, who: 'alice@example.com' })]);
    const all = JSON.stringify(await sb.control('GET', '/_sandbox/requests?limit=1000'));
    expect(all).not.toContain(aliceKey);
    expect(all).not.toContain(sb.partnerKey);
  });

  it('reset forgets users and websites but keeps the partner key', async () => {
    await call(sb, 'POST', '/v1.0/website', { json: website('gone-after-reset.example') });
    await sb.control('POST', '/_sandbox/reset');
    expect((await call(sb, 'GET', '/v1.0/user')).body).toEqual([]);
    expect((await call(sb, 'GET', '/v1.0/website')).body).toEqual([]);
  });
});

describe('rules editor frame', () => {
  it('shows and saves rules with the user key, frameable, without leaking the key', async () => {
    await call(sb, 'POST', '/v1.0/website', { key: aliceKey, json: website('frame.example') });
    const page = await fetch(`${sb.url}/en/website/frame.example/edit?api-key=${aliceKey}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).toContain('frame.example');
    expect(html).toContain('name="settings[rules][humans]"');

    const form = new URLSearchParams({
      'settings[rules][humans]': 'captcha',
      'settings[rulesets][wordpress]': 'true',
      'settings[loadbalancer][certs_issuer]': 'acme',
    });
    const saved = await fetch(`${sb.url}/en/website/frame.example/edit?api-key=${aliceKey}`, { method: 'POST', body: form });
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain('Saved.');
    const after = (await call(sb, 'GET', '/v1.0/website?domain=frame.example')).body;
    expect(after.settings.rules.humans).toBe('captcha');
    expect(after.settings.rulesets.wordpress).toBe(true);
    expect(after.settings.loadbalancer.force_https).toBe(false);

    expect((await fetch(`${sb.url}/en/website/frame.example/edit?api-key=${bobKey}`)).status).toBe(403);
    expect((await fetch(`${sb.url}/en/website/frame.example/edit`)).status).toBe(401);
    const stats = await fetch(`${sb.url}/en/website/frame.example/statistics?api-key=${aliceKey}`);
    expect(stats.status).toBe(200);
    expect(await stats.text()).toContain('Total hits');
  });
});
