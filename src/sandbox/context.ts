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
}
