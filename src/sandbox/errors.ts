/** One field problem, as listed in an error body's `details`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * Every refusal of the sandbox. The error middleware renders it as
 * `{"status":"error","code","message","details"}` with `httpStatus`.
 */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'A valid API key is required in the Authorization header') =>
  new SandboxError(401, 'unauthorized', message);
export const forbidden = (message: string) => new SandboxError(403, 'forbidden', message);
export const notFound = (message: string) => new SandboxError(404, 'not_found', message);
export const alreadyExists = (message: string) => new SandboxError(409, 'already_exists', message);
export const conflict = (message: string) => new SandboxError(409, 'conflict', message);
export const validationFailed = (details: ErrorDetail[], message?: string) =>
  new SandboxError(
    422,
    'validation_failed',
    message ?? `Invalid request: ${details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ')}`,
    details,
  );
