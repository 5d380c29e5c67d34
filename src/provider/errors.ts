/**
 * The one typed error of the provider client, and the one place where provider answers,
 * transport failures and local validation failures become it.
 *
 * Secrecy: nothing here may hold the API key. got's errors carry the request options
 * (including the Authorization header), so they are never attached; at most a plain
 * {name, code, message} summary with the key redacted.
 */
import type { z } from 'zod';

export const PROVIDER_ERROR_CODES = [
  'PROVIDER_AUTH',
  'PROVIDER_NOT_FOUND',
  'PROVIDER_CONFLICT',
  'PROVIDER_VALIDATION',
  'PROVIDER_LIMIT_REACHED',
  'PROVIDER_RATE_LIMITED',
  'PROVIDER_UNAVAILABLE',
  'PROVIDER_BAD_RESPONSE',
] as const;
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number];

export interface ProviderErrorDetail {
  path: string;
  message: string;
}

/** A plain summary of the transport error behind a ProviderError (never got's error object). */
export interface ProviderErrorCause {
  name: string;
  code?: string;
  message: string;
}

export interface ProviderErrorInit {
  code: ProviderErrorCode;
  message: string;
  method: string;
  /** The request path only: never the query string, never headers. */
  path: string;
  /** How many HTTP attempts were made (0 when the request was refused locally). */
  attempts: number;
  /** Whether the request may have reached the provider (false: certainly not processed). */
  sent: boolean;
  status?: number;
  providerCode?: string;
  providerMessage?: string;
  details?: ProviderErrorDetail[];
  retryAfterMs?: number;
  cause?: ProviderErrorCause;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly code: ProviderErrorCode;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly sent: boolean;
  readonly status?: number;
  readonly providerCode?: string;
  readonly providerMessage?: string;
  readonly details?: ProviderErrorDetail[];
  readonly retryAfterMs?: number;

  constructor(init: ProviderErrorInit) {
    super(init.message, init.cause ? { cause: init.cause } : undefined);
    this.code = init.code;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
    this.sent = init.sent;
    if (init.status !== undefined) this.status = init.status;
    if (init.providerCode !== undefined) this.providerCode = init.providerCode;
    if (init.providerMessage !== undefined) this.providerMessage = init.providerMessage;
    if (init.details !== undefined) this.details = init.details;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }

  /** Errors serialise without a stack, so they can go into logs and API answers as they are. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      method: this.method,
      path: this.path,
      attempts: this.attempts,
      sent: this.sent,
      status: this.status,
      providerCode: this.providerCode,
      providerMessage: this.providerMessage,
      details: this.details,
      retryAfterMs: this.retryAfterMs,
      cause: this.cause,
    };
  }
}

export function isProviderError(error: unknown, code?: ProviderErrorCode): error is ProviderError {
  return error instanceof ProviderError && (code === undefined || error.code === code);
}

export interface RequestContext {
  method: string;
  path: string;
  attempts: number;
}

/** Replaces every occurrence of the secret, in case a provider or socket message echoes it. */
export function redact(text: string, secret: string): string {
  return secret.length > 0 ? text.split(secret).join('[redacted]') : text;
}

const MAX_PROVIDER_MESSAGE = 500;

interface ParsedErrorBody {
  providerCode?: string;
  providerMessage?: string;
  details?: ProviderErrorDetail[];
  numericCode?: number;
}

/** Error bodies may be the JSON format, plain text (a proxy's HTML page, say) or empty. */
export function parseErrorBody(body: string, secret: string): ParsedErrorBody {
  const text = redact(body, secret).trim();
  if (text === '') return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { providerMessage: text.slice(0, MAX_PROVIDER_MESSAGE) };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { providerMessage: text.slice(0, MAX_PROVIDER_MESSAGE) };
  }
  const record = json as Record<string, unknown>;
  const parsed: ParsedErrorBody = {};
  const code = record.code ?? record.error_code ?? record.error;
  if (typeof code === 'string' && code !== '') parsed.providerCode = code;
  if (typeof code === 'number') {
    parsed.providerCode = String(code);
    parsed.numericCode = code;
  }
  const message = record.message ?? record.error_description ?? (typeof record.error === 'string' ? record.error : undefined);
  if (typeof message === 'string' && message !== '') parsed.providerMessage = message.slice(0, MAX_PROVIDER_MESSAGE);
  if (Array.isArray(record.details)) {
    parsed.details = record.details.flatMap((entry: unknown) => {
      if (typeof entry === 'string') return [{ path: '', message: entry }];
      if (typeof entry !== 'object' || entry === null) return [];
      const detail = entry as Record<string, unknown>;
      const path = Array.isArray(detail.path) ? detail.path.map(String).join('.') : String(detail.path ?? '');
      return [{ path, message: String(detail.message ?? '') }];
    });
  }
  return parsed;
}

