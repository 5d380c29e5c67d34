/**
 * Typed client of the provider's /v1.0 interface (spec sections 4.1-4.9, plus the sandbox's
 * documented extensions). Every call goes through one private request path that validates
 * first, sends with a timeout and a retry policy that never duplicates a create, and maps
 * every failure to a ProviderError in one place.
 */
import got, { type Got, type RequestError, type RetryObject } from 'got';
import type { z } from 'zod';
import { retryDelay, type RetryPolicy } from '../retry.js';
import { createLeanGet } from './lean-get.js';
import {
  errorFromBadResponse,
  errorFromResponse,
  errorFromTransport,
  errorFromValidation,
  isProviderError,
  issuesToDetails,
  NOT_PROCESSED_STATUSES,
  NOT_SENT_ERROR_CODES,
  RETRY_ERROR_CODES,
  RETRY_STATUSES,
  ProviderError,
} from './errors.js';
import {
  addDeviceSchema,
  addServerSchema,
  assetSchema,
  createUserSchema,
  statisticsQuerySchema,
  updateUserSchema,
  userListSchema,
  userSchema,
  userStatisticsSchema,
  websiteCreateFormSchema,
  websiteCreateSchema,
  websiteDeletedSchema,
  websiteSchema,
  websiteStatisticsSchema,
  websiteStatusUpdateSchema,
  websiteUpdateSchema,
  type AddDevice,
  type AddServer,
  type Device,
  type ProviderWebsite,
  type Server,
  type StatisticsQuery,
  type UpdateUser,
  type User,
  type UserStatistics,
  type WebsiteCreate,
  type WebsiteCreateForm,
  type WebsitePatch,
  type WebsiteStatistics,
} from './schemas.js';
import { API_VERSION, domainSchema, userIdSchema, type RequestableStatus } from './spec.js';

