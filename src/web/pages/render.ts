/**
 * How the pages answer: HTML rendered from views/, and errors as a page with a plain-words
 * message (the API routes keep their JSON errors; app.ts decides which a request gets).
 */
import type { Request, Response } from 'express';
import type { AppError, AppErrorCode } from '../../errors.js';
import { httpStatusFor } from '../../errors.js';

/** Paths answered with pages, so with HTML errors; everything else is the JSON API. */
const PAGE_PREFIXES = ['/panel', '/admin', '/launch', '/logout'];

export const isPageRequest = (req: Request) =>
  req.path === '/' || PAGE_PREFIXES.some((prefix) => req.path === prefix || req.path.startsWith(`${prefix}/`));

/**
 * Whether an error answers with a page: a page's path, or a browser that asked for HTML before
 * JSON (a mistyped address). API clients (asking for JSON, or for any type first) keep JSON errors.
 */
export const wantsErrorPage = (req: Request) => isPageRequest(req) || req.accepts(['json', 'html']) === 'html';

const TITLES: Partial<Record<AppErrorCode, string>> = {
  UNAUTHORIZED: 'Please sign in again',
  FORBIDDEN: 'Not allowed',
  NOT_FOUND: 'Not found',
  VALIDATION_FAILED: 'Please check what you entered',
  BAD_REQUEST: 'That did not work',
  CONFLICT: 'That did not work',
  LIMIT_REACHED: 'Limit reached',
  UNAVAILABLE: 'Busy, try again shortly',
};

/**
 * The error page of the pages: the message says what happened and what to do; never a stack.
 * Should the page itself fail to render, the message goes out as plain text: an error is
 * always answered, never left hanging.
 */
export function renderErrorPage(res: Response, error: AppError): void {
  const title = TITLES[error.code] ?? 'Something went wrong';
  res.status(httpStatusFor(error.code)).set('Cache-Control', 'no-store');
  res.render('error', { title, message: error.message, code: error.code }, (renderError: Error | null, html?: string) => {
    if (renderError) res.type('text/plain').send(`${title}: ${error.message}`);
    else res.send(html);
  });
}
