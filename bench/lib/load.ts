/**
 * A keep-alive HTTP load generator: `concurrency` loops, each sending its next request as
 * soon as the previous one is answered, over one node:http Agent. Requests are built before
 * the clock starts, so the generator spends its time on the wire, not on making bodies.
 */
import { Agent, request } from 'node:http';

export interface PreparedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface LoadResult {
  n: number;
  seconds: number;
  perSecond: number;
  /** Latency of each request in ms, sorted ascending. */
  latencies: Float64Array;
  /** Answers by HTTP status; 0 counts network errors. */
  statuses: Record<number, number>;
  /** The first unexpected answer body (for the error message). */
  firstFailure: string | null;
}

export function createAgent(concurrency: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
}

function send(agent: Agent, base: URL, prepared: PreparedRequest, keepBody: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(
      { agent, host: base.hostname, port: base.port, method: prepared.method, path: prepared.path, headers: prepared.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          if (keepBody) chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: keepBody ? Buffer.concat(chunks).toString('utf8') : '' }));
        res.on('error', (error) => resolve({ status: 0, body: String(error) }));
      },
    );
    req.on('error', (error) => resolve({ status: 0, body: String(error) }));
    req.end(prepared.body);
  });
}

/**
 * Sends requests[0..n) `concurrency` at a time. `expect` is the status every answer should
 * have; the body of the first other answer is kept. Bounded by the array and `timeoutMs`.
 */
export async function runLoad(options: {
  agent: Agent;
  url: string;
  concurrency: number;
  requests: PreparedRequest[] | ((i: number) => PreparedRequest);
  n: number;
  expect: number;
  timeoutMs?: number;
}): Promise<LoadResult> {
  const { agent, concurrency, n, expect } = options;
  const base = new URL(options.url);
  const at =
    typeof options.requests === 'function'
      ? options.requests
      : (i: number) => (options.requests as PreparedRequest[])[i] as PreparedRequest;
  const latencies = new Float64Array(n);
  const statuses: Record<number, number> = {};
  let firstFailure: string | null = null;
  let next = 0;
  const deadline = performance.now() + (options.timeoutMs ?? 300_000);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        if (performance.now() > deadline) throw new Error(`load did not finish within ${options.timeoutMs ?? 300_000} ms`);
        const i = next++;
        const t = performance.now();
        const { status, body } = await send(agent, base, at(i), firstFailure === null);
        latencies[i] = performance.now() - t;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status !== expect && firstFailure === null) firstFailure = `${status} ${body.slice(0, 500)}`;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort();
  return { n, seconds, perSecond: n / seconds, latencies, statuses, firstFailure };
}