function classify(status: number, body: ParsedErrorBody): ProviderErrorCode {
  if (body.providerCode === 'domain_limit_reached') return 'PROVIDER_LIMIT_REACHED';
  // Public clients recognise duplicates by 303/409 or by the words, whatever the status.
  if (
    status === 409 ||
    status === 303 ||
    body.numericCode === 409 ||
    body.numericCode === 303 ||
    /already exists/i.test(body.providerMessage ?? '')
  ) {
    return 'PROVIDER_CONFLICT';
  }
  if (status === 401 || status === 403) return 'PROVIDER_AUTH';
  if (status === 404) return 'PROVIDER_NOT_FOUND';
  if (status === 400 || status === 422) return 'PROVIDER_VALIDATION';
  if (status === 429) return 'PROVIDER_RATE_LIMITED';
  if (status >= 500) return 'PROVIDER_UNAVAILABLE';
  return 'PROVIDER_BAD_RESPONSE';
}

/** Maps a non-2xx provider answer to a ProviderError. */
export function errorFromResponse(
  context: RequestContext,
  response: { status: number; body: string; retryAfterMs?: number },
  secret: string,
): ProviderError {
  const body = parseErrorBody(response.body, secret);
  const code = classify(response.status, body);
  const what = body.providerMessage ? `: ${body.providerMessage}` : '';
  return new ProviderError({
    code,
    message: `${context.method} ${context.path} failed with HTTP ${response.status}${what}`,
    method: context.method,
    path: context.path,
    attempts: context.attempts,
    sent: true,
    status: response.status,
    ...(body.providerCode !== undefined ? { providerCode: body.providerCode } : {}),
    ...(body.providerMessage !== undefined ? { providerMessage: body.providerMessage } : {}),
    ...(body.details !== undefined ? { details: body.details } : {}),
    ...(response.retryAfterMs !== undefined ? { retryAfterMs: response.retryAfterMs } : {}),
  });
}

/** Connection failures after which the provider certainly never saw the request. */
export const NOT_SENT_ERROR_CODES: readonly string[] = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'];

/** Answers worth trying again (every transport of the client uses these). */
export const RETRY_STATUSES: readonly number[] = [429, 500, 502, 503, 504];
export const RETRY_ERROR_CODES: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
];
/** Answers after which the provider certainly did not process the request. */
export const NOT_PROCESSED_STATUSES: readonly number[] = [429, 503];

/** Maps a transport failure (network error, timeout) to a ProviderError. */
export function errorFromTransport(context: RequestContext, error: unknown, secret: string): ProviderError {
  const raw = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const name = typeof raw.name === 'string' ? raw.name : 'Error';
  const code = typeof raw.code === 'string' ? raw.code : undefined;
  const message = redact(typeof raw.message === 'string' ? raw.message : String(error), secret);
  const sent = !(code !== undefined && NOT_SENT_ERROR_CODES.includes(code));
  return new ProviderError({
    code: 'PROVIDER_UNAVAILABLE',
    message: `${context.method} ${context.path} failed: ${code ?? name}: ${message}`,
    method: context.method,
    path: context.path,
    attempts: context.attempts,
    sent,
    cause: { name, ...(code !== undefined ? { code } : {}), message },
  });
}

export function errorFromBadResponse(
  context: RequestContext & { status: number },
  reason: string,
  details?: ProviderErrorDetail[],
): ProviderError {
  return new ProviderError({
    code: 'PROVIDER_BAD_RESPONSE',
    message: `${context.method} ${context.path} answered HTTP ${context.status} with a body that cannot be understood: ${reason}`,
    method: context.method,
    path: context.path,
    attempts: context.attempts,
    sent: true,
    status: context.status,
    ...(details !== undefined ? { details } : {}),
  });
}

/** Turns zod issues into details, one entry per bad field or unknown key. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): ProviderErrorDetail[] {
  const details: ProviderErrorDetail[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details.push({ path: path ? `${path}.${key}` : key, message: 'unknown field' });
    } else {
      details.push({ path, message: issue.message });
    }
  }
  return details;
}

export function errorFromValidation(context: Omit<RequestContext, 'attempts'>, issues: readonly z.core.$ZodIssue[]): ProviderError {
  const details = issuesToDetails(issues);
  const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
  return new ProviderError({
    code: 'PROVIDER_VALIDATION',
    message: `${context.method} ${context.path} refused before sending: ${summary}`,
    method: context.method,
    path: context.path,
    attempts: 0,
    sent: false,
    details,
  });
}
