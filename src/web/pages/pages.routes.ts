/**
 * The plugin's pages: the launch, the customer's pages under /panel and the admins' under
 * /admin. Every page needs a session of its role; every form a CSRF token. Forms arrive
 * url-encoded, or multipart when they upload a file (a certificate): both are read here, once,
 * so the CSRF check sees every form's token before any route runs.
 */
import cookieParser from 'cookie-parser';
import express, { type Request, type Response } from 'express';
import multer from 'multer';
import type { Logger } from 'pino';
import type { LaunchRefusal } from '../../core/launch-tokens.js';
import type { SessionEnd, SessionService } from '../../core/sessions.js';
import type { SessionRole } from '../../db/sessions.repo.js';
import { createAdminRouter, type AdminPagesDeps } from './admin.routes.js';
import { createCsrf } from './csrf.js';
import { createLaunchRouter } from './launch.routes.js';
import { createPanelRouter, type PanelPagesDeps } from './panel.routes.js';
import { requireSession, sessionCookieName, sessionCookieOptions } from './session.middleware.js';

/** What the pages report (the metrics): refused launches, and requests without a live session. */
export interface PagesObserver {
  /** `missing`: the launch URL had no token at all. */
  launchRefused(reason: LaunchRefusal | 'missing'): void;
  sessionRefused(role: SessionRole, reason: SessionEnd): void;
}

export interface PagesDeps {
  sessions: SessionService;
  /** Cookies only over https: WPP_PUBLIC_URL is https (behind a TLS proxy), or the request came over TLS. */
  secureCookies: boolean;
  logger: Logger;
  panel: PanelPagesDeps;
  admin: AdminPagesDeps;
  /** Told of refused launches and sessions. Default: nobody. */
  observer?: PagesObserver;
}

/** Uploads are a certificate and its key: small text files. */
const UPLOAD_LIMITS = { fileSize: 64 * 1024, files: 4, fields: 200, fieldSize: 64 * 1024 };

export function createPagesRouter(deps: PagesDeps): express.Router {
  const { sessions, secureCookies } = deps;
  const router = express.Router();
  const csrf = createCsrf(sessions);
  router.use(cookieParser());
  router.use(express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 500 }));
  router.use(multer({ storage: multer.memoryStorage(), limits: UPLOAD_LIMITS }).any());
  router.use(createLaunchRouter({ sessions, secureCookies, logger: deps.logger, onRefused: deps.observer?.launchRefused }));

  router.get('/', (_req, res) => {
    res.render('home', { title: 'Web protection' });
  });

  const area = (role: SessionRole, pages: express.Router) => {
    const areaRouter = express.Router();
    // The area's one guard, ahead of every route in it: a session of this role, then the CSRF token.
    areaRouter.use(
      requireSession(sessions, role, { secureCookies, logger: deps.logger, onRefused: deps.observer?.sessionRefused }),
      csrf.protect,
    );
    areaRouter.post('/logout', (req: Request, res: Response) => {
      if (req.pageSession) sessions.end(req.pageSession);
      res.clearCookie(sessionCookieName(role), sessionCookieOptions(req, secureCookies));
      res.set('Cache-Control', 'no-store').render('signed-out', { title: 'Signed out' });
    });
    areaRouter.use(pages);
    return areaRouter;
  };
  router.use('/panel', area('customer', createPanelRouter(deps.panel)));
  router.use('/admin', area('admin', createAdminRouter(deps.admin)));
  return router;
}
