import express, { type NextFunction, type Request, type Response } from 'express';
import { paths } from '../paths.js';
import { API_VERSION } from '../provider/spec.js';
import { createApiRouter } from './api.routes.js';
import type { SandboxContext } from './context.js';
import { createControlRouter } from './control.routes.js';
import { createDashboardRouter } from './dashboard.routes.js';
import { errorBody, payloadTooLarge, SandboxError, unsupportedMediaType } from './errors.js';
import type { Fault } from './faults.js';

const SENSITIVE_QUERY = /([?&](?:api-key|api_key|key)=)[^&]*/gi;

/** The body limits of /v1.0 (the control API takes up to 50 MB of JSON). */
const API_BODY_LIMIT = '1mb';
const FORM_PARAMETER_LIMIT = 5000;

function sendError(res: Response, error: SandboxError): void {
  res.status(error.httpStatus).set(error.headers).json(errorBody(error));
}

/**
 * body-parser's refusals (`type` as raw-body and body-parser set it) in the sandbox's
 * codes; null when `error` is not one of them.
 */
function bodyParserError(error: unknown): SandboxError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { type, status, charset, encoding } = error as { type?: unknown; status?: unknown; charset?: unknown; encoding?: unknown };
  switch (type) {
    case 'entity.parse.failed':
      return new SandboxError(400, 'bad_request', 'The request body is not valid JSON');
    case 'entity.too.large':
      return payloadTooLarge('The request body is too large');
    case 'parameters.too.many':
      return payloadTooLarge(`The form body has more than ${FORM_PARAMETER_LIMIT} parameters`);
    case 'charset.unsupported':
      return unsupportedMediaType(`Unsupported charset "${String(charset ?? '').toUpperCase()}": send UTF-8`);
    case 'encoding.unsupported':
      return unsupportedMediaType(`Unsupported Content-Encoding "${String(encoding ?? '')}": send identity, gzip, deflate or br`);
    case 'request.aborted':
      return new SandboxError(400, 'bad_request', 'The request was aborted before its body was complete');
    case 'request.size.invalid':
      return new SandboxError(400, 'bad_request', 'The request body does not match its Content-Length');
    default:
      break;
  }
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  if (status === 413) return payloadTooLarge('The request body is too large');
  if (status === 415) return unsupportedMediaType('The request body has an unsupported media type');
  // Anything else body-parser refuses (a corrupt compressed body, form nesting too deep, ...).
  return new SandboxError(status, 'bad_request', 'The request body could not be read');
}

/** Hands every JSON answer of this request to `observe` just before it is sent. */
function observeAnswers(req: Request, res: Response, observe: NonNullable<SandboxContext['observeAnswer']>): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const path = new URL(req.originalUrl, 'http://sandbox').pathname;
    observe({ method: req.method, path, status: res.statusCode, headers: res.getHeaders(), body });
    return json(body);
  };
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
        new SandboxError(
          503,
          'unavailable',
          'The service is temporarily unavailable',
          [],
          fault.retryAfter === undefined ? {} : { 'Retry-After': String(fault.retryAfter) },
        ),
      );
      return true;
    case 'error':
      sendError(res, new SandboxError(500, 'internal_error', 'Internal error (injected fault)'));
      return true;
    case 'ratelimit':
      sendError(
        res,
        new SandboxError(429, 'rate_limited', 'Too many requests (injected fault)', [], { 'Retry-After': String(fault.retryAfter ?? 1) }),
      );
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
    if (context.observeAnswer) observeAnswers(req, res, context.observeAnswer);
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

  const bodies = [
    express.json({ limit: API_BODY_LIMIT }),
    express.urlencoded({ extended: true, limit: API_BODY_LIMIT, parameterLimit: FORM_PARAMETER_LIMIT }),
  ];
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
    const refused = bodyParserError(error);
    if (refused) return sendError(res, refused);
    context.logger.error({ err: error }, 'sandbox internal error');
    sendError(res, new SandboxError(500, 'internal_error', 'Internal error'));
  });

  return app;
}
