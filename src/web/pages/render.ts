/**
 * How the pages answer: HTML rendered from views/, and errors as a page with a plain-words
 * message (the API routes keep their JSON errors; app.ts decides which a request gets).
 */
import type { Request, Response } from 'express';
import type { Translate } from '../../core/i18n.js';
import type { AppError, AppErrorCode } from '../../errors.js';
import { httpStatusFor } from '../../errors.js';

/** Paths answered with pages, so with HTML errors; everything else is the JSON API. */
const PAGE_PREFIXES = ['/panel', '/admin', '/reseller', '/launch', '/logout'];

export const isPageRequest = (req: Request) =>
  req.path === '/' || PAGE_PREFIXES.some((prefix) => req.path === prefix || req.path.startsWith(`${prefix}/`));

/**
 * Whether an error answers with a page: a page's path, or a browser that asked for HTML before
 * JSON (a mistyped address). API clients (asking for JSON, or for any type first) keep JSON errors.
 */
export const wantsErrorPage = (req: Request) => isPageRequest(req) || req.accepts(['json', 'html']) === 'html';

/** The codes whose page has a title of its own (the catalogs' `error.title.<CODE>`); any other: `error.title.other`. */
const TITLED: ReadonlySet<AppErrorCode> = new Set([
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'VALIDATION_FAILED',
  'BAD_REQUEST',
  'CONFLICT',
  'LIMIT_REACHED',
  'UNAVAILABLE',
]);

/**
 * The error page of the pages: the message says what happened and what to do; never a stack.
 * In the page's language (res.locals.t, page-language.ts). Should the page itself fail to render
 * (or an error come before any language was chosen), the message goes out as plain text: an
 * error is always answered, never left hanging.
 */
export function renderErrorPage(res: Response, error: AppError): void {
  const t = res.locals.t as Translate | undefined;
  const titleKey = `error.title.${TITLED.has(error.code) ? error.code : 'other'}`;
  const title = t ? t(titleKey) : 'Something went wrong';
  res.status(httpStatusFor(error.code)).set('Cache-Control', 'no-store');
  res.render('error', { title, message: error.message, code: error.code }, (renderError: Error | null, html?: string) => {
    if (renderError) res.type('text/plain').send(`${title}: ${error.message}`);
    else res.send(html);
  });
}
