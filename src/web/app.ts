import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { AppError, httpStatusFor } from '../errors.js';
import { createCallbacksRouter, type CallbackRouteDeps } from './callbacks.routes.js';
import { createHooksRouter, type HooksRouteDeps } from './hooks.routes.js';

export interface AppDeps {
  logger: Logger;
  hooks: HooksRouteDeps;
  callbacks: CallbackRouteDeps;
}

/** Maps any error to the plugin's JSON error body; the one place errors become HTTP. */
function errorMiddleware(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    let appError: AppError;
    if (error instanceof AppError) appError = error;
    else if ((error as { type?: string }).type === 'entity.too.large') appError = new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large');
    else if (typeof (error as { status?: number }).status === 'number' && (error as { status: number }).status < 500) {
      appError = new AppError('BAD_REQUEST', 'The request could not be read');
    } else {
      logger.error({ err: error }, 'unexpected error while answering a request');
      appError = new AppError('INTERNAL', 'Internal error');
    }
    res.status(httpStatusFor(appError.code)).json({ status: 'error', code: appError.code, message: appError.message, details: appError.details });
  };
}

/** The plugin's express app. It never listens: main.ts owns the server. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(createHooksRouter(deps.hooks));
  app.use(createCallbacksRouter(deps.callbacks));
  app.use((req) => {
    throw new AppError('NOT_FOUND', `No such page: ${req.method} ${req.path}`);
  });
  app.use(errorMiddleware(deps.logger));
  return app;
}
