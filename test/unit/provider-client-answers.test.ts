/**
 * Answers the sandbox never gives but real deployments and proxies do (plain-text and empty
 * error bodies, numeric error codes, HTTP-date Retry-After, non-JSON success bodies), served
 * by a tiny real HTTP server on port 0.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderClient, parseRetryAfter, ProviderError, type ProviderErrorCode } from '../../src/provider/index.js';
import type { Listening } from '../../src/http-server.js';
import { startServer } from '../helpers/server.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Listening;
let baseUrl: string;
let handler: Handler = (_req, res) => res.end();
const hits: { method: string; url: string; authorization: string | undefined }[] = [];
const key = 'secret-key-0123456789abcdef';

beforeAll(async () => {
  server = await startServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    handler(req, res);
  });
  baseUrl = `${server.url}/api`;
});

afterAll(async () => {
  await server.close({ force: true });
});

function answer(status: number, body: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

function client() {
  return createProviderClient({ baseUrl, apiKey: key, retry: { limit: 2, baseDelayMs: 1, maxRetryAfterMs: 3_000 } });
}

async function failure(call: Promise<unknown>, code: ProviderErrorCode): Promise<ProviderError> {
  const error = await call.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  expect((error as ProviderError).code).toBe(code);
  expect(JSON.stringify(error)).not.toContain(key);
  return error as ProviderError;
}

describe('requests', () => {
  it('sends Bearer auth and accept json under the base path, with arrays comma-joined in forms', async () => {
    let body = '';
    handler = (req, res) => {
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => answer(201, JSON.stringify({ domain: 'example.com', status: 'pending_dns' }))(req, res));
    };
    hits.length = 0;
    await client().createWebsiteForm({
      user_id: 'a@example.com',
      domain: 'example.com',
      subdomain: ['www', 'shop'],
      ip: ['192.0.2.1'],
      tag: ['x', 'y'],
    });
    expect(hits[0]).toMatchObject({ method: 'POST', url: '/api/v1.0/website', authorization: `Bearer ${key}` });
    expect(new URLSearchParams(body).get('subdomain')).toBe('www,shop');
    expect(new URLSearchParams(body).get('tag')).toBe('x,y');
  });
});

describe('error bodies', () => {
  it('reads the JSON error format', async () => {
    handler = answer(
      422,
      JSON.stringify({ status: 'error', code: 'validation_failed', message: 'bad', details: [{ path: 'ip.0', message: 'nope' }] }),
    );
    const error = await failure(client().listUsers(), 'PROVIDER_VALIDATION');
    expect(error).toMatchObject({
      status: 422,
      providerCode: 'validation_failed',
      providerMessage: 'bad',
      details: [{ path: 'ip.0', message: 'nope' }],
    });
  });

  it('reads plain-text and empty error bodies', async () => {
    handler = answer(404, 'Not Found');
    expect((await failure(client().getUser('a@example.com'), 'PROVIDER_NOT_FOUND')).providerMessage).toBe('Not Found');
    handler = answer(403, '');
    expect((await failure(client().listUsers(), 'PROVIDER_AUTH')).providerMessage).toBeUndefined();
    handler = answer(502, '<html>Bad Gateway</html>');
    const gateway = await failure(client().listUsers(), 'PROVIDER_UNAVAILABLE');
    expect(gateway.attempts).toBe(3);
  });

  it('recognises duplicates by 303, by a numeric code, and by the words "already exists"', async () => {
    handler = answer(303, '');
    await failure(client().createUser('a@example.com'), 'PROVIDER_CONFLICT');
    handler = answer(400, JSON.stringify({ status: 'error', code: 409, message: 'duplicate' }));
    await failure(client().createUser('a@example.com'), 'PROVIDER_CONFLICT');
    handler = answer(400, JSON.stringify({ status: 'error', message: 'Domain example.com already exists' }));
    await failure(client().createUser('a@example.com'), 'PROVIDER_CONFLICT');
  });

  it('never repeats a key the provider echoes back', async () => {
    handler = answer(400, `invalid key ${key}`);
    const error = await failure(client().listUsers(), 'PROVIDER_VALIDATION');
    expect(error.providerMessage).toBe('invalid key [redacted]');
  });
});

describe('success bodies', () => {
  it('maps a non-JSON or unusable success body to PROVIDER_BAD_RESPONSE', async () => {
    handler = answer(200, '<html>hello</html>');
    await failure(client().listUsers(), 'PROVIDER_BAD_RESPONSE');
    handler = answer(200, JSON.stringify({ nothing: 'here' }));
    const error = await failure(client().lookupWebsite('example.com'), 'PROVIDER_BAD_RESPONSE');
    expect(error.details?.[0]?.path).toBe('domain');
  });

  it('fails an unusable success body the same way on both transports', async () => {
    const cannot = 'answered HTTP 200 with a body that cannot be understood';
    handler = answer(200, '<html>hello</html>');
    expect((await failure(client().listUsers(), 'PROVIDER_BAD_RESPONSE')).message).toBe(`GET /v1.0/user ${cannot}: the body is not JSON`);
    const statistics = await failure(client().getWebsiteStatistics('example.com'), 'PROVIDER_BAD_RESPONSE');
    expect(statistics).toMatchObject({
      message: `GET /v1.0/website/example.com/statistics ${cannot}: the body is not JSON`,
      status: 200,
      attempts: 1,
    });
    handler = answer(200, '42');
    expect(await failure(client().getWebsiteStatistics('example.com'), 'PROVIDER_BAD_RESPONSE')).toMatchObject({
      message: `GET /v1.0/website/example.com/statistics ${cannot}: it does not match the statistics record`,
      details: [expect.objectContaining({ path: '' })],
    });
    handler = answer(200, ' ');
    expect((await failure(client().getUser('a@example.com'), 'PROVIDER_BAD_RESPONSE')).message).toBe(
      `GET /v1.0/user/a%40example.com ${cannot}: it does not match the expected record`,
    );
  });

  it('picks the website out of a lookup answered with a list, and finds none when it is not there', async () => {
    handler = answer(200, JSON.stringify([{ domain: 'other.example' }, { domain: 'example.com', status: 'online' }]));
    expect(await client().lookupWebsite('example.com')).toMatchObject({ domain: 'example.com', status: 'online' });
    handler = answer(200, JSON.stringify([{ domain: 'other.example' }]));
    expect(await failure(client().lookupWebsite('example.com'), 'PROVIDER_NOT_FOUND')).toMatchObject({
      message: 'GET /v1.0/website found no website example.com',
      status: 200,
      attempts: 1,
    });
  });

  it('reads a user list wrapped in an object', async () => {
    handler = answer(200, JSON.stringify({ data: [{ id: 'a@example.com', tag: 'x,y' }] }));
    expect(await client().listUsers()).toMatchObject([{ id: 'a@example.com', tag: ['x', 'y'] }]);
  });

  it('fills the domain of statistics that do not name it', async () => {
    handler = answer(200, JSON.stringify({ total: '10', blocked: 4, mitigated: 6 }));
    expect(await client().getWebsiteStatistics('example.com')).toEqual({
      domain: 'example.com',
      total: 10,
      permitted: 6,
      blocked: 4,
      mitigated: 6,
    });
  });
});

describe('Retry-After', () => {
  it('parses seconds and HTTP dates', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('Mon, 01 Jan 2024 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Sun, 31 Dec 2023 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('waits for an HTTP-date Retry-After on 503', async () => {
    let calls = 0;
    handler = (req, res) => {
      calls += 1;
      if (calls === 1) answer(503, '', { 'retry-after': new Date(Date.now() + 1_000).toUTCString() })(req, res);
      else answer(200, '[]')(req, res);
    };
    const started = Date.now();
    expect(await client().listUsers()).toEqual([]);
    // HTTP dates have whole seconds, so the wait is between 0 and 1 s.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(calls).toBe(2);
  });
});