/** The subset of a pino logger the client uses; a pino logger fits as it is. */
export interface ProviderLogger {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface ProviderRetryOptions {
  /** Retries after the first attempt. Default 4. */
  limit?: number;
  /** First backoff delay; doubles per attempt, with jitter. Default 250 ms. */
  baseDelayMs?: number;
  /** Cap of one backoff delay. Default 30000 ms. */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this gives up instead of waiting. Default 60000 ms. */
  maxRetryAfterMs?: number;
}

/**
 * One HTTP attempt of the client (each retry is one more): the provider's status code, or the
 * transport error code (ECONNREFUSED, ETIMEDOUT, ...) when no answer came. For metrics.
 */
export type ProviderAttempt = { method: string; status: number } | { method: string; error: string };

export type ProviderPriority = 'urgent' | 'background';

/**
 * A request budget every attempt takes from (docs/fleet.md, "One budget per server"): core's
 * pacer fits as it is. The client only takes a token before each attempt, retries included,
 * and tells how each answer went (a 429 with its `Retry-After`, anything else `ok`).
 */
export interface ProviderBudget {
  take(priority: ProviderPriority, signal?: AbortSignal): Promise<void>;
  report(outcome: 'ok' | { rateLimited: true; retryAfterMs?: number | undefined }): void;
}

export interface ProviderClientOptions {
  /** Provider base URL, without the version (paths add `/v1.0/...`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; never logged, never put into an error. */
  apiKey: string;
  /** Timeout of one attempt, from start to the end of the answer. Default 10000 ms. */
  timeoutMs?: number;
  retry?: ProviderRetryOptions;
  /** Receives one debug line per call and one warn line per retry. Default: silent. */
  logger?: ProviderLogger;
  /** Default `web-protection-panel-plugin`. */
  userAgent?: string;
  /** Keep-alive connections of the statistics read path. Default 64. */
  maxSockets?: number;
  /** Told of every attempt, both transports (metrics); whatever it throws is ignored. Default: nobody. */
  onAttempt?: (attempt: ProviderAttempt) => void;
  /** Every attempt waits for a token of this budget first. Default: none (no pacing). */
  budget?: ProviderBudget;
  /** The priority this client's attempts take their tokens with. Default `background`. */
  priority?: ProviderPriority;
  /**
   * Aborted when the process closes: an attempt still waiting for its budget's token is not
   * sent, and its call rejects with the signal's reason (no attempt observed, nothing sent).
   */
  signal?: AbortSignal;
}

export interface StatisticsRange {
  from?: StatisticsQuery['from'];
  to?: StatisticsQuery['to'];
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Call {
  method: Method;
  /** Starts with `/`; the query goes into `searchParams` so it never reaches logs or errors. */
  path: string;
  searchParams?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /**
   * Whether sending twice is harmless. Defaults to true except for POST: a create is retried
   * only when the provider certainly did not process it, unless the caller converges on 409.
   */
  idempotent?: boolean;
}

interface RetryContext {
  method: Method;
  path: string;
  idempotent: boolean;
}

/** A 2xx answer, from either transport, with what error messages name. */
interface Answer {
  method: Method;
  path: string;
  status: number;
  attempts: number;
  body: string;
}

const silentLogger: ProviderLogger = { debug: () => undefined, warn: () => undefined };

/** `Retry-After` is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (header === undefined || header.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Math.round(Number(header) * 1000);
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

function joinForm(values: readonly string[]): string {
  return values.join(',');
}

/**
 * Creates a client bound to one API key. Throws a TypeError for an unusable base URL or key
 * (a programming error, not a provider failure).
 */
export function createProviderClient(options: ProviderClientOptions): ProviderClientWithKey {
  return {
    ...createCalls(options),
    withApiKey: (key: string) => createProviderClient({ ...options, apiKey: key }),
    withPriority: (priority: ProviderPriority) => createProviderClient({ ...options, priority }),
  };
}

type ProviderCalls = ReturnType<typeof createCalls>;

export interface ProviderClientWithKey extends ProviderCalls {
  /** The same client (options, retry policy, logger) acting with another key, e.g. a user's. */
  withApiKey(key: string): ProviderClientWithKey;
  /** The same client taking its budget's tokens with another priority (same budget, same key). */
  withPriority(priority: ProviderPriority): ProviderClientWithKey;
}

export type ProviderClient = ReturnType<typeof createProviderClient>;

/** The options checked and defaulted once; what every request of this client shares. */
function transportSettings(options: ProviderClientOptions) {
  const baseUrl = new URL(options.baseUrl);
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new TypeError('baseUrl must be an http(s) URL');
  }
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError('apiKey must be a non-empty string');
  }
  const apiKey = options.apiKey.trim();
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retry: RetryPolicy = {
    limit: options.retry?.limit ?? 4,
    baseMs: options.retry?.baseDelayMs ?? 250,
    maxMs: options.retry?.maxDelayMs ?? 30_000,
    maxRetryAfterMs: options.retry?.maxRetryAfterMs ?? 60_000,
  };
  const prefixUrl = `${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, '')}/`;
  const origin = baseUrl.origin;
  const userAgent = options.userAgent ?? 'web-protection-panel-plugin';
  return {
    apiKey,
    logger,
    timeoutMs,
    retry,
    prefixUrl,
    origin,
    basePath: baseUrl.pathname.replace(/\/+$/, ''),
    userAgent,
    maxSockets: options.maxSockets ?? 64,
  };
}

type TransportSettings = ReturnType<typeof transportSettings>;

/** What a got attempt throws when the close stopped its wait for a token: it was never sent. */
class TokenWaitStopped extends Error {
  readonly code = 'WPP_TOKEN_WAIT_STOPPED';
  constructor(readonly reason: unknown) {
    super('stopped while waiting for a token of the request budget');
  }
}

/** The close's reason when `error` (got wraps what its hooks throw) is a wait for a token it stopped. */
function stoppedWhileWaiting(error: unknown): { reason: unknown } | undefined {
  if (error instanceof TokenWaitStopped) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof TokenWaitStopped ? cause : undefined;
}

