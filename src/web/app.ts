import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Translate } from '../core/i18n.js';
import { AppError, errorBody, httpStatusFor, isDatabaseBusy, type AppErrorCode } from '../errors.js';
import { createCallbacksRouter, type CallbackRouteDeps } from './callbacks.routes.js';
import { createHooksRouter, type HooksRouteDeps } from './hooks.routes.js';
import type { ClientProblem } from '../http-server.js';
import { createMetricsRouter, type MetricsRouteDeps } from './metrics.routes.js';
import { createPanelLaunchRouter, type PanelLaunchDeps } from './panel-launch.routes.js';
import { paths } from '../paths.js';
import { createAssetsRouter } from './pages/assets.routes.js';
import { isCsrfError } from './pages/csrf.js';
import { createPagesRouter, type PagesDeps } from './pages/pages.routes.js';
import { renderErrorPage, wantsErrorPage } from './pages/render.js';
import { securityHeaders, type SecurityOptions } from './security.js';

export interface AppDeps {
  logger: Logger;
  hooks: HooksRouteDeps;
  callbacks: CallbackRouteDeps;
  /** The customer and admin pages; without them the app is the hooks and callbacks API only. */
  pages?: PagesDeps & { security: SecurityOptions };
  /** GET /metrics; without it the plugin has none. */
  metrics?: MetricsRouteDeps;
  /** POST /panel-launch/directadmin, on a DirectAdmin server only (WPP_PANEL=directadmin): its pages' sign-in. */
  panelLaunch?: PanelLaunchDeps;
}

/** Another process holds the database's write lock: nothing was written; the caller tries again. */
export const databaseBusy = (cause: unknown) =>
  new AppError('UNAVAILABLE', "The plugin's database is busy (another process is writing): nothing was stored, try again shortly", [], {
    cause,
    retryAfterSeconds: 1,
  });

const CLIENT_PROBLEM_CODES: Record<ClientProblem, AppErrorCode> = {
  request_timeout: 'REQUEST_TIMEOUT',
  headers_too_large: 'HEADERS_TOO_LARGE',
  bad_request: 'BAD_REQUEST',
};

/** The body of what Node's HTTP parser refuses before express sees it, in the plugin's error format. */
export const clientProblemBody = (problem: ClientProblem, _status: number, message: string) =>
  errorBody(new AppError(CLIENT_PROBLEM_CODES[problem], message));

/** A message of the error page in the page's language (pages/page-language.ts); undefined for the JSON API, which stays English. */
const pageMessage = (req: Request, res: Response, key: string, values?: Record<string, unknown>) => {
  const t = res.locals.t as Translate | undefined;
  return t && wantsErrorPage(req) ? t(key, values) : undefined;
};

/**
 * Maps any error to the plugin's JSON error body, or to the error page for the pages; the one
 * place errors become HTTP.
 */
function errorMiddleware(logger: Logger, pages: boolean) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    let appError: AppError;
    if (error instanceof AppError) appError = error;
    else if (isDatabaseBusy(error)) appError = databaseBusy(error);
    else if (isCsrfError(error))
      appError = new AppError(
        'FORBIDDEN',
        pageMessage(req, res, 'error.formExpired') ??
          'This form has expired or did not come from this page: nothing was changed. Reload the page and try again.',
      );
    else if ((error as { name?: string }).name === 'MulterError')
      appError = new AppError(
        'PAYLOAD_TOO_LARGE',
        'The upload is too large or has too many parts: a certificate and a key of at most 64 KB each.',
      );
    else if ((error as { type?: string }).type === 'entity.too.large')
      appError = new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large');
    else if (typeof (error as { status?: number }).status === 'number' && (error as { status: number }).status < 500) {
      appError = new AppError('BAD_REQUEST', 'The request could not be read');
    } else {
      logger.error({ err: error }, 'unexpected error while answering a request');
      appError = new AppError('INTERNAL', 'Internal error');
    }
    if (appError.retryAfterSeconds !== undefined) res.set('Retry-After', String(appError.retryAfterSeconds));
    // A body still unread (refused before it was wanted: no session, too large) is not read now
    // either: the connection closes after the answer instead of draining what the client sends.
    if (!req.complete) res.set('Connection', 'close');
    if (pages && wantsErrorPage(req)) renderErrorPage(res, appError);
    else res.status(httpStatusFor(appError.code)).json(errorBody(appError));
  };
}

/** The plugin's express app. It never listens: main.ts owns the server. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  if (deps.metrics) app.use(createMetricsRouter(deps.metrics));
  app.use(createHooksRouter(deps.hooks));
  app.use(createCallbacksRouter(deps.callbacks));
  if (deps.panelLaunch) app.use(createPanelLaunchRouter(deps.panelLaunch));
  if (deps.pages) {
    // The pages' headers (CSP and the rest) for what follows: the machine-to-machine routes above, timed per request, need none.
    app.use(securityHeaders(deps.pages.security));
    app.set('views', paths.views);
    app.set('view engine', 'ejs');
    // Templates compiled once, not on every request: express caches views only under NODE_ENV=production, which
    // nothing sets for the plugin, and a page's includes were read and compiled each time it rendered. The
    // templates ship with a release and never change under a running plugin.
    app.set('view cache', true);
    app.use(createAssetsRouter());
    app.use(createPagesRouter(deps.pages));
  }
  app.use((req: Request, res: Response) => {
    const where = { method: req.method, path: req.path };
    throw new AppError('NOT_FOUND', pageMessage(req, res, 'error.notFound', where) ?? `No such page: ${where.method} ${where.path}`);
  });
  app.use(errorMiddleware(deps.logger, deps.pages !== undefined));
  return app;
}
