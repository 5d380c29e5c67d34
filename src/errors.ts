/**
 * The plugin's own errors: a stable `code` per failure a caller can act on. HTTP statuses
 * are decided in one place (`httpStatusFor`), used by the web layer's error middleware.
 */
export const APP_ERROR_CODES = [
  'VALIDATION_FAILED',
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'LIMIT_REACHED',
  'PAYLOAD_TOO_LARGE',
  'LENGTH_REQUIRED',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'CONFIG_INVALID',
  'UNAVAILABLE',
  'INTERNAL',
] as const;
export type AppErrorCode = (typeof APP_ERROR_CODES)[number];

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  /** For UNAVAILABLE: when to try again, sent as Retry-After. */
  readonly retryAfterSeconds: number | undefined;
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

const HTTP_STATUS: Record<AppErrorCode, number> = {
  VALIDATION_FAILED: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_REACHED: 403,
  PAYLOAD_TOO_LARGE: 413,
  LENGTH_REQUIRED: 411,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  CONFIG_INVALID: 500,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** An error answer lists at most this many details; `details_omitted` counts the rest. */
export const MAX_ERROR_DETAILS = 50;

/** The JSON body of every error answer of the plugin. */
export function errorBody(error: AppError): {
  status: 'error';
  code: AppErrorCode;
  message: string;
  details: ErrorDetail[];
  details_omitted: number;
} {
  return {
    status: 'error',
    code: error.code,
    message: error.message,
    details: error.details.slice(0, MAX_ERROR_DETAILS),
    details_omitted: Math.max(0, error.details.length - MAX_ERROR_DETAILS),
  };
}

/**
 * SQLite's answer when another process holds the write lock longer than the busy timeout
 * (a backup, a long command): nothing was written, and trying again later will do.
 */
export function isDatabaseBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** A description is cut to this many characters: one stored row or log line stays small. */
const MAX_DESCRIPTION_LENGTH = 1000;

/** Credentials a message may echo: a bearer token, a key in a query string, a key in JSON. */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[^\s,;"']+/gi, '$1 [redacted]'],
  [/([?&](?:api[-_]?key|key|token|access_token|secret|password)=)[^&\s"']*/gi, '$1[redacted]'],
  [/("(?:api[-_]?key|token|secret|password|authorization)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, '$1"[redacted]"'],
];

/**
 * The one way an error becomes text for storage (jobs.last_error, job_runs, stats_latest, the
 * sandbox's callbacks table) and for log lines: `CODE: message` (or `Name: message`) on one
 * line, without a stack, at most 1000 characters. Only the `code`, `name` and `message`
 * strings are read, so no object behind the error (a request with its headers, say) is ever
 * serialised; credentials a message may echo are redacted. The provider client's errors are
 * already free of its key (see provider/errors.ts): this is the second line of defence.
 */
export function describeError(error: unknown): string {
  let text: string;
  if (typeof error === 'string') {
    text = error;
  } else if (typeof error === 'object' && error !== null) {
    const record = error as { code?: unknown; message?: unknown; name?: unknown };
    const code = typeof record.code === 'string' && record.code !== '' ? record.code : undefined;
    const name = typeof record.name === 'string' && record.name !== '' ? record.name : 'Error';
    const message = typeof record.message === 'string' ? record.message : '';
    text = message.trim() === '' ? `${code ?? name} (no message)` : `${code ?? name}: ${message}`;
  } else {
    text = `non-error value thrown: ${String(error)}`;
  }
  let oneLine = text.replace(/\s+/g, ' ').trim();
  for (const [pattern, replacement] of SECRET_PATTERNS) oneLine = oneLine.replace(pattern, replacement);
  return oneLine.length > MAX_DESCRIPTION_LENGTH ? `${oneLine.slice(0, MAX_DESCRIPTION_LENGTH - 1)}…` : oneLine;
}

export function httpStatusFor(code: AppErrorCode): number {
  return HTTP_STATUS[code];
}

export const isAppError = (error: unknown, code?: AppErrorCode): error is AppError =>
  error instanceof AppError && (code === undefined || error.code === code);
