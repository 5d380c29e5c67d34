/**
 * The provider client against the real sandbox on port 0: every method, the error mapping,
 * the retry policy (driven by the sandbox's fault modes) and the secrecy of the API key.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createProviderClient,
  isProviderError,
  ProviderError,
  type ProviderClient,
  type ProviderClientOptions,
  type ProviderErrorCode,
} from '../../src/provider/index.js';
import { removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startServer } from '../helpers/server.js';

let sandbox: TestSandbox;
/** Log output of the current test, and of the whole file (for the secrecy check). */
let logLines: string[] = [];
const allLogLines: string[] = [];
let client: ProviderClient;
/** Every error any test provoked, checked for the keys at the end. */
const thrown: unknown[] = [];
/** Every key that must never leak (partner key and user keys). */
const secrets = new Set<string>();

function clientOptions(overrides: Partial<ProviderClientOptions> = {}): ProviderClientOptions {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(chunk.toString());
      allLogLines.push(chunk.toString());
      callback();
    },
  });
  return {
    baseUrl: sandbox.url,
    apiKey: sandbox.partnerKey,
    timeoutMs: 5_000,
    retry: { limit: 4, baseDelayMs: 10, maxDelayMs: 100, maxRetryAfterMs: 5_000 },
    logger: pino({ level: 'debug' }, stream),
    ...overrides,
  };
}

function control<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  return sandbox.control<T>(method, `/_sandbox${path}`, body);
}

interface LoggedRequest {
  method: string;
  path: string;
  status: number;
}

async function recentRequests(): Promise<LoggedRequest[]> {
  const body = await control<LoggedRequest[] | { requests: LoggedRequest[] }>('GET', '/requests?limit=100');
  return Array.isArray(body) ? body : body.requests;
}

async function listWebsitesRaw(): Promise<{ domain: string }[]> {
  const response = await fetch(`${sandbox.url}/v1.0/website`, {
    headers: { authorization: `Bearer ${sandbox.partnerKey}`, accept: 'application/json' },
  });
  return (await response.json()) as { domain: string }[];
}

/** Runs the call expecting a ProviderError with this code; records it for the secrecy check. */
async function expectProviderError(call: Promise<unknown>, code: ProviderErrorCode): Promise<ProviderError> {
  try {
    await call;
  } catch (error) {
    thrown.push(error);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code, (error as Error).message).toBe(code);
    return error as ProviderError;
  }
  throw new Error(`expected ${code}, but the call succeeded`);
}

/** Polls until the check passes; the sandbox's DNS and certificate steps are asynchronous. */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  secrets.add(sandbox.partnerKey);
});

afterAll(async () => {
  if (!sandbox) return;
  await sandbox.close();
  removeTempDir(sandbox.dataDir);
});

beforeEach(async () => {
  logLines = [];
  await control('POST', '/reset');
  client = createProviderClient(clientOptions());
});

afterEach(async () => {
  await control('POST', '/faults', { mode: 'none' });
});

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'certs');
const alice = 'alice@example.com';
const bob = 'bob@example.com';

describe('users', () => {
  it('creates, lists, reads (with key) and updates users', async () => {
    const created = await client.createUser('Alice@Example.com');
    expect(created.id).toBe(alice);
    expect(created.api_key).toEqual(expect.any(String));
    secrets.add(created.api_key ?? '');

    await client.createUser(bob);
    const users = await client.listUsers();
    expect(users.map((user) => user.id).sort()).toEqual([alice, bob]);

    const read = await client.getUser(alice);
    expect(read.api_key).toBe(created.api_key);

    const updated = await client.updateUser(alice, { domain_limit: 3, tag: ['gold'] });
    expect(updated).toMatchObject({ id: alice, domain_limit: 3, tag: ['gold'] });
    expect((await client.updateUser(alice, { domain_limit: null })).domain_limit).toBeNull();
  });

  it('maps a duplicate create to PROVIDER_CONFLICT and ensureUser converges', async () => {
    await client.createUser(alice);
    await expectProviderError(client.createUser(alice), 'PROVIDER_CONFLICT');

    const first = await client.ensureUser(bob);
    const second = await client.ensureUser(bob);
    expect(second.id).toBe(bob);
    expect(second.api_key).toBe(first.api_key);
    expect((await client.listUsers()).filter((user) => user.id === bob)).toHaveLength(1);
  });

  it('maps an unknown user to PROVIDER_NOT_FOUND', async () => {
    await expectProviderError(client.getUser('nobody@example.com'), 'PROVIDER_NOT_FOUND');
  });
});

