/**
 * The provider client's budget (docs/fleet.md, "One budget per server"): every attempt, each
 * retry too, on both transports, waits for a token of the budget it was built with, and each
 * answer is reported to it (a 429 with its Retry-After). Real sandbox, real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createProviderClient, type ProviderBudget, type ProviderPriority } from '../../src/provider/index.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sandbox: TestSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A budget that grants at once and remembers what it was asked and told. */
function recordingBudget() {
  const taken: ProviderPriority[] = [];
  const reports: Parameters<ProviderBudget['report']>[0][] = [];
  const budget: ProviderBudget = {
    take: async (priority) => {
      taken.push(priority);
    },
    report: (outcome) => reports.push(outcome),
  };
  return { budget, taken, reports };
}

describe('the provider client with a budget', () => {
  it('takes a token before every attempt, retries included, and reports each 429 with its Retry-After', async () => {
    sandbox = await startTestSandbox({ rateLimitPerSecond: 2 });
    const { budget, taken, reports } = recordingBudget();
    let attempts = 0;
    const client = createProviderClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.partnerKey,
      budget,
      retry: { limit: 6, baseDelayMs: 50, maxDelayMs: 2000 },
      onAttempt: () => attempts++,
    });
    // Four calls at once on a key allowed two a second: two meet a 429 and are retried after it.
    await Promise.all([client.listUsers(), client.listUsers(), client.listUsers(), client.listUsers()]);
    expect(attempts).toBeGreaterThan(4);
    expect(taken).toHaveLength(attempts);
    expect(taken.every((priority) => priority === 'background')).toBe(true);
    expect(reports).toHaveLength(attempts);
    const limited = reports.filter((outcome) => outcome !== 'ok');
    expect(limited.length).toBe(attempts - 4);
    expect(limited[0]).toMatchObject({ rateLimited: true, retryAfterMs: expect.any(Number) });
  }, 20_000);

  it('does the same on the statistics path, with the priority the client was given', async () => {
    sandbox = await startTestSandbox({ rateLimitPerSecond: 2 });
    const { budget, taken, reports } = recordingBudget();
    let attempts = 0;
    const client = createProviderClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.partnerKey,
      budget,
      retry: { limit: 6, baseDelayMs: 50, maxDelayMs: 2000 },
      onAttempt: () => attempts++,
    }).withPriority('urgent');
    // Statistics of a website the provider does not know: each call ends in a 404, an answer that is not a 429.
    const reads = ['a.example', 'b.example', 'c.example', 'd.example'].map((domain) =>
      client.getWebsiteStatistics(domain).then(
        () => 'found',
        () => 'failed',
      ),
    );
    expect(await Promise.all(reads)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(attempts).toBeGreaterThan(4);
    expect(taken).toHaveLength(attempts);
    expect(taken.every((priority) => priority === 'urgent')).toBe(true);
    expect(reports).toHaveLength(attempts);
    expect(reports.filter((outcome) => outcome === 'ok')).toHaveLength(4);
  }, 20_000);

  it('sends nothing until the budget grants the token', async () => {
    sandbox = await startTestSandbox();
    let grant: () => void = () => undefined;
    let attempts = 0;
    const budget: ProviderBudget = {
      take: () => new Promise<void>((resolve) => (grant = resolve)),
      report: () => undefined,
    };
    const client = createProviderClient({ baseUrl: sandbox.url, apiKey: sandbox.partnerKey, budget, onAttempt: () => attempts++ });
    const call = client.listUsers();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(attempts).toBe(0);
    grant();
    await expect(call).resolves.toEqual(expect.any(Array));
    expect(attempts).toBe(1);
  });

  it("stops a call still waiting for its token when the client's signal aborts (the close): not sent, no attempt", async () => {
    sandbox = await startTestSandbox();
    let attempts = 0;
    // A budget that never grants (a long backlog), and stops a wait when its caller's signal aborts, as the pacer does.
    const budget: ProviderBudget = {
      take: (_priority, signal) =>
        new Promise<void>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true })),
      report: () => undefined,
    };
    const closing = new AbortController();
    const client = createProviderClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.partnerKey,
      budget,
      signal: closing.signal,
      onAttempt: () => attempts++,
    });
    const reason = new Error('closing');
    const calls = [client.listUsers(), client.getWebsiteStatistics('a.example')];
    await new Promise((resolve) => setTimeout(resolve, 50));
    closing.abort(reason);
    // Both transports: the got path (listUsers) and the statistics' lean path.
    for (const call of calls) await expect(call).rejects.toBe(reason);
    expect(attempts).toBe(0);
  });
});
