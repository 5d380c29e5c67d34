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
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'CONFIG_INVALID',
  'PROVIDER_FAILED',
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
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  CONFIG_INVALID: 500,
  PROVIDER_FAILED: 502,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** An error answer lists at most this many details; `details_omitted` counts the rest. */
export const MAX_ERROR_DETAILS = 50;

/** The JSON body of every error answer of the plugin. */
export function errorBody(error: AppError): { status: 'error'; code: AppErrorCode; message: string; details: ErrorDetail[]; details_omitted: number } {
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

export function httpStatusFor(code: AppErrorCode): number {
  return HTTP_STATUS[code];
}

export const isAppError = (error: unknown, code?: AppErrorCode): error is AppError =>
  error instanceof AppError && (code === undefined || error.code === code);
