import type { Logger } from 'pino';
import type { CallbackDispatcher } from './callbacks.js';
import type { FaultState } from './faults.js';
import type { RateLimiter } from './rate-limit.js';
import type { RequestLog } from './request-log.js';
import type { SandboxStore } from './store.js';
import type { WebsiteService } from './websites.js';

/** Everything the sandbox's routes need, built once by `startSandbox` and passed down. */
export interface SandboxContext {
  store: SandboxStore;
  websites: WebsiteService;
  callbacks: CallbackDispatcher;
  rateLimiter: RateLimiter;
  faults: FaultState;
  requestLog: RequestLog;
  logger: Logger;
  now: () => number;
  /** Domain limit given to each new user; null: unlimited. */
  defaultDomainLimit: number | null;
  /** Sees every /v1.0 JSON answer as it is sent (the tests check each against docs/openapi.json). */
  observeAnswer?: ((answer: SandboxAnswer) => void) | undefined;
}

/** One /v1.0 answer: the request's method and path (no query) and what is sent back. */
export interface SandboxAnswer {
  method: string;
  path: string;
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}