describe('devices and servers', () => {
  it('adds a device and a server, and refuses a duplicate IP', async () => {
    await client.createUser(alice);
    const device = await client.addDevice({ ip: '192.0.2.10', user_id: alice, name: 'firewall', zone: 'eu', tag: 'edge' });
    expect(device).toMatchObject({ ip: '192.0.2.10', user_id: alice, name: 'firewall', zone: 'eu' });
    const server = await client.addServer({ ip: '2001:db8::10', user_id: alice, name: 'web1.example.com', zone: 'eu' });
    expect(server).toMatchObject({ ip: '2001:db8::10', user_id: alice, name: 'web1.example.com' });
    await expectProviderError(client.addServer({ ip: '2001:db8::10', user_id: alice }), 'PROVIDER_CONFLICT');
  });

  it('attaches to the key owner when user_id is left out', async () => {
    const user = await client.createUser(alice);
    secrets.add(user.api_key ?? '');
    const device = await client.withApiKey(user.api_key ?? '').addDevice({ ip: '192.0.2.11', name: 'router' });
    expect(device.user_id).toBe(alice);
  });
});

describe('websites', () => {
  beforeEach(async () => {
    await client.createUser(alice);
  });

  it('creates with JSON, looks up, and becomes online once DNS is verified', async () => {
    const created = await client.createWebsite({
      domain: 'Bücher.Example',
      user_id: alice,
      subdomain: ['www'],
      ip: ['203.0.113.10'],
      ipv6: ['2001:db8::1'],
      tag: ['basic'],
      settings: { rules: { humans: 'grant', content_scrapers: 'deny' }, rulesets: { wordpress: true } },
    });
    expect(created).toMatchObject({
      domain: 'xn--bcher-kva.example',
      user_id: alice,
      subdomain: ['www'],
      ip: ['203.0.113.10'],
      ipv6: ['2001:db8::1'],
      tag: ['basic'],
    });
    expect(created.status).toBe('pending_dns');

    const looked = await client.lookupWebsite('xn--bcher-kva.example');
    expect(looked.settings.rules).toMatchObject({ humans: 'grant', content_scrapers: 'deny' });
    expect(looked.settings.rulesets.wordpress).toBe(true);
    expect(looked.settings.loadbalancer.certs_issuer).toBe('acme');

    await control('POST', '/websites/xn--bcher-kva.example/dns-verified');
    // The requested status applies once DNS is verified; the acme certificate follows (certDelaySeconds 0.2).
    expect((await client.lookupWebsite('bücher.example')).status).toBe('online');
    await eventually(async () => expect((await client.lookupWebsite('bücher.example')).certificate_status).toBe('issued'));
  });

  it('creates form-encoded with comma-joined arrays', async () => {
    const created = await client.createWebsiteForm({
      user_id: alice,
      domain: 'shop.example',
      subdomain: ['www', 'shop'],
      ip: ['203.0.113.10', '203.0.113.11'],
      tag: ['a', 'b'],
      callbackUrl: 'http://127.0.0.1:9/hook',
    });
    expect(created).toMatchObject({
      domain: 'shop.example',
      subdomain: ['www', 'shop'],
      ip: ['203.0.113.10', '203.0.113.11'],
      tag: ['a', 'b'],
      callbackUrl: 'http://127.0.0.1:9/hook',
    });
  });

  it('updates partially with JSON and changes the status form-encoded', async () => {
    await client.createWebsite({ domain: 'example.com', user_id: alice, ip: ['203.0.113.10'] });
    const updated = await client.updateWebsite('example.com', {
      subdomain: ['www', 'new'],
      settings: { rules: { suspicious_behaviour: 'captcha' }, loadbalancer: { force_https: true } },
    });
    expect(updated.subdomain).toEqual(['www', 'new']);
    expect(updated.settings.rules.suspicious_behaviour).toBe('captcha');
    expect(updated.settings.loadbalancer.force_https).toBe(true);
    // Untouched parts keep their values.
    expect(updated.ip).toEqual(['203.0.113.10']);

    await control('POST', '/websites/example.com/dns-verified');
    await eventually(async () => expect((await client.lookupWebsite('example.com')).status).toBe('online'));
    const paused = await client.setWebsiteStatus('example.com', 'paused');
    expect(paused.requested_status ?? paused.status).toBe('paused');
    await eventually(async () => expect((await client.lookupWebsite('example.com')).status).toBe('paused'));
    await client.setWebsiteStatus('example.com', 'online');
    await eventually(async () => expect((await client.lookupWebsite('example.com')).status).toBe('online'));
  });

  it('takes a custom certificate, never echoes its private key, and switches back to acme', async () => {
    const certificate = {
      public: readFileSync(join(fixtures, 'secure.example.crt'), 'utf8'),
      private: readFileSync(join(fixtures, 'secure.example.key'), 'utf8'),
    };
    const created = await client.createWebsite({
      domain: 'secure.example',
      user_id: alice,
      ip: ['203.0.113.10'],
      certificate,
      settings: { loadbalancer: { certs_issuer: 'custom' } },
    });
    expect(created.settings.loadbalancer.certs_issuer).toBe('custom');
    expect(created.certificate?.public).toContain('BEGIN CERTIFICATE');
    expect(JSON.stringify(created)).not.toContain('PRIVATE KEY');

    await control('POST', '/websites/secure.example/dns-verified');
    await eventually(async () => expect((await client.lookupWebsite('secure.example')).status).toBe('online'));
    expect((await client.lookupWebsite('secure.example')).certificate_status).toBe('custom');
    const switched = await client.updateWebsite('secure.example', { settings: { loadbalancer: { certs_issuer: 'acme' } } });
    // Issuance shows in certificate_status; the status stays what was asked for.
    expect(switched).toMatchObject({ status: 'online', certificate_status: 'issuing' });
    await eventually(async () =>
      expect(await client.lookupWebsite('secure.example')).toMatchObject({ status: 'online', certificate_status: 'issued' }),
    );
  });

  it('refuses a key that does not belong to the certificate (provider-side check)', async () => {
    const error = await expectProviderError(
      client.createWebsite({
        domain: 'mismatch.example',
        user_id: alice,
        ip: ['203.0.113.10'],
        certificate: {
          public: readFileSync(join(fixtures, 'secure.example.crt'), 'utf8'),
          private: readFileSync(join(fixtures, 'other.key'), 'utf8'),
        },
        settings: { loadbalancer: { certs_issuer: 'custom' } },
      }),
      'PROVIDER_VALIDATION',
    );
    expect(error.status).toBe(422);
    expect(JSON.stringify(error)).not.toContain('PRIVATE KEY');
  });

  it('maps a duplicate create to PROVIDER_CONFLICT and ensureWebsite converges', async () => {
    await client.createWebsite({ domain: 'dup.example', user_id: alice, ip: ['203.0.113.10'] });
    await expectProviderError(client.createWebsite({ domain: 'dup.example', user_id: alice, ip: ['203.0.113.10'] }), 'PROVIDER_CONFLICT');

    const first = await client.ensureWebsite({ domain: 'ensure.example', user_id: alice, ip: ['203.0.113.10'], tag: ['a'] });
    expect(first.tag).toEqual(['a']);
    const second = await client.ensureWebsite({
      domain: 'ensure.example',
      user_id: alice,
      ip: ['203.0.113.20'],
      subdomain: ['www'],
      tag: ['b'],
      settings: { rules: { humans: 'captcha' } },
    });
    expect(second).toMatchObject({ domain: 'ensure.example', ip: ['203.0.113.20'], subdomain: ['www'], tag: ['b'] });
    expect(second.settings.rules.humans).toBe('captcha');
    expect((await listWebsitesRaw()).filter((website) => website.domain === 'ensure.example')).toHaveLength(1);
  });

  it('does not take over a website of another user in ensureWebsite', async () => {
    await client.createUser(bob);
    await client.createWebsite({ domain: 'taken.example', user_id: bob, ip: ['203.0.113.10'] });
    await expectProviderError(client.ensureWebsite({ domain: 'taken.example', user_id: alice, ip: ['203.0.113.99'] }), 'PROVIDER_CONFLICT');
    expect((await client.lookupWebsite('taken.example')).ip).toEqual(['203.0.113.10']);
  });

  it('maps an unknown domain to PROVIDER_NOT_FOUND', async () => {
    await expectProviderError(client.lookupWebsite('unknown.example'), 'PROVIDER_NOT_FOUND');
    await expectProviderError(client.getWebsiteStatistics('unknown.example'), 'PROVIDER_NOT_FOUND');
  });

  it('maps the domain limit to PROVIDER_LIMIT_REACHED', async () => {
    await client.updateUser(alice, { domain_limit: 1 });
    await client.createWebsite({ domain: 'one.example', user_id: alice, ip: ['203.0.113.10'] });
    const error = await expectProviderError(
      client.createWebsite({ domain: 'two.example', user_id: alice, ip: ['203.0.113.10'] }),
      'PROVIDER_LIMIT_REACHED',
    );
    expect(error).toMatchObject({ status: 403, providerCode: 'domain_limit_reached' });
  });
});

