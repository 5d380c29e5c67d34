/**
 * A lean transport for the one call made at volume: reading statistics, 100,000 times per
 * sync. Profiling the sync showed got's per-request option building and the garbage it makes
 * costing more than the whole rest of a read, so this path uses node:http directly on a
 * keep-alive agent with the headers built once. It keeps the client's guarantees: only the
 * configured origin, a timeout per attempt, retries of network errors and 429/5xx with the
 * client's backoff and the provider's Retry-After, and every failure mapped by errors.ts.
 * An abort signal ends the call at once, in flight or between retries, with the signal's
 * reason (not a provider error: nothing failed at the provider).
 */
import http from 'node:http';
import https from 'node:https';
import { errorFromResponse, errorFromTransport, NOT_PROCESSED_STATUSES, RETRY_ERROR_CODES, RETRY_STATUSES } from './errors.js';

export interface LeanGetOptions {
  origin: string;
  /** Path prefix of the base URL (usually empty). */
  basePath: string;
  headers: Record<string, string>;
  apiKey: string;
  timeoutMs: number;
  /**
   * The client's retry policy (src/retry.ts retryDelay), so both transports share it: the
   * delay before retrying failed attempt N (1-based), or undefined to give up.
   */
  retryDelay: (attempt: number, retryAfterMs?: number) => number | undefined;
  parseRetryAfter: (value: string | string[] | undefined) => number | undefined;
  onRetry: (details: { method: string; path: string; attempt: number; status?: number; code?: string; delayMs: number }) => void;
  maxSockets: number;
  /** Told of every attempt's status code, or its transport error code when no answer came. */
  onAttempt: (attempt: { method: string; status: number } | { method: string; error: string }) => void;
  /** Waits for the budget before every attempt, retries too (the client's `budget`). */
  beforeAttempt?: (signal?: AbortSignal) => Promise<void>;
  /** Told of every answer's status and, for a 429 or 503, its `Retry-After`. */
  onAnswer?: (status: number, retryAfterMs: number | undefined) => void;
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

  /** One attempt; the deadline covers the whole answer, as got's `timeout.request` does elsewhere. */
  const once = (path: string, signal: AbortSignal | undefined): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port,
          method: 'GET',
          path: options.basePath + path,
          headers: options.headers,
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            clearTimeout(deadline);
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfter: res.headers['retry-after'] });
          });
          res.on('error', reject);
        },
      );
      const deadline = setTimeout(
        () => req.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        options.timeoutMs,
      );
      req.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      req.end();
    });

  const wait = (ms: number, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });

  return {
    /**
     * GET `path` with an optional query (kept out of errors and logs); resolves with a 2xx
     * answer's status and body, or throws a ProviderError (or `signal.reason` once aborted).
     */
    async get(path: string, query = '', signal?: AbortSignal): Promise<{ status: number; body: string; attempts: number }> {
      const target = query ? `${path}?${query}` : path;
      for (let attempt = 1; ; attempt++) {
        signal?.throwIfAborted();
        const context = { method: 'GET', path, attempts: attempt };
        let answer: Answer;
        await options.beforeAttempt?.(signal);
        try {
          answer = await once(target, signal);
        } catch (error) {
          signal?.throwIfAborted();
          const failure = errorFromTransport(context, error, options.apiKey);
          const code = (error as { code?: string }).code ?? '';
          options.onAttempt({ method: 'GET', error: code === '' ? 'ERROR' : code });
          const delayMs = RETRY_ERROR_CODES.includes(code) ? options.retryDelay(attempt) : undefined;
          if (delayMs === undefined) throw failure;
          options.onRetry({ method: 'GET', path, attempt, code, delayMs });
          await wait(delayMs, signal);
          continue;
        }
        options.onAttempt({ method: 'GET', status: answer.status });
        const retryAfterMs = NOT_PROCESSED_STATUSES.includes(answer.status) ? options.parseRetryAfter(answer.retryAfter) : undefined;
        options.onAnswer?.(answer.status, retryAfterMs);
        if (answer.status >= 200 && answer.status < 300) return { status: answer.status, body: answer.body, attempts: attempt };
        const failure = errorFromResponse(
          context,
          { status: answer.status, body: answer.body, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
          options.apiKey,
        );
        const delayMs = RETRY_STATUSES.includes(answer.status) ? options.retryDelay(attempt, retryAfterMs) : undefined;
        if (delayMs === undefined) throw failure;
        options.onRetry({ method: 'GET', path, attempt, status: answer.status, delayMs });
        await wait(delayMs, signal);
      }
    },
  };
}
