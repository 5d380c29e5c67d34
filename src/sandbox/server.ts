import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { openMigratedDatabase } from '../db/open.js';
import { paths } from '../paths.js';
import { listen } from '../http-server.js';
import { createSandboxApp } from './app.js';
import { createCallbackDispatcher } from './callbacks.js';
import type { SandboxAnswer, SandboxContext } from './context.js';
import { createFaultState } from './faults.js';
import { errorBody, SandboxError } from './errors.js';
import { createRateLimiter } from './rate-limit.js';
import { createRequestLog } from './request-log.js';
import { createSimulatedResolver, createSystemResolver, type ResolverMode } from './resolver.js';
import { createSandboxStore, type SandboxStore } from './store.js';
import { startTrafficGenerator } from './traffic-generator.js';
import { createWebsiteService } from './websites.js';

export interface SandboxOptions {
  /** Folder for the sandbox's SQLite file (sandbox.sqlite). */
  dataDir: string;
  /** Listen address. Default 127.0.0.1. */
  host?: string;
  /** Listen port; 0 picks a free one. Default 8080. */
  port?: number;
  /** Domain resolution: `simulated` (default, offline) or `system`. */
  dns?: ResolverMode;
  /** Seconds until a new website's DNS counts as verified; null waits for the control API. Default 2. */
  dnsDelaySeconds?: number | null;
  /** Seconds an ACME certificate takes (`certificate_status` `issuing`). Default 5; 0 issues at once. */
  certDelaySeconds?: number;
  /** Requests per second per API key (same burst); 0 turns the limit off. Default 50. */
  rateLimitPerSecond?: number;
  /** Domain limit for each new user; null for none. Default null. */
  defaultDomainLimit?: number | null;
  /** Background hits per second spread over online websites; 0 for none. Default 0. */
  trafficPerSecond?: number;
  /** First callback retry delay in ms (doubling). Default 1000. */
  callbackRetryBaseMs?: number;
  /** How long callbacks are retried, in ms. Default one hour. */
  callbackRetryWindowMs?: number;
  /** Default: pino at info on standard output. Its callers pass theirs, at WPP_LOG_LEVEL (the sandbox reads no setting itself). */
  logger?: Logger;
  now?: () => number;
  /** Sees every /v1.0 JSON answer as it is sent; the tests check each against docs/openapi.json. */
  observeAnswer?: (answer: SandboxAnswer) => void;
  /** Where the listen address is set, for the message when listening fails. Default "--host and --port". */
  listenSetting?: string;
}

export interface RunningSandbox {
  url: string;
  port: number;
  partnerId: string;
  partnerKey: string;
  store: SandboxStore;
  close(): Promise<void>;
}

export const PARTNER_ID = 'partner@sandbox.local';

/** Reads the partner key from the database, creating the partner on the first start. */
function ensurePartner(store: SandboxStore, now: number): string {
  const existing = store.getUser(PARTNER_ID);
  if (existing) return existing.apiKey;
  const apiKey = randomUUID();
  store.insertUser({ id: PARTNER_ID, apiKey, isPartner: true, domainLimit: null, tag: [], createdAt: now, updatedAt: now });
  return apiKey;
}

/**
 * The partner key stored in a sandbox data folder, for a second process that talks to the
 * sandbox another process runs (the embedded sandbox of `wpp serve`).
 */
export function readPartnerKey(dataDir: string): string {
  const db = openMigratedDatabase(join(dataDir, 'sandbox.sqlite'), paths.sandboxMigrations);
  try {
    const key = createSandboxStore(db).getUser(PARTNER_ID)?.apiKey;
    if (!key) throw new Error(`No sandbox has run in ${dataDir} yet: start \`wpp serve\` (or set WPP_PROVIDER_URL) first`);
    return key;
  } finally {
    db.close();
  }
}

/** Opens the sandbox's database, starts its background work and listens. `close` undoes all of it. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? pino({ name: 'sandbox', level: 'info' });
  const db = openMigratedDatabase(join(options.dataDir, 'sandbox.sqlite'), paths.sandboxMigrations, {
    notice: (message) => logger.warn(message),
  });
  const store = createSandboxStore(db);
  const partnerKey = ensurePartner(store, now());

  const callbacks = createCallbackDispatcher({
    store,
    now,
    logger,
    retryBaseMs: options.callbackRetryBaseMs,
    retryWindowMs: options.callbackRetryWindowMs,
  });
  const dnsDelaySeconds = options.dnsDelaySeconds === undefined ? 2 : options.dnsDelaySeconds;
  const websites = createWebsiteService({
    store,
    resolver: options.dns === 'system' ? createSystemResolver() : createSimulatedResolver(store.isNxdomain),
    now,
    dnsDelayMs: dnsDelaySeconds === null ? null : Math.round(dnsDelaySeconds * 1000),
    certDelayMs: Math.round((options.certDelaySeconds ?? 5) * 1000),
    onCallbackQueued: () => callbacks.wake(),
  });
  const context: SandboxContext = {
    store,
    websites,
    callbacks,
    rateLimiter: createRateLimiter(options.rateLimitPerSecond ?? 50, now),
    faults: createFaultState(),
    requestLog: createRequestLog(),
    logger,
    now,
    defaultDomainLimit: options.defaultDomainLimit ?? null,
    observeAnswer: options.observeAnswer,
  };
  const app = createSandboxApp(context);

  // DNS verifications and certificate issuance fall due with time; 100 ms is the sandbox's precision.
  const ticker = setInterval(() => {
    try {
      websites.advance();
    } catch (error) {
      logger.error({ err: error }, 'sandbox state machine step failed');
    }
  }, 100);
  ticker.unref();
  callbacks.start();
  const stopTraffic = options.trafficPerSecond ? startTrafficGenerator(db, store, options.trafficPerSecond, now) : () => {};

  const server = await listen(app, {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8080,
    what: 'The provider sandbox',
    setting: options.listenSetting ?? '--host and --port',
    errorBody: (problem, status, message) => errorBody(new SandboxError(status, problem, message)),
  }).catch(async (error: unknown) => {
    clearInterval(ticker);
    stopTraffic();
    await callbacks.stop();
    db.close();
    throw error;
  });

  let closed: Promise<void> | undefined;
  return {
    url: server.url,
    port: server.port,
    partnerId: PARTNER_ID,
    partnerKey,
    store,
    close() {
      closed ??= (async () => {
        clearInterval(ticker);
        stopTraffic();
        // Clients' keep-alive connections must not hold the close open.
        await server.close({ force: true });
        await callbacks.stop();
        db.close();
      })();
      return closed;
    },
  };
}