describe('statistics', () => {
  it('reads website and user statistics', async () => {
    await client.createUser(alice);
    await client.createWebsite({ domain: 'stats.example', user_id: alice, ip: ['203.0.113.10'] });
    await client.createWebsite({ domain: 'stats2.example', user_id: alice, ip: ['203.0.113.10'] });
    await control('POST', '/websites/stats.example/traffic', { hits: 100, blocked: 10, mitigated: 5 });
    await control('POST', '/websites/stats2.example/traffic', { hits: 50, blocked: 5 });

    const stats = await client.getWebsiteStatistics('stats.example');
    expect(stats).toMatchObject({ domain: 'stats.example', total: 100, blocked: 10, permitted: 90 });
    // Blocked hits count as denied mitigation, challenged ones as captcha.
    expect(stats.mitigatedDetail).toMatchObject({ captcha: 5, deny: 10 });
    expect(stats.mitigated).toBe(15);

    const now = new Date();
    const ranged = await client.getWebsiteStatistics('stats.example', {
      from: new Date(now.getTime() - 2 * 3_600_000),
      to: new Date(now.getTime() + 3_600_000),
    });
    expect(ranged.total).toBe(100);
    const past = await client.getWebsiteStatistics('stats.example', { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' });
    expect(past.total).toBe(0);

    const user = await client.getUserStatistics(alice);
    expect(user).toMatchObject({ total: 150, blocked: 15, permitted: 135, websiteCount: 2 });
  });
});

describe('authentication', () => {
  it('maps a wrong key to PROVIDER_AUTH', async () => {
    const error = await expectProviderError(client.withApiKey('not-a-real-key').listUsers(), 'PROVIDER_AUTH');
    expect(error.status).toBe(401);
    secrets.add('not-a-real-key');
  });

  it('refuses to build a client without a key (it could never send one)', () => {
    expect(() => createProviderClient(clientOptions({ apiKey: '' }))).toThrow(TypeError);
  });

  it("maps another user's asset and partner work with a user key to PROVIDER_AUTH", async () => {
    const aliceUser = await client.createUser(alice);
    await client.createUser(bob);
    secrets.add(aliceUser.api_key ?? '');
    await client.createWebsite({ domain: 'bobs.example', user_id: bob, ip: ['203.0.113.10'] });
    const asAlice = client.withApiKey(aliceUser.api_key ?? '');
    expect((await asAlice.getUser(alice)).id).toBe(alice);
    const forbidden = await expectProviderError(asAlice.lookupWebsite('bobs.example'), 'PROVIDER_AUTH');
    expect(forbidden.status).toBe(403);
    await expectProviderError(asAlice.createUser('carol@example.com'), 'PROVIDER_AUTH');
  });
});

describe('validation', () => {
  it('refuses bad input locally, with details, sending nothing', async () => {
    const error = await expectProviderError(
      client.createWebsite({ domain: 'not a domain', user_id: alice, ip: ['999.1.1.1'], tag: ['a,b'] }),
      'PROVIDER_VALIDATION',
    );
    expect(error.sent).toBe(false);
    expect(error.attempts).toBe(0);
    expect(error.details?.map((detail) => detail.path)).toEqual(expect.arrayContaining(['domain', 'ip.0', 'tag.0']));
    await expectProviderError(client.updateWebsite('example.com', {}), 'PROVIDER_VALIDATION');
    expect(await recentRequests()).toHaveLength(0);
  });

  it("maps the provider's refusals to PROVIDER_VALIDATION with its details", async () => {
    await client.createUser(alice);
    const unresolvable = await expectProviderError(
      client.createWebsite({ domain: 'gone.invalid', user_id: alice, ip: ['203.0.113.10'] }),
      'PROVIDER_VALIDATION',
    );
    expect(unresolvable).toMatchObject({ status: 422, providerCode: 'domain_unresolvable', sent: true });

    // Well-formed for the client, but the sandbox parses the PEM pair and refuses it.
    const badCertificate = await expectProviderError(
      client.createWebsite({
        domain: 'cert.example',
        user_id: alice,
        ip: ['203.0.113.10'],
        certificate: { public: 'not a certificate', private: 'not a key' },
        settings: { loadbalancer: { certs_issuer: 'custom' } },
      }),
      'PROVIDER_VALIDATION',
    );
    expect(badCertificate.status).toBe(422);
    expect(badCertificate.details?.length).toBeGreaterThan(0);
    expect(JSON.stringify(badCertificate)).not.toContain('not a key');
  });
});

describe('retries', () => {
  it('honours Retry-After on 429', async () => {
    await control('POST', '/faults', { mode: 'ratelimit', retryAfter: 1, times: 2 });
    const started = Date.now();
    const users = await client.listUsers();
    const elapsed = Date.now() - started;
    expect(users).toEqual([]);
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(6_000);
    const retries = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.level === 40);
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({ method: 'GET', path: '/v1.0/user', attempt: 1, status: 429, delayMs: 1000 });
  });

  it('gives up with PROVIDER_RATE_LIMITED when Retry-After is longer than allowed', async () => {
    await control('POST', '/faults', { mode: 'ratelimit', retryAfter: 30, times: 1 });
    const error = await expectProviderError(client.listUsers(), 'PROVIDER_RATE_LIMITED');
    expect(error).toMatchObject({ status: 429, attempts: 1, retryAfterMs: 30_000 });
  });

  it('does not retry a create after a 500', async () => {
    await control('POST', '/faults', { mode: 'error', times: 1 });
    const error = await expectProviderError(client.createUser(alice), 'PROVIDER_UNAVAILABLE');
    expect(error).toMatchObject({ status: 500, attempts: 1, sent: true });
    const posts = (await recentRequests()).filter((request) => request.method === 'POST' && request.path === '/v1.0/user');
    expect(posts).toHaveLength(1);
  });

  it('retries a GET after a 500, and an ensure create (it converges) after a 500', async () => {
    await control('POST', '/faults', { mode: 'error', times: 1 });
    expect(await client.listUsers()).toEqual([]);
    await control('POST', '/faults', { mode: 'error', times: 1 });
    expect((await client.ensureUser(alice)).id).toBe(alice);
  });

  it('retries a create after a 503 and after a 429', async () => {
    await control('POST', '/faults', { mode: 'down', times: 1 });
    await client.createUser(alice);
    await control('POST', '/faults', { mode: 'ratelimit', retryAfter: 0, times: 1 });
    await client.createUser(bob);
    const posts = (await recentRequests()).filter((request) => request.method === 'POST' && request.path === '/v1.0/user');
    expect(posts.map((request) => request.status).sort()).toEqual([201, 201, 429, 503]);
    expect((await client.listUsers()).map((user) => user.id).sort()).toEqual([alice, bob]);
  });

  it('maps a provider that stays down to PROVIDER_UNAVAILABLE after the retry limit', async () => {
    await control('POST', '/faults', { mode: 'down' });
    const error = await expectProviderError(client.listUsers(), 'PROVIDER_UNAVAILABLE');
    expect(error).toMatchObject({ status: 503, attempts: 5 });
  });

  it('maps dropped connections to PROVIDER_UNAVAILABLE, retrying reads but not creates', async () => {
    await control('POST', '/faults', { mode: 'down', reset: true });
    const read = await expectProviderError(client.listUsers(), 'PROVIDER_UNAVAILABLE');
    expect(read.attempts).toBe(5);
    const create = await expectProviderError(client.createUser(alice), 'PROVIDER_UNAVAILABLE');
    expect(create).toMatchObject({ attempts: 1, sent: true });
  });

  it('maps a timeout to PROVIDER_UNAVAILABLE', async () => {
    await control('POST', '/faults', { mode: 'slow', delayMs: 1_000 });
    const impatient = createProviderClient(clientOptions({ timeoutMs: 200, retry: { limit: 1, baseDelayMs: 10 } }));
    const started = Date.now();
    const error = await expectProviderError(impatient.listUsers(), 'PROVIDER_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ attempts: 2, cause: { code: 'ETIMEDOUT' } });
  });

  it('retries a create when the connection is refused (never sent), then reports it unsent', async () => {
    const port = await closedPort();
    const offline = createProviderClient(clientOptions({ baseUrl: `http://127.0.0.1:${port}`, retry: { limit: 2, baseDelayMs: 5 } }));
    const error = await expectProviderError(offline.createUser(alice), 'PROVIDER_UNAVAILABLE');
    expect(error).toMatchObject({ attempts: 3, sent: false, cause: { code: 'ECONNREFUSED' } });
  });
});

describe('statistics read path (lean transport)', () => {
  it('honours Retry-After on 429, retries 5xx and dropped connections, and maps the rest', async () => {
    await client.createUser('stats@example.com');
    await client.createWebsite({ domain: 'lean.example', user_id: 'stats@example.com', ip: ['203.0.113.10'] });
    await control('POST', '/websites/lean.example/traffic', { hits: 42, blocked: 2 });

    await control('POST', '/faults', { mode: 'ratelimit', retryAfter: 1, times: 1 });
    const started = Date.now();
    expect(await client.getWebsiteStatistics('lean.example')).toMatchObject({
      domain: 'lean.example',
      total: 42,
      permitted: 40,
      blocked: 2,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(logLines.join('')).toMatch(/"status":429.*retrying/);

    await control('POST', '/faults', { mode: 'error', times: 2 });
    expect((await client.getWebsiteStatistics('lean.example')).total).toBe(42);
    await control('POST', '/faults', { mode: 'down', reset: true, times: 1 });
    expect((await client.getWebsiteStatistics('lean.example')).total).toBe(42);

    await expectProviderError(client.getWebsiteStatistics('missing.example'), 'PROVIDER_NOT_FOUND');
    await control('POST', '/faults', { mode: 'down' });
    const down = await expectProviderError(client.getWebsiteStatistics('lean.example'), 'PROVIDER_UNAVAILABLE');
    expect(down.attempts).toBe(5);
    await control('POST', '/faults', { mode: 'slow', delayMs: 1500 });
    const slow = createProviderClient(clientOptions({ timeoutMs: 200, retry: { limit: 0 } }));
    await expectProviderError(slow.getWebsiteStatistics('lean.example'), 'PROVIDER_UNAVAILABLE');
    await control('POST', '/faults', { mode: 'none' });
    const ranged = await client.getWebsiteStatistics('lean.example', { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' });
    expect(ranged.total).toBe(0);
  });
});

describe('secrecy of the API key', () => {
  it('never puts a key into errors or logs', async () => {
    // Provoke one more of each kind with a user key, so a user's key is covered as well.
    const user = await client.ensureUser(alice);
    secrets.add(user.api_key ?? '');
    const asUser = client.withApiKey(user.api_key ?? '');
    await expectProviderError(asUser.createUser('dave@example.com'), 'PROVIDER_AUTH');
    await control('POST', '/faults', { mode: 'error' });
    await expectProviderError(asUser.getUser(alice), 'PROVIDER_UNAVAILABLE');
    await control('POST', '/faults', { mode: 'none' });

    expect(thrown.length).toBeGreaterThan(3);
    expect(allLogLines.length).toBeGreaterThan(0);
    const keys = [...secrets].filter((key) => key.length > 0);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const error of thrown) {
      expect(isProviderError(error)).toBe(true);
      const renderings = [
        (error as Error).message,
        JSON.stringify(error),
        inspect(error, { depth: Infinity, showHidden: true }),
        inspect((error as Error).cause, { depth: Infinity, showHidden: true }),
        String((error as Error).stack),
      ];
      for (const key of keys) {
        for (const rendering of renderings) expect(rendering).not.toContain(key);
      }
    }
    const log = allLogLines.join('');
    for (const key of keys) expect(log).not.toContain(key);
    expect(log).not.toMatch(/authorization/i);
  });
});

async function closedPort(): Promise<number> {
  const server = await startServer();
  await server.close();
  return server.port;
}
