/**
 * CSRF protection of every state-changing form (csrf-sync: the synchroniser token pattern).
 * The token lives in the server-side session row; each form carries it as `_csrf`, scripts
 * may send it as X-CSRF-Token. GET, HEAD and OPTIONS change nothing and need none.
 */
import { csrfSync } from 'csrf-sync';
import type { NextFunction, Request, Response } from 'express';
import type { SessionService } from '../../core/sessions.js';

export function createCsrf(sessions: SessionService) {
  const { csrfSynchronisedProtection, generateToken } = csrfSync({
    size: 32,
    getTokenFromState: (req) => req.pageSession?.csrfToken,
    storeTokenInState: (req, token) => {
      if (!req.pageSession) return;
      req.pageSession.csrfToken = token ?? null;
      sessions.storeCsrfToken(req.pageSession, token ?? null);
    },
    getTokenFromRequest: (req) => {
      const body = req.body as Record<string, unknown> | undefined;
      return typeof body?._csrf === 'string' ? body._csrf : req.get('x-csrf-token');
    },
  });
  return {
    /** Refuses a state-changing request without the session's token (EBADCSRFTOKEN, a 403 page); gives forms the token. */
    protect: (req: Request, res: Response, next: NextFunction) => {
      res.locals.csrfToken = generateToken(req);
      csrfSynchronisedProtection(req, res, next);
    },
  };
}

/** The error csrf-sync raises, for the one place errors become answers. */
export const isCsrfError = (error: unknown) => (error as { code?: unknown } | null)?.code === 'EBADCSRFTOKEN';
