import express, { type NextFunction, type Request, type Response } from 'express';
import { paths } from '../paths.js';
import { API_VERSION } from '../provider/spec.js';
import { createApiRouter } from './api.routes.js';
import type { SandboxContext } from './context.js';
import { createControlRouter } from './control.routes.js';
import { createDashboardRouter } from './dashboard.routes.js';
import { SandboxError } from './errors.js';
import type { Fault } from './faults.js';

const SENSITIVE_QUERY = /([?&](?:api-key|api_key|key)=)[^&]*/gi;

function sendError(res: Response, error: SandboxError): void {
  res.status(error.httpStatus).set(error.headers).json({
    status: 'error',
    code: error.code,
    message: error.message,
    details: error.details,
  });
}

/** Applies the injected fault to one /v1.0 request; true when the request was answered here. */
async function applyFault(fault: Fault, req: Request, res: Response): Promise<boolean> {
  switch (fault.mode) {
    case 'slow':
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      return false;
    case 'down':
      if (fault.reset) {
        req.socket.destroy();
        return true;
      }
      sendError(
        res,
        new SandboxError(503, 'unavailable', 'The service is temporarily unavailable', [], fault.retryAfter === undefined ? {} : { 'Retry-After': String(fault.retryAfter) }),
      );
      return true;
    case 'error':
      sendError(res, new SandboxError(500, 'internal_error', 'Internal error (injected fault)'));
      return true;
    case 'ratelimit':
      sendError(res, new SandboxError(429, 'rate_limited', 'Too many requests (injected fault)', [], { 'Retry-After': String(fault.retryAfter ?? 1) }));
      return true;
    default:
      return false;
  }
}

/** The sandbox's express app. It never listens: `startSandbox` owns the server. */
export function createSandboxApp(context: SandboxContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('views', paths.views);
  app.set('view engine', 'ejs');
  app.set('query parser', 'extended');

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service: 'wpp-provider-sandbox', api: API_VERSION });
  });

  app.use(`/${API_VERSION}`, (req, res, next) => {
    const started = performance.now();
    const fault = context.faults.consume();
    res.on('close', () => {
      const entry = {
        at: new Date().toISOString(),
        method: req.method,
        path: req.originalUrl.replace(SENSITIVE_QUERY, '$1[redacted]'),
        status: res.headersSent ? res.statusCode : 0,
        ms: Math.round((performance.now() - started) * 10) / 10,
        who: (res.locals.principal as { user: { id: string } } | undefined)?.user.id ?? null,
        fault: fault?.mode ?? null,
      };
      context.requestLog.add(entry);
      context.logger.debug(entry, 'sandbox request');
    });
    if (!fault) return next();
    applyFault(fault, req, res).then((answered) => (answered ? undefined : next()), next);
  });

  const bodies = [express.json({ limit: '1mb' }), express.urlencoded({ extended: true, limit: '1mb', parameterLimit: 5000 })];
  app.use(`/${API_VERSION}`, ...bodies, createApiRouter(context));
  app.use('/_sandbox', express.json({ limit: '50mb' }), createControlRouter(context));

  // Any other version prefix: the spec only has /v1.0.
  app.use((req, _res, next) => {
    const version = /^\/(v\d+(?:\.\d+)*)(?:\/|$)/i.exec(req.path)?.[1];
    if (version) throw new SandboxError(404, 'unknown_version', `API version ${version} does not exist; use /${API_VERSION}`);
    next();
  });

  app.use(createDashboardRouter(context));

  app.use((req) => {
    throw new SandboxError(404, 'not_found', `No such endpoint: ${req.method} ${req.path}`);
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof SandboxError) return sendError(res, error);
    const bodyError = error as { type?: string; status?: number };
    if (bodyError.type === 'entity.parse.failed') {
      return sendError(res, new SandboxError(400, 'bad_request', 'The request body is not valid JSON'));
    }
    if (bodyError.type === 'entity.too.large') {
      return sendError(res, new SandboxError(413, 'payload_too_large', 'The request body is too large'));
    }
    if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
      return sendError(res, new SandboxError(bodyError.status, 'bad_request', 'The request could not be read'));
    }
    context.logger.error({ err: error }, 'sandbox internal error');
    sendError(res, new SandboxError(500, 'internal_error', 'Internal error'));
  });

  return app;
}