/**
 * The budget's two ends for both transports: a token before each attempt, each answer
 * reported. The wait for a token ends with the caller's signal or the process's close.
 */
function budgetHooks(options: ProviderClientOptions) {
  const { budget, signal: closing } = options;
  const priority = options.priority ?? 'background';
  if (!budget) return {};
  const stopOf = (signal?: AbortSignal) => (signal && closing ? AbortSignal.any([signal, closing]) : (signal ?? closing));
  return {
    beforeAttempt: (signal?: AbortSignal) => budget.take(priority, stopOf(signal)),
    // got's attempts have no caller's signal; a stop is told apart from a budget that failed.
    beforeGotAttempt: () =>
      budget.take(priority, closing).catch((reason: unknown) => {
        throw closing?.aborted ? new TokenWaitStopped(reason) : reason;
      }),
    onAnswer: (status: number, retryAfterMs: number | undefined) =>
      budget.report(status === 429 ? { rateLimited: true, retryAfterMs } : 'ok'),
  };
}

type BudgetHooks = ReturnType<typeof budgetHooks>;

/** Reports each attempt to the caller's observer (metrics), which must never break the call it watches. */
function attemptObservers(options: ProviderClientOptions) {
  const observe = (attempt: ProviderAttempt) => {
    try {
      options.onAttempt?.(attempt);
    } catch {
      // An observer's failure must not become the provider call's.
    }
  };
  const transportCode = (error: unknown) => (error as { code?: unknown }).code;
  const observeFailure = (method: string, error: unknown) => {
    const code = transportCode(error);
    observe({ method, error: typeof code === 'string' && code !== '' ? code : 'ERROR' });
  };
  return { observe, observeFailure };
}

type AttemptObservers = ReturnType<typeof attemptObservers>;

/**
 * got's retry decision: only the statuses and errors worth another try, and a call that is not
 * idempotent only when the provider certainly did not process it; each retry is logged.
 */
function retryDelayCalculator(retry: RetryPolicy, logger: ProviderLogger) {
  return function calculateDelay({ attemptCount, error }: RetryObject): number {
    const context = error.options.context.provider as RetryContext | undefined;
    if (!context) return 0;
    const status = error.response?.statusCode;
    const code = error.code;
    const retryable = status !== undefined ? RETRY_STATUSES.includes(status) : RETRY_ERROR_CODES.includes(code);
    if (!retryable) return 0;
    const notProcessed = status !== undefined ? NOT_PROCESSED_STATUSES.includes(status) : NOT_SENT_ERROR_CODES.includes(code);
    if (!context.idempotent && !notProcessed) return 0;
    const retryAfterMs =
      status !== undefined && NOT_PROCESSED_STATUSES.includes(status) ? parseRetryAfter(error.response?.headers['retry-after']) : undefined;
    const delayMs = retryDelay(attemptCount, retry, retryAfterMs);
    if (delayMs === undefined) return 0;
    logger.warn(
      {
        method: context.method,
        path: context.path,
        attempt: attemptCount,
        ...(status !== undefined ? { status } : { code }),
        delayMs,
      },
      'provider request failed, retrying',
    );
    return delayMs;
  };
}

