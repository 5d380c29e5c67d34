/**
 * The sandbox serves docs/openapi.json under its control API, and its real /v1.0 answers are
 * checked against it. Every integration test that starts a sandbox through startTestSandbox
 * checks its answers; these tests show the check sees every answer (errors and faults too) and
 * that an answer outside the document, or one the client's parser refuses, does fail.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxAnswer } from '../../src/sandbox/context.js';
import { createAnswerChecker, OPENAPI_FILE, type OpenApiDocument } from '../helpers/openapi-answers.js';
import { removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const started: TestSandbox[] = [];
afterEach(async () => {
  for (const sandbox of started.splice(0)) {
    await sandbox.close().catch(() => undefined);
    removeTempDir(sandbox.dataDir);
  }
});

async function sandboxSeeing(answers: SandboxAnswer[]): Promise<TestSandbox> {
  const sandbox = await startTestSandbox({ observeAnswer: (answer) => answers.push(answer) });
  started.push(sandbox);
  return sandbox;
}

const call = (sandbox: TestSandbox, method: string, path: string, init: { key?: string; form?: Record<string, string> } = {}) =>
  fetch(`${sandbox.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${init.key ?? sandbox.partnerKey}`,
      ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });

describe('the OpenAPI document and the sandbox', () => {
  it('serves docs/openapi.json at GET /_sandbox/openapi.json, without a key', async () => {
    const sandbox = await sandboxSeeing([]);
    const response = await fetch(`${sandbox.url}/_sandbox/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('checks every /v1.0 answer, successes, refusals and injected faults alike, and these match', async () => {
    const answers: SandboxAnswer[] = [];
    const sandbox = await sandboxSeeing(answers);
    const statuses = [
      (await call(sandbox, 'POST', '/v1.0/user', { form: { id: 'ann@example.com' } })).status,
      (await call(sandbox, 'GET', '/v1.0/user')).status,
      (await call(sandbox, 'GET', '/v1.0/user', { key: 'not-a-key' })).status,
      (await call(sandbox, 'POST', '/v1.0/user', { form: { id: 'ann@example.com' } })).status,
      (await call(sandbox, 'POST', '/v1.0/device', { form: { ip: 'not an address' } })).status,
      (await call(sandbox, 'GET', '/v1.0/nothing-here')).status,
      // Outside the interface the key is still checked first (doctor probes the provider this way).
      (await call(sandbox, 'GET', '/v1.0/', { key: 'not-a-key' })).status,
    ];
    await sandbox.control('POST', '/_sandbox/faults', { mode: 'ratelimit', retryAfter: 3, times: 1 });
    statuses.push((await call(sandbox, 'GET', '/v1.0/user')).status);
    expect(statuses).toEqual([201, 200, 401, 409, 422, 404, 401, 429]);
    expect(answers.map((answer) => answer.status)).toEqual(statuses);
    expect(sandbox.answerMismatches()).toEqual([]);
  });

  it('catches an answer outside the document and fails the sandbox close', async () => {
    const sandbox = await sandboxSeeing([]);
    // A record no route would write: a negative domain limit, which the document rules out.
    sandbox.store.insertUser({
      id: 'odd@example.com',
      apiKey: 'odd-key',
      isPartner: false,
      domainLimit: -1,
      tag: [],
      createdAt: 0,
      updatedAt: 0,
    });
    expect((await call(sandbox, 'GET', '/v1.0/user/odd@example.com')).status).toBe(200);
    expect(sandbox.answerMismatches()).toEqual([expect.stringMatching(/^GET \/v1\.0\/user\/odd@example\.com → 200: .*domain_limit/)]);
    await expect(sandbox.close()).rejects.toThrow(/answered outside docs\/openapi\.json \(1\):\nGET \/v1\.0\/user\/odd@example\.com/);
  });

  it('catches a status the operation does not list, a missing Retry-After, and an answer the client cannot parse', () => {
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
    const error = { status: 'error', code: 'rate_limited', message: 'slow down', details: [], details_omitted: 0 };
    const checker = createAnswerChecker(document);
    expect(checker.check({ method: 'GET', path: '/v1.0/user', status: 418, headers: {}, body: error })).toEqual([
      expect.stringContaining('GET /v1.0/user → 418: status not in docs/openapi.json'),
    ]);
    expect(checker.check({ method: 'GET', path: '/v1.0/user', status: 429, headers: {}, body: error })).toEqual([
      'GET /v1.0/user → 429: header Retry-After missing',
    ]);
    // A document looser than the client: an empty user id passes it, the client's parser refuses it.
    const loose = structuredClone(document);
    (loose.components.schemas.UserWithKey as { properties: Record<string, unknown> }).properties.id = { type: 'string' };
    const user = { id: '', api_key: 'k', tag: [], server: [], domain_limit: null, websites: 0, created_at: '2026-01-01T00:00:00.000Z' };
    expect(createAnswerChecker(loose).check({ method: 'GET', path: '/v1.0/user/x', status: 200, headers: {}, body: user })).toEqual([
      expect.stringContaining("GET /v1.0/user/x → 200: the client's parser refuses it"),
    ]);
  });
});
