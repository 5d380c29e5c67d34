/**
 * A lean transport for the one call made at volume: reading statistics, 100,000 times per
 * sync. Profiling the sync showed got's per-request option building and the garbage it makes
 * costing more than the whole rest of a read, so this path uses node:http directly on a
 * keep-alive agent with the headers built once. It keeps the client's guarantees: only the
 * configured origin, a timeout per attempt, retries of network errors and 429/5xx with the
 * client's backoff and the provider's Retry-After, and every failure mapped by errors.ts.
 */
import http from 'node:http';
import https from 'node:https';
import { errorFromResponse, errorFromTransport, NOT_PROCESSED_STATUSES, RETRY_ERROR_CODES, RETRY_STATUSES, type ProviderError } from './errors.js';

export interface LeanGetOptions {
  origin: string;
  /** Path prefix of the base URL (usually empty). */
  basePath: string;
  headers: Record<string, string>;
  apiKey: string;
  timeoutMs: number;
  retryLimit: number;
  maxRetryAfterMs: number;
  /** The client's backoff for attempt N (1-based), so both transports share one policy. */
  backoffDelay: (attempt: number) => number;
  parseRetryAfter: (value: string | string[] | undefined) => number | undefined;
  onRetry: (details: { method: string; path: string; attempt: number; status?: number; code?: string; delayMs: number }) => void;
  maxSockets: number;
}


interface Answer {
  status: number;
  body: string;
  retryAfter: string | string[] | undefined;
}

export function createLeanGet(options: LeanGetOptions) {
  const secure = options.origin.startsWith('https:');
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: options.maxSockets })
    : new http.Agent({ keepAlive: true, maxSockets: options.maxSockets });
  const request = secure ? https.request : http.request;
  const url = new URL(options.origin);

  const once = (path: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request(
        { agent, protocol: url.protocol, hostname: url.hostname, port: url.port, method: 'GET', path: options.basePath + path, headers: options.headers, timeout: options.timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfter: res.headers['retry-after'] }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      req.on('error', reject);
      req.end();
    });

  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  return {
    /** GET `path` (starting with /); resolves with a 2xx answer's status and body, or throws a ProviderError. */
    async get(path: string): Promise<{ status: number; body: string; attempts: number }> {
      for (let attempt = 1; ; attempt++) {
        let failure: ProviderError;
        let delayMs: number | undefined;
        try {
          const answer = await once(path);
          if (answer.status >= 200 && answer.status < 300) return { status: answer.status, body: answer.body, attempts: attempt };
          const retryAfterMs = NOT_PROCESSED_STATUSES.includes(answer.status) ? options.parseRetryAfter(answer.retryAfter) : undefined;
          failure = errorFromResponse({ method: 'GET', path, attempts: attempt }, { status: answer.status, body: answer.body, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }, options.apiKey);
          if (!RETRY_STATUSES.includes(answer.status) || (retryAfterMs !== undefined && retryAfterMs > options.maxRetryAfterMs)) throw failure;
          delayMs = retryAfterMs ?? options.backoffDelay(attempt);
          if (attempt > options.retryLimit) throw failure;
          options.onRetry({ method: 'GET', path, attempt, status: answer.status, delayMs });
        } catch (error) {
          if (error instanceof Error && error.name === 'ProviderError') throw error;
          failure = errorFromTransport({ method: 'GET', path, attempts: attempt }, error, options.apiKey);
          const code = (error as { code?: string }).code ?? '';
          if (!RETRY_ERROR_CODES.includes(code) || attempt > options.retryLimit) throw failure;
          delayMs = options.backoffDelay(attempt);
          options.onRetry({ method: 'GET', path, attempt, code, delayMs });
        }
        await wait(delayMs);
      }
    },
    close: () => agent.destroy(),
  };
}