/** The got instance for every call but statistics: retries, attempt hooks, the key only to the provider's origin. */
function createHttp(settings: TransportSettings, { observe, observeFailure }: AttemptObservers, budget: BudgetHooks): Got {
  const { prefixUrl, timeoutMs, retry, logger, origin, apiKey, userAgent } = settings;
  const calculateDelay = retryDelayCalculator(retry, logger);
  const http: Got = got.extend({
    prefixUrl,
    timeout: { request: timeoutMs },
    retry: {
      limit: retry.limit,
      methods: ['GET', 'PUT', 'POST', 'DELETE', 'HEAD', 'OPTIONS'],
      statusCodes: [...RETRY_STATUSES],
      errorCodes: [...RETRY_ERROR_CODES],
      maxRetryAfter: retry.maxRetryAfterMs,
      calculateDelay,
    },
    hooks: {
      // Every answer, retried ones too; attempts that got no answer are seen in beforeRetry and send's catch.
      afterResponse: [
        (response) => {
          observe({ method: response.request.options.method, status: response.statusCode });
          const retryAfterMs = NOT_PROCESSED_STATUSES.includes(response.statusCode)
            ? parseRetryAfter(response.headers['retry-after'])
            : undefined;
          budget.onAnswer?.(response.statusCode, retryAfterMs);
          return response;
        },
      ],
      beforeRetry: [
        (error) => {
          if (!error.response) observeFailure(error.options.method, error);
        },
      ],
      beforeRequest: [
        // Every attempt, each retry too, waits for the budget's token before it is sent.
        async () => {
          await budget.beforeGotAttempt?.();
        },
        (requestOptions) => {
          // The Authorization header must only ever go to the configured provider.
          const url = requestOptions.url;
          const target = url instanceof URL ? url.origin : new URL(String(url)).origin;
          if (target !== origin) throw new Error('refusing to send the API key to another origin');
        },
      ],
    },
    headers: {
      authorization: `Bearer ${apiKey}`,
      accept: 'application/json',
      'user-agent': userAgent,
    },
    throwHttpErrors: false,
    followRedirect: false,
    responseType: 'text',
  });
  return http;
}

