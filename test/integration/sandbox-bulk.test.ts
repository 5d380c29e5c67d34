/**
 * `POST /_sandbox/websites/bulk`: seeding many websites of one user in one transaction, over
 * raw HTTP like the other sandbox tests. What it creates must look, through /v1.0, like a
 * website whose DNS change was seen; anything refused must write nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

let sb: TestSandbox;

async function call(method: string, path: string, json?: unknown, key: string = sb.partnerKey): Promise<Answer> {
  const response = await fetch(`${sb.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      accept: 'application/json',
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const bulk = (body: unknown, key?: string) => call('POST', '/_sandbox/websites/bulk', body, key);
const websiteCount = async () => ((await call('GET', '/v1.0/website')).body as unknown[]).length;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});
beforeEach(async () => {
  await sb.control('POST', '/_sandbox/reset');
  expect((await call('POST', '/v1.0/user', { id: 'alice@example.com' })).status).toBe(201);
});

describe('POST /_sandbox/websites/bulk', () => {
  it('creates websites that read like DNS-verified ones, with their cumulative hits', async () => {
    const answer = await bulk({ user_id: 'Alice@Example.com', domains: ['a.example', 'B.Example', 'bücher.example'], hits: 1234 });
    expect(answer).toEqual({ status: 201, body: { created: 3 } });

    const read = await call('GET', '/v1.0/website?domain=b.example');
    expect(read.status).toBe(200);
    const website = Array.isArray(read.body) ? read.body[0] : read.body;
    expect(website).toMatchObject({
      domain: 'b.example',
      user_id: 'alice@example.com',
      status: 'online',
      requested_status: 'online',
      dns_verified: true,
      ip: ['203.0.113.10'],
      subdomain: [],
      tag: [],
      callbackUrl: null,
      certificate: null,
    });
    expect(website.settings.loadbalancer.certs_issuer).toBe('acme');
    expect(website.settings.rules.content_scrapers).toBe('deny');
    expect(website.settings.rulesets.wordpress).toBe(false);
    expect((await call('GET', '/v1.0/website?domain=xn--bcher-kva.example')).status).toBe(200);

    const stats = await call('GET', '/v1.0/website/a.example/statistics');
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      domain: 'a.example',
      total: 1234,
      permitted: 1234,
      blocked: 0,
      mitigated: { total: 0, captcha: 0, deny: 0 },
    });
    // The hits are in the current hour too, so a ranged read sees them.
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const ranged = await call('GET', `/v1.0/website/a.example/statistics?from=${encodeURIComponent(from)}`);
    expect(ranged.body.total).toBe(1234);
    // The owner's key sees them as its own, and traffic adds to the seeded total.
    const alice = await call('GET', '/v1.0/user/alice@example.com');
    expect(alice.body.websites).toBe(3);
    expect((await call('GET', '/v1.0/website/a.example/statistics', undefined, alice.body.api_key)).body.total).toBe(1234);
    await sb.control('POST', '/_sandbox/websites/a.example/traffic', { hits: 10, blocked: 4 });
    expect((await call('GET', '/v1.0/website/a.example/statistics')).body).toMatchObject({ total: 1244, blocked: 4 });
  });

  it('takes the requested status, origin addresses and zero hits by default', async () => {
    expect(
      (await bulk({ user_id: 'alice@example.com', domains: ['p.example'], status: 'paused', ip: ['198.51.100.7', '2001:db8::1'] })).status,
    ).toBe(201);
    const website = (await call('GET', '/v1.0/website/p.example')).body;
    expect(website).toMatchObject({
      status: 'paused',
      requested_status: 'paused',
      ip: ['198.51.100.7', '2001:db8::1'],
      dns_verified: true,
    });
    expect((await call('GET', '/v1.0/website/p.example/statistics')).body.total).toBe(0);
    // A seeded website changes like any other.
    const online = await call('PUT', '/v1.0/website/p.example', { status: 'online' });
    expect(online.body.status).toBe('online');
  });

  it('refuses invalid domains with 422 listing each one, and writes nothing', async () => {
    const answer = await bulk({ user_id: 'alice@example.com', domains: ['good.example', 'not a domain', 'nodot', 'also-good.example'] });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.details.map((d: { path: string }) => d.path)).toEqual(['domains.1', 'domains.2']);
    expect(answer.body.message).toContain('"not a domain"');
    expect(answer.body.message).toContain('"nodot"');
    expect(await websiteCount()).toBe(0);
  });

  it('refuses bad fields with 422', async () => {
    for (const body of [
      {},
      { user_id: 'alice@example.com', domains: [] },
      { user_id: 'alice@example.com', domains: ['a.example'], status: 'setup' },
      { user_id: 'alice@example.com', domains: ['a.example'], hits: -1 },
      { user_id: 'alice@example.com', domains: ['a.example'], ip: [] },
      { user_id: 'alice@example.com', domains: ['a.example'], ip: ['300.1.1.1'] },
      { user_id: 'alice@example.com', domains: ['a.example'], settings: {} },
      { user_id: 'alice@example.com', domains: Array.from({ length: 200_001 }, (_, i) => `s${i}.example`) },
    ]) {
      expect((await bulk(body)).status, JSON.stringify(body).slice(0, 100)).toBe(422);
    }
    expect(await websiteCount()).toBe(0);
  });

  it('refuses existing and repeated domains with 409 listing them, and writes nothing', async () => {
    expect((await bulk({ user_id: 'alice@example.com', domains: ['taken.example'] })).status).toBe(201);
    const answer = await bulk({
      user_id: 'alice@example.com',
      domains: ['new.example', 'Taken.example', 'twice.example', 'TWICE.example', 'other.example'],
    });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('already_exists');
    expect(answer.body.message).toMatch(/already exists/);
    expect(answer.body.details.map((d: { message: string }) => d.message)).toEqual([
      'taken.example already exists',
      'twice.example already exists',
    ]);
    expect(await websiteCount()).toBe(1);
    expect((await call('GET', '/v1.0/website/new.example')).status).toBe(404);
  });

  it('refuses an unknown user with 404 and writes nothing', async () => {
    const answer = await bulk({ user_id: 'nobody@example.com', domains: ['a.example'] });
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('not_found');
    expect(await websiteCount()).toBe(0);
  });

  it('takes the partner key only', async () => {
    const alice = await call('GET', '/v1.0/user/alice@example.com');
    expect((await bulk({ user_id: 'alice@example.com', domains: ['a.example'] }, alice.body.api_key)).status).toBe(403);
    expect((await bulk({ user_id: 'alice@example.com', domains: ['a.example'] }, 'not-a-key')).status).toBe(401);
    expect(await websiteCount()).toBe(0);
  });

  it('creates 100,000 websites in a few seconds', async () => {
    const domains = Array.from({ length: 100_000 }, (_, i) => `site-${i}.bulk.example`);
    const started = performance.now();
    const answer = await bulk({ user_id: 'alice@example.com', domains, hits: 7 });
    const seconds = (performance.now() - started) / 1000;
    expect(answer).toEqual({ status: 201, body: { created: 100_000 } });
    // Generous for a loaded CI machine; on the 2-core development machine it takes about 1-2 s.
    expect(seconds).toBeLessThan(20);
    expect((await call('GET', '/v1.0/user/alice@example.com')).body.websites).toBe(100_000);
    expect((await call('GET', '/v1.0/website/site-99999.bulk.example/statistics')).body.total).toBe(7);
  }, 60_000);
});
