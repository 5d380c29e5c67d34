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
  'CONFIG_INVALID',
  'PROVIDER_FAILED',
  'INTERNAL',
] as const;
export type AppErrorCode = (typeof APP_ERROR_CODES)[number];

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
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
  CONFIG_INVALID: 500,
  PROVIDER_FAILED: 502,
  INTERNAL: 500,
};

export function httpStatusFor(code: AppErrorCode): number {
  return HTTP_STATUS[code];
}

export const isAppError = (error: unknown, code?: AppErrorCode): error is AppError =>
  error instanceof AppError && (code === undefined || error.code === code);