/** Both transports of one client (got for most calls, the lean GET for statistics) behind `send` and `lean`. */
function createTransport(options: ProviderClientOptions) {
  const settings = transportSettings(options);
  const { apiKey, logger, timeoutMs, retry, origin, userAgent } = settings;
  const observers = attemptObservers(options);
  const { observe, observeFailure } = observers;
  const budget = budgetHooks(options);
  const http = createHttp(settings, observers, budget);

  // Statistics are read 100,000 times a sync: they take the lean path (see lean-get.ts).
  const lean = createLeanGet({
    origin,
    basePath: settings.basePath,
    headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json', 'user-agent': userAgent },
    apiKey,
    timeoutMs,
    retryDelay: (attempt, retryAfterMs) => retryDelay(attempt, retry, retryAfterMs),
    parseRetryAfter: (value) => parseRetryAfter(value),
    onRetry: (details) => logger.warn(details, 'provider request failed, retrying'),
    maxSockets: settings.maxSockets,
    onAttempt: observe,
    ...budget,
  });

  /** The one private request path: sends, retries (via got), and maps every failure. */
  async function send(call: Call): Promise<Answer> {
    const idempotent = call.idempotent ?? call.method !== 'POST';
    const started = Date.now();
    let response;
    try {
      response = await http(call.path.replace(/^\//, ''), {
        method: call.method,
        ...(call.searchParams ? { searchParams: call.searchParams } : {}),
        ...(call.json !== undefined ? { json: call.json } : {}),
        ...(call.form !== undefined ? { form: call.form } : {}),
        context: { provider: { method: call.method, path: call.path, idempotent } satisfies RetryContext },
      });
    } catch (error) {
      // Stopped before its token: not sent, so neither an attempt nor a provider failure.
      const stopped = stoppedWhileWaiting(error);
      if (stopped) throw stopped.reason;
      const attempts = ((error as Partial<RequestError>).request?.retryCount ?? 0) + 1;
      if (!(error as Partial<RequestError>).response) observeFailure(call.method, error);
      const mapped = errorFromTransport({ method: call.method, path: call.path, attempts }, error, apiKey);
      const code = (mapped.cause as { code?: string } | undefined)?.code;
      logger.debug({ method: call.method, path: call.path, code, attempts, ms: Date.now() - started }, 'provider request failed');
      throw mapped;
    }
    const status = response.statusCode;
    const attempts = response.retryCount + 1;
    logger.debug({ method: call.method, path: call.path, status, attempts, ms: Date.now() - started }, 'provider request');
    if (status < 200 || status > 299) {
      const retryAfterMs = NOT_PROCESSED_STATUSES.includes(status) ? parseRetryAfter(response.headers['retry-after']) : undefined;
      throw errorFromResponse(
        { method: call.method, path: call.path, attempts },
        { status, body: response.body, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
        apiKey,
      );
    }
    return { method: call.method, path: call.path, status, attempts, body: response.body };
  }

  return { send, lean };
}

function createCalls(options: ProviderClientOptions) {
  const { send, lean } = createTransport(options);

  /**
   * The one way an answer becomes a record, for both transports: JSON (an empty body reads as
   * no value), `shape` where an endpoint's record needs it, then the schema; anything else is
   * PROVIDER_BAD_RESPONSE saying what was expected.
   */
  function parseAnswer<S extends z.ZodType>(
    answer: Answer,
    schema: S,
    expected = 'the expected record',
    shape: (data: unknown) => unknown = (data) => data,
  ): z.output<S> {
    const context = { method: answer.method, path: answer.path, attempts: answer.attempts, status: answer.status };
    const text = answer.body.trim();
    let data: unknown;
    try {
      data = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      throw errorFromBadResponse(context, 'the body is not JSON');
    }
    const result = schema.safeParse(shape(data));
    if (!result.success) {
      throw errorFromBadResponse(context, `it does not match ${expected}`, issuesToDetails(result.error.issues));
    }
    return result.data;
  }

  function validate<S extends z.ZodType>(schema: S, input: unknown, method: Method, path: string): z.output<S> {
    const result = schema.safeParse(input);
    if (!result.success) throw errorFromValidation({ method, path }, result.error.issues);
    return result.data;
  }

  async function request<S extends z.ZodType>(call: Call, schema: S): Promise<z.output<S>> {
    return parseAnswer(await send(call), schema);
  }

  const userPath = (id: string) => `/${API_VERSION}/user/${segment(id)}`;
  const websitePath = (domain: string) => `/${API_VERSION}/website/${segment(domain)}`;

  function validUserId(id: string, method: Method, path: string): string {
    return validate(userIdSchema, id, method, path);
  }

  function validDomain(domain: string, method: Method, path: string): string {
    const result = domainSchema.safeParse(domain);
    if (!result.success) {
      throw errorFromValidation(
        { method, path },
        result.error.issues.map((issue) => ({ ...issue, path: ['domain'] })),
      );
    }
    return result.data;
  }

  async function createUserCall(id: string, idempotent: boolean): Promise<User> {
    const path = `/${API_VERSION}/user`;
    const body = validate(createUserSchema, { id }, 'POST', path);
    return request({ method: 'POST', path, form: { id: body.id }, idempotent }, userSchema);
  }

  async function getUser(id: string): Promise<User> {
    const userId = validUserId(id, 'GET', `/${API_VERSION}/user/{id}`);
    return request({ method: 'GET', path: userPath(userId) }, userSchema);
  }

  async function createWebsiteCall(input: WebsiteCreate, idempotent: boolean): Promise<ProviderWebsite> {
    const path = `/${API_VERSION}/website`;
    const body = validate(websiteCreateSchema, input, 'POST', path);
    return request({ method: 'POST', path, json: body, idempotent }, websiteSchema);
  }

  async function updateWebsite(domain: string, patch: WebsitePatch): Promise<ProviderWebsite> {
    const template = `/${API_VERSION}/website/{domain}`;
    const body = validate(websiteUpdateSchema, { ...patch, domain }, 'PUT', template);
    return request({ method: 'PUT', path: websitePath(body.domain), json: body }, websiteSchema);
  }

  async function lookupWebsite(domain: string): Promise<ProviderWebsite> {
    const path = `/${API_VERSION}/website`;
    const name = validDomain(domain, 'GET', path);
    const answer = await send({ method: 'GET', path, searchParams: { domain: name } });
    return parseAnswer(answer, websiteSchema, 'the expected record', (data) => {
      // Some deployments answer a lookup with a one-element list.
      if (!Array.isArray(data)) return data;
      const record = data.find((entry) => websiteSchema.safeParse(entry).data?.domain === name);
      if (record === undefined) {
        throw new ProviderError({
          code: 'PROVIDER_NOT_FOUND',
          message: `GET ${path} found no website ${name}`,
          method: 'GET',
          path,
          attempts: answer.attempts,
          sent: true,
          status: answer.status,
        });
      }
      return record;
    });
  }

  return {
    /** GET /v1.0/user: the users the key may manage. */
    async listUsers(): Promise<User[]> {
      return request({ method: 'GET', path: `/${API_VERSION}/user` }, userListSchema);
    },

    /** POST /v1.0/user (form `id`). Not retried unless the provider certainly did not process it. */
    async createUser(id: string): Promise<User> {
      return createUserCall(id, false);
    },

    /** GET /v1.0/user/{id}, including the user's API key. */
    getUser,

    /** PUT /v1.0/user/{id} (sandbox extension): domain limit (null: none) and tags. */
    async updateUser(id: string, patch: UpdateUser): Promise<User> {
      const template = `/${API_VERSION}/user/{id}`;
      const userId = validUserId(id, 'PUT', template);
      const body = validate(updateUserSchema, patch, 'PUT', template);
      return request({ method: 'PUT', path: userPath(userId), json: body }, userSchema);
    },

    /** POST /v1.0/device (form). */
    async addDevice(input: AddDevice): Promise<Device> {
      const path = `/${API_VERSION}/device`;
      const body = validate(addDeviceSchema, input, 'POST', path);
      return request({ method: 'POST', path, form: formOf(body) }, assetSchema);
    },

    /** POST /v1.0/server (form). */
    async addServer(input: AddServer): Promise<Server> {
      const path = `/${API_VERSION}/server`;
      const body = validate(addServerSchema, input, 'POST', path);
      return request({ method: 'POST', path, form: formOf(body) }, assetSchema);
    },

    /** POST /v1.0/website with the full JSON schema (API-first integration). */
    async createWebsite(input: WebsiteCreate): Promise<ProviderWebsite> {
      return createWebsiteCall(input, false);
    },

    /** POST /v1.0/website form-encoded (simple integration): arrays are comma-joined. */
    async createWebsiteForm(input: WebsiteCreateForm): Promise<ProviderWebsite> {
      const path = `/${API_VERSION}/website`;
      const body = validate(websiteCreateFormSchema, input, 'POST', path);
      const form: Record<string, string> = {
        user_id: body.user_id,
        domain: body.domain,
        ip: joinForm(body.ip),
      };
      // An empty field would read as one empty label or tag, so empty lists are left out.
      if (body.subdomain.length > 0) form.subdomain = joinForm(body.subdomain);
      if (body.tag.length > 0) form.tag = joinForm(body.tag);
      if (body.callbackUrl !== undefined) form.callbackUrl = body.callbackUrl;
      return request({ method: 'POST', path, form }, websiteSchema);
    },

    /** PUT /v1.0/website/{domain} with a partial JSON body; `domain` is repeated in the body. */
    updateWebsite,

    /**
     * DELETE /v1.0/website/{domain} (the sandbox's and wpp's addition, docs/provider-api.md): the
     * website is gone at the provider. A website already gone is PROVIDER_NOT_FOUND.
     */
    async deleteWebsite(domain: string): Promise<void> {
      const name = validDomain(domain, 'DELETE', `/${API_VERSION}/website/{domain}`);
      await request({ method: 'DELETE', path: websitePath(name) }, websiteDeletedSchema);
    },

    /** PUT /v1.0/website/{domain} form-encoded `status=...`: pause or resume protection. */
    async setWebsiteStatus(domain: string, status: RequestableStatus): Promise<ProviderWebsite> {
      const template = `/${API_VERSION}/website/{domain}`;
      const name = validDomain(domain, 'PUT', template);
      const body = validate(websiteStatusUpdateSchema, { status }, 'PUT', template);
      return request({ method: 'PUT', path: websitePath(name), form: { status: body.status } }, websiteSchema);
    },

    /** GET /v1.0/website?domain=: all current settings and rules of one website. */
    lookupWebsite,

    /**
     * GET /v1.0/website/{domain}/statistics, cumulative or within `from`/`to`. `signal` ends
     * the call at once (in flight or between retries), rejecting with the signal's reason.
     */
    async getWebsiteStatistics(
      domain: string,
      range: StatisticsRange = {},
      { signal }: { signal?: AbortSignal } = {},
    ): Promise<WebsiteStatistics> {
      const template = `/${API_VERSION}/website/{domain}/statistics`;
      const name = validDomain(domain, 'GET', template);
      const checked = validate(statisticsQuerySchema, range, 'GET', template);
      const query = new URLSearchParams({
        ...(checked.from ? { from: checked.from } : {}),
        ...(checked.to ? { to: checked.to } : {}),
      }).toString();
      const path = `${websitePath(name)}/statistics`;
      const answer = await lean.get(path, query, signal);
      // The record names its domain; when it does not, it is the one asked for.
      return parseAnswer({ method: 'GET', path, ...answer }, websiteStatisticsSchema, 'the statistics record', (data) =>
        typeof data === 'object' && data !== null && !Array.isArray(data) ? { domain: name, ...data } : data,
      );
    },

    /** GET /v1.0/user/{id}/statistics (sandbox extension): summed over the user's websites. */
    async getUserStatistics(id: string): Promise<UserStatistics> {
      const userId = validUserId(id, 'GET', `/${API_VERSION}/user/{id}/statistics`);
      return request({ method: 'GET', path: `${userPath(userId)}/statistics` }, userStatisticsSchema);
    },

    /**
     * Creates the user, or returns the existing one (with its API key) when it already exists.
     * Safe to retry after any failure, so the create is retried like an idempotent call.
     */
    async ensureUser(id: string): Promise<User> {
      try {
        return await createUserCall(id, true);
      } catch (error) {
        if (!isProviderError(error, 'PROVIDER_CONFLICT')) throw error;
        return getUser(id);
      }
    },

    /**
     * Creates the website, or converges an existing one: the fields the caller gave are sent
     * as a JSON PUT (fields left out keep their current value), then the record is re-read.
     * A website that belongs to another user is not taken over: that stays a conflict.
     */
    async ensureWebsite(input: WebsiteCreate): Promise<ProviderWebsite> {
      const path = `/${API_VERSION}/website`;
      const body = validate(websiteCreateSchema, input, 'POST', path);
      try {
        return await createWebsiteCall(input, true);
      } catch (error) {
        if (!isProviderError(error, 'PROVIDER_CONFLICT')) throw error;
        const existing = await lookupWebsite(body.domain);
        if (body.user_id !== undefined && existing.user_id !== undefined && existing.user_id !== body.user_id) {
          throw new ProviderError({
            code: 'PROVIDER_CONFLICT',
            message: `website ${body.domain} already exists and belongs to another user`,
            method: error.method,
            path: error.path,
            attempts: error.attempts,
            sent: true,
            ...(error.status !== undefined ? { status: error.status } : {}),
            ...(error.providerCode !== undefined ? { providerCode: error.providerCode } : {}),
          });
        }
        const given = new Set(Object.keys(input).filter((key) => input[key as keyof WebsiteCreate] !== undefined));
        const patch: Record<string, unknown> = {};
        for (const key of ['subdomain', 'ip', 'ipv6', 'tag', 'status', 'callbackUrl', 'certificate', 'settings'] as const) {
          if (given.has(key)) patch[key] = body[key];
        }
        if (Object.keys(patch).length > 0) await updateWebsite(body.domain, patch as WebsitePatch);
        return lookupWebsite(body.domain);
      }
    },
  };
}

function formOf(body: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
