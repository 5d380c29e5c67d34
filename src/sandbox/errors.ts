import { MAX_ERROR_DETAILS, type WireError, type WireErrorCode } from '../provider/wire.js';

/** One field problem, as listed in an error body's `details`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * At most this many entries of `details` are answered; `details_omitted` counts the rest
 * (documented in docs/sandbox.md), so a body with thousands of bad fields stays small.
 */
export { MAX_ERROR_DETAILS };
/** At most this many problems are spelled out in a 422 `message`. */
const MAX_MESSAGE_DETAILS = 10;
/** A detail's `path` or `message` longer than this is cut (a client may send a huge key). */
const MAX_DETAIL_TEXT = 200;

const cut = (text: string) => (text.length > MAX_DETAIL_TEXT ? `${text.slice(0, MAX_DETAIL_TEXT - 1)}…` : text);

/**
 * Every refusal of the sandbox. The error middleware renders it as
 * `{"status":"error","code","message","details","details_omitted"}` with `httpStatus`
 * (see `errorBody`).
 */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  constructor(
    readonly httpStatus: number,
    /** One of the codes docs/openapi.json lists for the status. */
    readonly code: WireErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The JSON body of every sandbox error: `details` capped at MAX_ERROR_DETAILS, the rest counted. */
export function errorBody(error: SandboxError): WireError {
  return {
    status: 'error',
    code: error.code,
    message: error.message,
    details: error.details.slice(0, MAX_ERROR_DETAILS).map((detail) => ({ path: cut(detail.path), message: cut(detail.message) })),
    details_omitted: Math.max(0, error.details.length - MAX_ERROR_DETAILS),
  };
}

export const unauthorized = (message = 'A valid API key is required in the Authorization header') =>
  new SandboxError(401, 'unauthorized', message);
export const forbidden = (message: string) => new SandboxError(403, 'forbidden', message);
export const notFound = (message: string) => new SandboxError(404, 'not_found', message);
export const alreadyExists = (message: string) => new SandboxError(409, 'already_exists', message);
export const conflict = (message: string) => new SandboxError(409, 'conflict', message);
export const payloadTooLarge = (message: string) => new SandboxError(413, 'payload_too_large', message);
export const unsupportedMediaType = (message: string) => new SandboxError(415, 'unsupported_media_type', message);

/** 422 listing every problem in `details`; the message spells out the first few. */
export const validationFailed = (details: ErrorDetail[], message?: string) => {
  const listed = details.slice(0, MAX_MESSAGE_DETAILS).map((d) => cut(d.path ? `${d.path}: ${d.message}` : d.message));
  const more = details.length - listed.length;
  return new SandboxError(
    422,
    'validation_failed',
    message ?? `Invalid request: ${listed.join('; ')}${more > 0 ? `; and ${more} more (see details)` : ''}`,
    details,
  );
};
